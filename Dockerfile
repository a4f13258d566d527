# syntax=docker/dockerfile:1
# Refract as a container: `docker build -t refract .` (or `podman build`), then
# `docker run -p 3000:3000 -p 3001:3001 refract`. docs/deployment.md has the compose file and a Kubernetes sketch.
#
# Behind a network that re-signs TLS, pass the host's CA bundle as a build secret (nothing of it stays in the image):
#   --secret id=hostca,src=/etc/ssl/certs/ca-certificates.crt

# --- build: Node 24 and npm 11 as the project brings them, production dependencies only -------------------------
FROM debian:bookworm-slim AS build
# No compilers: every native dependency ships a prebuilt binary for linux-x64 (sharp, isolated-vm); binutils strips node.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs npm ca-certificates binutils patch \
 && apt-get clean && rm -rf /var/lib/apt/lists/*
# Debian's npm 9 ignores package.json's allowScripts (install scripts would try the internet): Node 24 and npm 11 first.
RUN --mount=type=secret,id=hostca,required=false \
    export NODE_EXTRA_CA_CERTS=/run/secrets/hostca; [ -f "$NODE_EXTRA_CA_CERTS" ] || unset NODE_EXTRA_CA_CERTS; \
    npm install -g --no-audit --no-fund node@24 && hash -r && npm install -g --no-audit --no-fund npm@11 \
 && install -D "$(node -p process.execPath)" /opt/node/bin/node
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches patches
# No build of dist/ (the server runs the TypeScript source on Node 24) and no system packages from npm's hooks; the
# patches of patches/ applied as `npm ci` applies them in a checkout (patch-package is a development dependency).
RUN --mount=type=secret,id=hostca,required=false \
    export NODE_EXTRA_CA_CERTS=/run/secrets/hostca; [ -f "$NODE_EXTRA_CA_CERTS" ] || unset NODE_EXTRA_CA_CERTS; \
    npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm rebuild --no-audit --no-fund \
 && for p in patches/*.patch; do patch -p1 --forward --quiet < "$p" || exit 1; done \
 && find node_modules -type f \( -name '*.map' -o -iname 'readme*.md' -o -iname 'changelog*' -o -iname 'history.md' \
      -o -name '*.ts' -o -name '*.mts' -o -name '*.cts' \) -delete \
 && strip /opt/node/bin/node
# What the service never loads (image size, issue 44; the image test runs Lighthouse, user code and sharp): TypeScript
# in node_modules (types and sources: Node strips types of no file under node_modules, 24 MB), Lighthouse's error
# reporting (@sentry/node, 47 MB, imported only when reporting is enabled, which Refract never does, and the
# OpenTelemetry packages only it uses: prom-client's @opentelemetry/api stays), and isolated-vm's binaries for other
# platforms and its own tarball. (Lighthouse's messages in other languages stay: it imports every one at load.)
RUN rm -rf node_modules/@sentry node_modules/@sentry-internal \
 && find node_modules/@opentelemetry -mindepth 1 -maxdepth 1 ! -name api -exec rm -rf {} + \
 && find node_modules/isolated-vm/prebuilds -mindepth 1 -maxdepth 1 ! -name "$(node -p 'process.platform + "-" + process.arch')" -exec rm -rf {} + \
 && rm -f node_modules/isolated-vm/*.tgz
COPY engine engine
COPY crawl crawl
COPY plugins plugins
COPY server server
COPY lib lib
COPY bin bin
COPY testing testing
COPY docs docs
COPY LICENSE README.md ./

# --- run: Debian's Chromium, ffmpeg and fonts; a non-root user; tini passes SIGTERM on and reaps Chromium's orphans
# The fonts are the host's own families (DejaVu for monospace, Liberation, Noto with CJK and colour emoji), so that a
# capture in the container reads as it does on a Debian desktop. Then the files nothing here loads go (~210 MB): Mesa's
# GPU drivers and the LLVM and Z3 they compile shaders with (ffmpeg's avdevice links libGL, whose Mesa backend loads
# them only for an OpenGL context; headless Chromium draws with its own SwiftShader and ANGLE), Intel Quick Sync's
# hardware runtime (loaded by ffmpeg only for QSV) and Chromium's Vulkan validation layer (debugging only). Their
# packages stay registered, so apt works in a derived image; one that needs them back runs
# `apt-get install --reinstall libgl1-mesa-dri libllvm15 libz3-4 libmfx1`. The downloaded packages go too (`apt-get
# clean`): a base without Docker's docker-clean hook (one made with debootstrap) kept ~330 MB of them in the layer.
FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      chromium ffmpeg tini ca-certificates util-linux \
      fonts-liberation fonts-dejavu-core fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /usr/share/doc/* /usr/share/man/* /usr/share/locale/* /usr/share/icons/* \
 && for pkg in $(dpkg-query -W -f '${Package}\n' 'libllvm*' 'libz3-*' libgl1-mesa-dri 2>/dev/null); do \
      dpkg -L "$pkg" | while read -r f; do [ -f "$f" ] && rm -f "$f"; done; done \
 && rm -rf /usr/lib/x86_64-linux-gnu/libmfxhw64.so* /usr/lib/x86_64-linux-gnu/mfx /usr/lib/chromium/libVkLayer_khronos_validation.so* \
 && useradd --create-home --uid 10001 --user-group refract \
 && install -d -o refract -g refract /data/assets /data/state
COPY --from=build /opt/node/bin/node /usr/local/bin/node
COPY --from=build /app /app
WORKDIR /app
ENV NODE_ENV=production \
    CHROME_PATH=/usr/bin/chromium PLAYWRIGHT_BROWSERS_PATH=/opt/ms-playwright REFRACT_ASSETS_DIR=/data/assets REFRACT_DATA_DIR=/data/state \
    MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 MALLOC_TRIM_THRESHOLD_=131072
# Playwright records video with "its" ffmpeg: Debian's, where Playwright looks for it.
RUN dir="$PLAYWRIGHT_BROWSERS_PATH/ffmpeg-$(node -p "require('/app/node_modules/playwright-core/browsers.json').browsers.find(b => b.name === 'ffmpeg').revision")" \
 && mkdir -p "$dir" && ln -s /usr/bin/ffmpeg "$dir/ffmpeg-linux" \
 && node --version
USER refract
EXPOSE 3000 3001
VOLUME /data/assets /data/state
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
# Node itself is the process tini starts (not npm, which does not pass SIGTERM on): the drain answers requests in
# flight. REFRACT_ENTRY picks what runs: the server, or bin/actor.ts for the Apify Actor (.actor/actor.json).
ENV REFRACT_ENTRY=server/main.ts
# A stop drains: readiness fails, requests in flight finish within REFRACT_SHUTDOWN_GRACE (30 s). `docker stop`
# waits 10 s unless told: run with `--stop-timeout 40` (README), or stop with `-t 40`.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["sh", "-c", "exec node --no-node-snapshot --conditions=refract-source \"$REFRACT_ENTRY\""]
