#!/usr/bin/env bash
# docker/tests/image/build.sh — build the course image (docker/Dockerfile) for real, without Docker.
#
# With buildah (Debian's package; no daemon, no Docker engine) on a stand-in of the docker-stacks base
# image (docker/tests/image/standin/, made from a minimal Debian by mmdebstrap), because the production
# base quay.io/jupyter/base-notebook cannot be pulled everywhere (CI). `make test-image` runs this, then
# checks the image from inside (docker/tests/image/test_image.py). A teacher can run it too (docker/README.md).
#
# Steps: install buildah and mmdebstrap when missing (apt-get, as root or with sudo); make the Debian rootfs
# (mmdebstrap --variant=minbase trixie, kept in OUT for the next run); build the stand-in base; build
# docker/Dockerfile unchanged on it with --build-arg BASE_IMAGE=<the stand-in>. Builds run with
# --isolation chroot (no runc/crun: they need setrlimit, which some sandboxes refuse) and --format docker
# (OCI images drop the Dockerfile's SHELL and HEALTHCHECK).
#
# Transport only, never part of the image: when this machine trusts extra CAs (a TLS-inspecting proxy),
# its CA bundle is mounted into the build and pip is told to use it; a writable pip cache in OUT is mounted
# so that a rebuild does not download the wheels again. Without them the same image is built.
#
# Environment: WHYGPU_IMAGE_OUT (default build/image), WHYGPU_IMAGE_TAG (default localhost/whygpu:test),
# WHYGPU_CUDA=1 (the CUDA image), WHYGPU_IMAGE_FRESH=1 (a new rootfs and no layer cache).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
OUT="${WHYGPU_IMAGE_OUT:-$ROOT/build/image}"
TAG="${WHYGPU_IMAGE_TAG:-localhost/whygpu:test}"
BASE_TAG="localhost/whygpu-standin-base:trixie"
SUITE=trixie
mkdir -p "$OUT"
cd "$ROOT"

say() { printf '\033[1mimage:\033[0m %s\n' "$*"; }
die() { printf 'image: error: %s\n' "$*" >&2; exit 1; }
t0=$SECONDS
lap() { say "$1 ($((SECONDS - t0)) s so far)"; }

# 1. The tools, from Debian's packages.
if ! command -v buildah >/dev/null || ! command -v mmdebstrap >/dev/null; then
  say "installing buildah and mmdebstrap (apt-get)"
  sudo=(); [ "$(id -u)" = 0 ] || sudo=(sudo)
  command -v apt-get >/dev/null || die "buildah and mmdebstrap are missing and there is no apt-get: install them (docker/README.md)"
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq buildah mmdebstrap >/dev/null
fi
say "$(buildah --version)"
[ "$(id -u)" = 0 ] || die "buildah needs root here (rootless buildah needs subuid ranges); run as root or with sudo"

# 2. The stand-in base: a minimal Debian plus the docker-stacks pieces (standin/Dockerfile).
layers=(--layers)
if [ "${WHYGPU_IMAGE_FRESH:-0}" = 1 ]; then rm -f "$OUT/rootfs.tar"; layers=(--no-cache); fi
if [ ! -s "$OUT/rootfs.tar" ]; then
  say "making a minimal Debian $SUITE rootfs (mmdebstrap)"
  # --format=tar: mmdebstrap picks the format from the file name, and "rootfs.tar.part" made a directory
  mmdebstrap --quiet --variant=minbase --format=tar "$SUITE" "$OUT/rootfs.tar.part"
  mv "$OUT/rootfs.tar.part" "$OUT/rootfs.tar"
  lap "rootfs made"
fi
ctx="$OUT/standin-context"
rm -rf "$ctx" && mkdir -p "$ctx"
cp docker/tests/image/standin/* "$ctx/"
ln "$OUT/rootfs.tar" "$ctx/rootfs.tar" 2>/dev/null || cp "$OUT/rootfs.tar" "$ctx/rootfs.tar"
say "building the stand-in base $BASE_TAG"
buildah bud --isolation chroot --format docker "${layers[@]}" -t "$BASE_TAG" "$ctx" > "$OUT/standin.log" 2>&1 ||
  { tail -n 40 "$OUT/standin.log" >&2; die "the stand-in base did not build (log: $OUT/standin.log)"; }
lap "stand-in base built"

# 3. The course image, from docker/Dockerfile as it is, on the stand-in.
transport=()
if [ -s /etc/ssl/certs/ca-certificates.crt ]; then
  # the stand-in's own bundle is Debian's; this machine's may hold a proxy's CA as well
  transport+=(-v /etc/ssl/certs/ca-certificates.crt:/etc/ssl/certs/ca-certificates.crt:ro)
fi
mkdir -p "$OUT/pip-cache"
chown 1000:100 "$OUT/pip-cache"
printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\ncache-dir = /var/cache/whygpu-pip\n' > "$OUT/pip.conf"
transport+=(-v "$OUT/pip.conf:/etc/pip.conf:ro" -v "$OUT/pip-cache:/var/cache/whygpu-pip")
args=(--build-arg "BASE_IMAGE=$BASE_TAG")
[ "${WHYGPU_CUDA:-0}" = 1 ] && args+=(--build-arg WHYGPU_CUDA=1)
say "building $TAG from docker/Dockerfile (log: $OUT/build.log)"
stamp() { while IFS= read -r line; do printf '[%4d s] %s\n' "$((SECONDS - t0))" "$line"; done; }
if ! buildah bud --isolation chroot --format docker "${layers[@]}" \
    --ignorefile docker/Dockerfile.dockerignore -f docker/Dockerfile \
    "${args[@]}" "${transport[@]}" -t "$TAG" . 2>&1 | stamp > "$OUT/build.log"; then
  tail -n 60 "$OUT/build.log" >&2
  die "docker/Dockerfile did not build (whole log: $OUT/build.log)"
fi
lap "course image built"
say "built $TAG: $(buildah images --format '{{.Size}}' "$TAG" | head -1), in $((SECONDS - t0)) s ($(uptime | sed 's/.*load/load/'))"
