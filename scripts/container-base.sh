#!/usr/bin/env bash
# Makes the `debian:bookworm-slim` base image locally from Debian's packages, for machines that reach Debian's
# mirror but no image registry (docs/deployment.md, "Building without a registry"). Idempotent.
set -euo pipefail
if podman image exists localhost/debian:bookworm-slim; then exit 0; fi
mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
mirror=${mirror:-$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" >/dev/null
# As Debian's own slim image: no documentation, manuals or translations (now or from later packages), no caches.
cat > "$work/rootfs/etc/dpkg/dpkg.cfg.d/slim" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
path-exclude /usr/share/lintian/*
CFG
find "$work/rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
rm -rf "$work/rootfs"/usr/share/{man,info,lintian}/* "$work/rootfs"/var/lib/apt/lists/* "$work/rootfs"/var/cache/apt/*.bin \
  "$work/rootfs"/var/cache/apt/archives/*.deb
find "$work/rootfs/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} +
tar -C "$work/rootfs" -c . | podman import - localhost/debian:bookworm-slim >/dev/null
echo "container-base: localhost/debian:bookworm-slim made from $mirror"
