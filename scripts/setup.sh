#!/usr/bin/env bash
# scripts/setup.sh — the one set-up of the course environment.
#
# The README's commands (make lab, make test), CI and the Docker images all run this script.
# It is idempotent: when nothing changed it is a fast no-op, and it repairs a moved checkout.
#
# What it builds, all inside the checkout (nothing in the user's global dirs):
#   .venv/                          Python venv: JupyterLab, nbclient, pytest, ... (requirements.txt)
#   .venv/bin/{gonb,goimports,gopls} the Go tools pinned by the `tool` lines of go.mod
#                                   (gonb with kernels/gonb/*.patch, built from a copy in .venv/src)
#   .venv/src/go-xla, go.work       go-xla without its plugin installer (kernels/go-xla/), used by
#                                   every go command in the checkout and by the notebook cells
#   .venv/share/jupyter/lab/settings/overrides.json  JupyterLab settings (kernels/jupyterlab/)
#   .venv/lib/pjrt/                 PJRT plugins under the names go-xla looks for
#                                   (pjrt_c_api_cpu_plugin.so, pjrt_c_api_cuda_plugin.so)
#   .venv/share/jupyter/kernels/whygpu/  the course kernel, rendered from kernels/whygpu/
#
# Options (each also as an environment variable, which is how the Dockerfile passes them):
#   --cuda       WHYGPU_CUDA=1      also install the CUDA PJRT plugin and NVIDIA libraries (requirements-cuda.txt)
#   --browser    WHYGPU_BROWSER=1   also install Debian's chromium for the browser test (apt-get)
#   --no-warm    WHYGPU_NO_WARM=1   skip warming the Go build cache for the course packages
#   --check                         only report whether the set-up is current (exit 1 if not)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${WHYGPU_VENV:-$ROOT/.venv}"
CUDA="${WHYGPU_CUDA:-0}"
BROWSER="${WHYGPU_BROWSER:-0}"
WARM=1; [ "${WHYGPU_NO_WARM:-0}" = 1 ] && WARM=0
CHECK_ONLY=0
for arg in "$@"; do
  case "$arg" in
    --cuda) CUDA=1 ;;
    --browser) BROWSER=1 ;;
    --no-warm) WARM=0 ;;
    --check) CHECK_ONLY=1 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option $arg (see --help)" >&2; exit 2 ;;
  esac
done

say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

cd "$ROOT"
export GOTOOLCHAIN=local GOFLAGS="${GOFLAGS:--buildvcs=false}"
# The checkout's go.work (written in step 3b) may point at a .venv that is gone: the script's own go
# commands ignore it, except the warm-up (step 5), which builds what the cells build; the kernel it
# starts there must not inherit this (GoNB gives every cell its own go.work).
export GOWORK=off
# CGO_CFLAGS: the same flags as the kernel and
# Makefile, so the warmed build cache is the one cells use.
export CGO_CFLAGS="${CGO_CFLAGS:--O2 -g -Wno-deprecated-declarations}"
command -v go >/dev/null || die "Go is not on PATH. Install Go 1.26 (https://go.dev/dl) and re-run."
PY="${WHYGPU_PYTHON:-python3}"
command -v "$PY" >/dev/null || die "python3 is not on PATH. Install Python 3.11+ and re-run."

# The stamp records everything the environment was built from; a mismatch means "rebuild".
fingerprint() {
  {
    echo "root=$ROOT venv=$VENV cuda=$CUDA"
    go version
    "$PY" --version 2>&1
    cat requirements.txt go.mod go.sum kernels/whygpu/kernel.json.tmpl kernels/launcher/*.go kernels/gonb/*.patch kernels/go-xla/*.patch kernels/jupyterlab/overrides.json scripts/setup.sh
    if [ "$CUDA" = 1 ]; then cat requirements-cuda.txt; fi
  } | sha256sum | cut -d' ' -f1
}
STAMP="$VENV/.whygpu-setup"
WANT="$(fingerprint)"
tools_ok() { [ -x "$VENV/bin/whygpu-kernel" ] && [ -x "$VENV/bin/gonb" ] && [ -x "$VENV/bin/gopls" ] && [ -x "$VENV/bin/goimports" ] && [ -x "$VENV/bin/jupyter" ]; }
browser_ok() { [ "$BROWSER" != 1 ] || command -v chromium >/dev/null; }

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] && tools_ok && browser_ok; then
  [ "$CHECK_ONLY" = 1 ] && { say "set-up is current ($VENV)"; exit 0; }
  say "set-up is current (.venv); nothing to do"
  exit 0
fi
[ "$CHECK_ONLY" = 1 ] && { say "set-up is missing or out of date: run scripts/setup.sh"; exit 1; }

# 1. Python venv. A venv hard-codes its own path, so a moved checkout gets a fresh one.
if [ -d "$VENV" ] && ! grep -qs "root=$ROOT " "$VENV/.whygpu-root" 2>/dev/null; then
  say "the checkout moved (or .venv is foreign): rebuilding .venv"
  rm -rf "$VENV"
fi
if [ ! -x "$VENV/bin/python" ]; then
  say "creating $VENV with $("$PY" --version 2>&1)"
  "$PY" -m venv "$VENV"
fi
echo "root=$ROOT " > "$VENV/.whygpu-root"
say "installing Python packages (requirements.txt)"
# requirements.txt is the complete frozen set, so --no-deps installs exactly it (the CPU plugin's
# wheel declares a jax dependency the plugin library does not need; see requirements.in).
"$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps -r requirements.txt
if [ "$CUDA" = 1 ]; then
  say "installing the CUDA PJRT plugin and NVIDIA libraries (requirements-cuda.txt)"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -r requirements-cuda.txt
fi

# 2. PJRT plugins, linked under the file names go-xla searches for in PJRT_PLUGIN_LIBRARY_PATH.
SITE="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
PJRT="$VENV/lib/pjrt"
mkdir -p "$PJRT"
cpu_so="$SITE/lammps_jax_pjrt_cpu/pjrt_c_api_cpu_plugin.so"
[ -f "$cpu_so" ] || die "the CPU PJRT plugin is missing at $cpu_so (pip install lammps-jax-pjrt-cpu failed?)"
ln -sfn "$cpu_so" "$PJRT/pjrt_c_api_cpu_plugin.so"
if [ "$CUDA" = 1 ]; then
  # The wheel jax-cuda13-pjrt ships the plugin as jax_plugins/xla_cuda13/xla_cuda_plugin.so.
  cuda_so="$SITE/jax_plugins/xla_cuda13/xla_cuda_plugin.so"
  [ -f "$cuda_so" ] || die "the CUDA PJRT plugin is missing at $cuda_so (pip install -r requirements-cuda.txt failed?)"
  [ -d "$SITE/nvidia/cu13/lib" ] || die "NVIDIA's CUDA 13 libraries are missing under $SITE/nvidia (pip install -r requirements-cuda.txt failed?)"
  ln -sfn "$cuda_so" "$PJRT/pjrt_c_api_cuda_plugin.so"
  # NVIDIA's libraries must sit in lib/nvidia, next to lib/pjrt: the plugin's RPATH is
  # $ORIGIN/../nvidia/{cu13,cudnn,nccl}/lib ($ORIGIN is lib/pjrt, the symlink's directory), and go-xla
  # v0.4.1 (pjrt/cuda_linux.go) passes path.Dir(path.Dir(plugin))/nvidia to XLA as
  # --xla_gpu_cuda_data_dir, where XLA looks for bin/ptxas and nvvm/libdevice. So lib/nvidia is a
  # directory of links: one per wheel directory of site-packages/nvidia, plus bin and nvvm from cu13.
  NV="$VENV/lib/nvidia"
  rm -rf "$NV"   # an older set-up made it a single symlink; either way it holds only links
  mkdir -p "$NV"
  for d in "$SITE"/nvidia/*/; do
    d="${d%/}"
    case "$(basename "$d")" in __pycache__) continue ;; esac
    ln -sfn "$d" "$NV/$(basename "$d")"
  done
  ln -sfn "$SITE/nvidia/cu13/bin" "$NV/bin"
  ln -sfn "$SITE/nvidia/cu13/nvvm" "$NV/nvvm"
else
  rm -f "$PJRT/pjrt_c_api_cuda_plugin.so"
fi

# 3. Go tools pinned in go.mod (tool directives): gonb (the kernel), goimports and gopls (autocomplete).
say "building the Go tools pinned in go.mod (gonb with the course's patch, goimports, gopls)"
GOBIN="$VENV/bin" go install golang.org/x/tools/cmd/goimports golang.org/x/tools/gopls
# GoNB is built from the pinned module with kernels/gonb/*.patch applied (see kernels/README.md): its
# v0.11.4 waits 12 s before its first connection to gopls, so autocomplete answered nothing for the
# first 12-25 s of a kernel. `go build -overlay` cannot do this (the go command refuses to overlay files
# beneath GOMODCACHE), so the module's sources (without its docs/ and examples/) are copied to
# .venv/src/gonb, patched there, and built through a copy of go.mod that replaces the module with that
# directory: same pinned version and dependencies, offline once the module is downloaded.
go mod download github.com/janpfeifer/gonb
GONB_MOD="$(go list -m -f '{{.Dir}}' github.com/janpfeifer/gonb)"
GONB_VER="$(go list -m -f '{{.Version}}' github.com/janpfeifer/gonb)"
[ -d "$GONB_MOD" ] || die "GoNB's module is not in the module cache (go mod download github.com/janpfeifer/gonb failed?)"
GONB_SRC="$VENV/src/gonb"
[ -d "$GONB_SRC" ] && chmod -R u+w "$GONB_SRC"
rm -rf "$GONB_SRC" "$VENV/src/gonb-build"
mkdir -p "$GONB_SRC" "$VENV/src/gonb-build"
for e in "$GONB_MOD"/* "$GONB_MOD"/.[!.]*; do
  [ -e "$e" ] || continue
  case "$(basename "$e")" in docs|examples) ;; *) cp -r "$e" "$GONB_SRC/" ;; esac
done
chmod -R u+w "$GONB_SRC"
command -v patch >/dev/null || die "the patch tool is missing (GoNB is built with kernels/gonb/*.patch): install it (apt-get install patch) and re-run."
for p in kernels/gonb/*.patch; do
  patch -s -p1 -d "$GONB_SRC" --no-backup-if-mismatch < "$p" ||
    die "$p does not apply to GoNB $GONB_VER (was go.mod's GoNB pin changed? update the patch with it)"
done
cp go.mod "$VENV/src/gonb-build/go.mod"
cp go.sum "$VENV/src/gonb-build/go.sum"
echo "replace github.com/janpfeifer/gonb $GONB_VER => $GONB_SRC" >> "$VENV/src/gonb-build/go.mod"
GOWORK=off go build -modfile="$VENV/src/gonb-build/go.mod" -o "$VENV/bin/gonb" github.com/janpfeifer/gonb
# The copy is only needed to build: GoNB walks the whole checkout (its --go_work) for Go files and tells
# gopls about every one before the first completion, so a second GoNB tree in .venv would slow that down.
chmod -R u+w "$GONB_SRC"
rm -rf "$VENV/src/gonb" "$VENV/src/gonb-build"
rmdir "$VENV/src" 2>/dev/null || true
# ... and the kernel's launcher (kernels/launcher): nothing GoNB starts (gopls, cells) outlives the kernel.
go build -o "$VENV/bin/whygpu-kernel" ./kernels/launcher

# JupyterLab drops a completion provider's answer that takes longer than 1 s (providerTimeout), and the
# kernel's first answer after a cell can take longer on a busy laptop (gopls re-reads the changed files):
# the venv's JupyterLab gets a 15 s timeout, so a Tab waits for GoNB's answer instead of showing nothing.
mkdir -p "$VENV/share/jupyter/lab/settings"
cp kernels/jupyterlab/overrides.json "$VENV/share/jupyter/lab/settings/overrides.json"

# 3b. go-xla without its plugin auto-installer (kernels/go-xla/no-installer.patch): the installer package
# (net/http, crypto/tls, archive readers) is in every notebook cell's program though the course never
# runs it (GOMLX_NO_AUTO_INSTALL=1; this script installs the plugins), and with go-nvml it was a third of
# an edited cell's link (docs/performance.md). The pinned module is copied to .venv/src/go-xla and
# patched there; a go.work in the checkout (written here, not committed) replaces the module with it for
# every go command in the checkout, and the kernel adds the same replace to each cell's go.work
# (GONB_GOWORK_REPLACE, kernels/gonb/gowork-replace.patch): tests, the warmed cache and cells build one tree.
GOXLA_VER="$(GOWORK=off go list -m -f '{{.Version}}' github.com/gomlx/go-xla)"
GOXLA_MOD="$(GOWORK=off go mod download -json "github.com/gomlx/go-xla@$GOXLA_VER" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[ -d "$GOXLA_MOD" ] || die "go-xla $GOXLA_VER is not in the module cache (go mod download github.com/gomlx/go-xla@$GOXLA_VER failed?)"
GOXLA_DIR="$VENV/src/go-xla"
goxla_stamp="$GOXLA_VER $(sha256sum kernels/go-xla/no-installer.patch | cut -d' ' -f1)"
if [ "$(cat "$GOXLA_DIR/.whygpu-patched" 2>/dev/null)" != "$goxla_stamp" ]; then
  say "go-xla $GOXLA_VER without its plugin installer (kernels/go-xla/no-installer.patch)"
  rm -rf "$GOXLA_DIR"
  mkdir -p "$VENV/src"
  cp -r "$GOXLA_MOD" "$GOXLA_DIR"
  chmod -R u+w "$GOXLA_DIR"
  patch -s -p1 -d "$GOXLA_DIR" < kernels/go-xla/no-installer.patch ||
    die "kernels/go-xla/no-installer.patch does not fit go-xla $GOXLA_VER (go.mod moved it?): update the patch (kernels/README.md)"
  echo "$goxla_stamp" > "$GOXLA_DIR/.whygpu-patched"
fi
cat > "$ROOT/go.work" <<EOF
// Written by scripts/setup.sh (not committed): go-xla without its plugin installer, for every go
// command in this checkout, as in the notebook cells. Remove it (or GOWORK=off) to build against the
// module cache's go-xla.
go $(sed -n 's/^go //p' go.mod)

use .

replace github.com/gomlx/go-xla $GOXLA_VER => $GOXLA_DIR
EOF

# 4. The course kernel, installed into the venv's Jupyter data dir (never the user's).
KDIR="$VENV/share/jupyter/kernels/whygpu"
mkdir -p "$KDIR"
GOBIN_DIR="$(dirname "$(command -v go)")"
sed -e "s|@ROOT@|$ROOT|g" -e "s|@VENV@|$VENV|g" -e "s|@GOBIN@|$GOBIN_DIR|g" -e "s|@GOXLA@|github.com/gomlx/go-xla@$GOXLA_VER=$GOXLA_DIR|g" \
  kernels/whygpu/kernel.json.tmpl > "$KDIR/kernel.json"
cp kernels/whygpu/logo-svg.svg "$KDIR/logo-svg.svg"
# A kernel of the same name in the user's dir would shadow ours: say so rather than touch it.
for d in "$HOME/.local/share/jupyter/kernels/whygpu"; do
  [ -e "$d" ] && say "note: $d exists and may shadow the course kernel; remove it if notebooks pick the wrong one"
done

# 5. Warm the module and build caches so the first notebook cell compiles in seconds (and offline).
if [ "$WARM" = 1 ]; then
  say "warming the Go build cache for pkg/ and lessons/"
  # Every module go.mod requires, not only those `go build` needs: GoNB builds each cell in a workspace
  # (go.work) with this checkout, where the go command wants the go.mod of every required module, and the
  # kernel runs with GOPROXY=off (found by the image test, then a simulation of the image set-up, on fresh caches).
  GOWORK="$ROOT/go.work" go mod download
  GOWORK="$ROOT/go.work" go build ./... >/dev/null
  # gopls (autocomplete in the notebooks) keeps what it learned of every package in its file cache
  # ($GOPLSCACHE or ~/.cache/gopls), keyed by the files' paths and contents and by gopls' own binary. The
  # warm-up asks for one completion the way a learner's Tab does: the course kernel, a first cell that
  # imports pkg/view/display, then `display.Ma` in a later cell (kernels/autocomplete_probe.py). That fills the
  # cache with exactly what the first lesson's kernel will read, and checks that autocomplete answers.
  say "warming gopls' cache: one Tab through the course kernel (kernels/autocomplete_probe.py)"
  if ! env -u GOWORK JUPYTER_PATH="$VENV/share/jupyter" GOPROXY=off timeout 900 \
      "$VENV/bin/python" kernels/autocomplete_probe.py --warm --deadline 600 2>&1 | sed 's/^/  /'; then
    say "note: autocomplete did not answer in the warm-up (above): notebooks run, but Tab and Shift-Tab may stay silent; see kernels/README.md, and measure with: go run ./cmd/whygpu doctor -autocomplete"
  fi
fi

# 6. Optional: Debian's Chromium for the real-browser test.
if [ "$BROWSER" = 1 ] && ! command -v chromium >/dev/null; then
  say "installing Debian's chromium (browser test)"
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  fi
fi

echo "$WANT" > "$STAMP"
say "done: kernel 'whygpu' in $KDIR"
