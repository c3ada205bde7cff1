#!/usr/bin/env bash
# docker/install-go.sh ZIP SHA256 DEST — install the official Go toolchain from its module zip.
#
# The image gets Go from the Go module proxy, as the module golang.org/toolchain@v0.0.1-go<V>.linux-amd64
# (the same official build `GOTOOLCHAIN=go<V>` downloads; its content is also recorded in the Go checksum
# database). The Dockerfile downloads the zip; this script checks its sha256 against the pin in
# docker/setup.env, unpacks it into DEST (e.g. /usr/local/go) and checks `go version`. CI runs this same
# script on the zip from the local module cache (docker/tests/test_install_go.py).
set -euo pipefail
[ $# = 3 ] || { echo "usage: $0 ZIP SHA256 DEST" >&2; exit 2; }
zip="$1" want="$2" dest="$3"

got="$(sha256sum "$zip" | cut -d' ' -f1)"
[ "$got" = "$want" ] || { echo "install-go: sha256 mismatch for $zip: got $got, want $want" >&2; exit 1; }

tmp="$(mktemp -d)"
# The go command run below as $tmp's home may leave a telemetry child writing under $tmp/.config for a
# moment after it exits ("Directory not empty"): retry the clean-up instead of failing the install.
trap 'for _ in 1 2 3 4 5; do rm -rf "$tmp" 2>/dev/null && break; sleep 1; done' EXIT
unzip -q "$zip" -d "$tmp"
src="$(echo "$tmp"/golang.org/toolchain@v0.0.1-go*)"
[ -x "$src/bin/go" ] || { echo "install-go: $zip holds no bin/go" >&2; exit 1; }
ver="${src##*toolchain@v0.0.1-}"   # go1.26.8.linux-amd64
ver="${ver%.*-*}"                  # go1.26.8

rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
mv "$src" "$dest"
# zips keep the execute bits (unzip restores them); make sure the tools are runnable by everyone
chmod -R a+rX "$dest"
# run in the scratch dir as home: the go command writes its telemetry settings under $HOME/.config, and
# the Dockerfile runs this as root with HOME=/home/jovyan (a root-owned ~/.config locked the learner out)
got_ver="$(HOME="$tmp" XDG_CONFIG_HOME="$tmp/.config" "$dest/bin/go" env GOVERSION)"
[ "$got_ver" = "$ver" ] || { echo "install-go: $dest/bin/go reports $got_ver, want $ver" >&2; exit 1; }
echo "install-go: $got_ver in $dest"
