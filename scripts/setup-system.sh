#!/usr/bin/env bash
# Installs the system packages Refract needs (Chromium, ffmpeg, fonts for Latin/CJK/emoji, redis-server, poppler;
# nginx for the test of the deployment guide's reverse proxy; podman, runc, debootstrap, podman-compose and CNI's
# dnsname plugin for the container tests: the image, and compose.yaml run with service names resolved)
# when they are missing, on Debian as root. Skip with REFRACT_SKIP_SYSTEM_DEPS=1.
set -euo pipefail
if [ "${REFRACT_SKIP_SYSTEM_DEPS:-0}" = "1" ]; then
  echo "refract setup: REFRACT_SKIP_SYSTEM_DEPS=1, not checking system packages"
  exit 0
fi
declare -A CHECK=(
  [chromium]="test -x /usr/bin/chromium"
  [ffmpeg]="command -v ffmpeg"
  [redis-server]="command -v redis-server"
  [poppler-utils]="command -v pdfinfo"
  [nginx-light]="test -x /usr/sbin/nginx"
  [podman]="command -v podman"
  [runc]="command -v runc"
  [debootstrap]="command -v debootstrap"
  [podman-compose]="command -v podman-compose"
  [golang-github-containernetworking-plugin-dnsname]="test -x /usr/lib/cni/dnsname"
  [fonts-dejavu-core]="test -f /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
  [fonts-liberation]="test -d /usr/share/fonts/truetype/liberation"
  [fonts-noto-core]="test -d /usr/share/fonts/truetype/noto"
  [fonts-noto-cjk]="test -d /usr/share/fonts/opentype/noto"
  [fonts-noto-color-emoji]="test -f /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"
)
missing=()
for pkg in "${!CHECK[@]}"; do
  if ! eval "${CHECK[$pkg]}" >/dev/null 2>&1; then missing+=("$pkg"); fi
done
link_ffmpeg() {
  # Playwright records video with "its" ffmpeg, which cannot be downloaded here: point it at Debian's.
  local rev dir
  rev=$(node -p "require('./node_modules/playwright-core/browsers.json').browsers.find(b => b.name === 'ffmpeg').revision" 2>/dev/null) || return 0
  dir="${PLAYWRIGHT_BROWSERS_PATH:-$HOME/.cache/ms-playwright}/ffmpeg-$rev"
  if command -v ffmpeg >/dev/null 2>&1 && [ ! -e "$dir/ffmpeg-linux" ]; then
    mkdir -p "$dir" && ln -sf "$(command -v ffmpeg)" "$dir/ffmpeg-linux" && echo "refract setup: linked $dir/ffmpeg-linux to Debian's ffmpeg"
  fi
}
if [ ${#missing[@]} -eq 0 ]; then
  echo "refract setup: system packages present (chromium, ffmpeg, fonts, redis-server, poppler-utils, nginx, podman, podman-compose)"
  link_ffmpeg
  exit 0
fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "refract setup: missing system packages: ${missing[*]} (install them as root with apt-get, or set REFRACT_SKIP_SYSTEM_DEPS=1)" >&2
  exit 0
fi
echo "refract setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "refract setup: installed ${missing[*]}"
link_ffmpeg
