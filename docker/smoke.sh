#!/usr/bin/env bash
# docker/smoke.sh — check a course environment end to end, with no network: the doctor, the hub's
# single-user server, the learners' notebook copies and notebook 00 through the real course kernel.
#
# In the image (the teacher's one command, docker/README.md):
#   docker run --rm --network none whygpu:cpu /opt/whygpu/docker/smoke.sh
#   docker run --rm --network none --gpus all whygpu:cuda /opt/whygpu/docker/smoke.sh
# CI runs it on the simulated image (docker/tests/test_image_setup.py).
#
#   --all                 run every notebook, not only 00-setup-check
#   WHYGPU_SMOKE_FIRST_CELL_MAX   fail when the first cell takes longer (seconds, default 10)
set -euo pipefail
ROOT="${WHYGPU_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
VENV="${WHYGPU_VENV:-$ROOT/.venv}"
export WHYGPU_ROOT="$ROOT"
# the network-free settings of the image (already set there; set here for a checkout)
export GOPROXY=off GOMLX_NO_AUTO_INSTALL=1 GOTOOLCHAIN=local
export GOFLAGS="${GOFLAGS:--buildvcs=false}" CGO_CFLAGS="${CGO_CFLAGS:--O2 -g -Wno-deprecated-declarations}"
export PJRT_PLUGIN_LIBRARY_PATH="${PJRT_PLUGIN_LIBRARY_PATH:-$VENV/lib/pjrt}"
export JUPYTER_PATH="${JUPYTER_PATH:-$VENV/share/jupyter}"
export PATH="$VENV/bin:$PATH"
ALL=0; [ "${1:-}" = --all ] && ALL=1

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "doctor"
(cd "$ROOT" && go run ./cmd/whygpu doctor)

step "JupyterHub single-user server"
jupyterhub-singleuser --version
jupyter kernelspec list | grep -w whygpu

if [ "${WHYGPU_CUDA:-0}" = 1 ]; then
  step "CUDA plugin"
  test -e "$PJRT_PLUGIN_LIBRARY_PATH/pjrt_c_api_cuda_plugin.so"
  test -d "$VENV/lib/nvidia/cu13/lib"
  ls -l "$PJRT_PLUGIN_LIBRARY_PATH/"
fi

step "learners' copies of the notebooks"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$ROOT/docker/sync-notebooks.sh" "$ROOT/notebooks" "$work/work"

step "notebooks through the course kernel (GOPROXY=off)"
if [ "$ALL" = 1 ]; then
  nbs=("$work"/work/*.ipynb)
else
  nbs=("$work"/work/00-*.ipynb)
fi
cd "$work"
"$VENV/bin/python" "$ROOT/docker/run_notebooks.py" --out "$work/executed" \
  --max-first-cell "${WHYGPU_SMOKE_FIRST_CELL_MAX:-10}" "${nbs[@]}"
echo "smoke test passed"
