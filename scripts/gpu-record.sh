#!/usr/bin/env bash
# scripts/gpu-record.sh — record the course's GPU reference results on a lent NVIDIA machine.
#
# That machine has no Go and no network. Build the binary here first (cgo, x86-64):
#     make whygpu-bin          # → build/whygpu (stripped, -trimpath)
# then run, on the GPU machine, from the checkout (the device tool copies the working tree and
# carries build/whygpu):
#     OUT=/some/dir scripts/gpu-record.sh
#
# It finds the CUDA PJRT plugin of an existing Python environment that has jax-cuda13-pjrt and the
# NVIDIA cu13 wheels (default /opt/torch/.venv, override with TORCH_VENV), stages it under the
# names go-xla looks for, and writes to $OUT:
#     env.txt, nvidia-smi.txt        what ran where
#     doctor.txt                     whygpu doctor on that machine
#     torch.json                     PyTorch on the same shapes (scripts/torch_compare.py)
#     compare.json, compare.txt      GoMLX/xla:cuda vs PyTorch, with the issue's targets checked
#     reference/<gpu-slug>/...       every lesson's experiments at GPU scale (whygpu record)
# Copy $OUT/reference/<gpu-slug> into lessons/reference/ and commit it: lessons then show it.
#
# Dry run without a GPU (what CI does, tests/test_gpu_record.py): DEVICE=xla:cpu SCALE=laptop
# ONLY=<lesson/name> with PJRT_PLUGIN_LIBRARY_PATH pointing at the CPU plugin; PyTorch is skipped and
# the comparison runs at small sizes.
set -uo pipefail
DEVICE="${DEVICE:-xla:cuda}"
SCALE="${SCALE:-gpu}"
ONLY="${ONLY:-}"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${WHYGPU_BIN:-$ROOT/build/whygpu}"
TORCH_VENV="${TORCH_VENV:-/opt/torch/.venv}"
PY="$TORCH_VENV/bin/python"
OUT="${OUT:-$ROOT/build/gpu-out}"
mkdir -p "$OUT"
step() { printf '\n== %s\n' "$*"; }

[ -x "$BIN" ] || { echo "gpu-record: $BIN missing: run 'make whygpu-bin' on the build machine first" >&2; exit 2; }
if [ "$DEVICE" != xla:cuda ]; then
  step "dry run on $DEVICE (no PyTorch, small comparison)"
  rc=0
  "$BIN" doctor > "$OUT/doctor.txt" 2>&1 || true
  "$BIN" compare -device "$DEVICE" -n 256 -ln-rows 256 -ln-cols 256 -copy-bytes 4194304 -check-n 128 \
    -out "$OUT/compare.json" > "$OUT/compare.txt" 2>&1 || grep -q "target(s) missed" "$OUT/compare.txt" || rc=1
  "$BIN" record -device "$DEVICE" -scale "$SCALE" ${ONLY:+-only "$ONLY"} -out "$OUT/reference" 2>&1 | tee "$OUT/record.txt"
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
  exit $rc
fi
[ -x "$PY" ] || { echo "gpu-record: no Python at $PY (set TORCH_VENV)" >&2; exit 2; }

SITE="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
PLUGIN="$(ls "$SITE"/jax_plugins/xla_cuda13/xla_cuda_plugin.so 2>/dev/null | head -1)"
[ -n "$PLUGIN" ] || PLUGIN="$(find "$SITE/jax_plugins" -name '*cuda*plugin*.so' 2>/dev/null | head -1)"
[ -n "$PLUGIN" ] || { echo "gpu-record: no CUDA PJRT plugin under $SITE/jax_plugins (pip install jax-cuda13-pjrt)" >&2; exit 2; }

# Stage the plugin as scripts/setup.sh --cuda does: lib/pjrt/pjrt_c_api_cuda_plugin.so and lib/nvidia,
# a directory of links to the NVIDIA wheels (the plugin's RPATH is $ORIGIN/../nvidia/<wheel>/lib, and
# go-xla's pjrt/cuda_linux.go hands <dir of the plugin's dir>/nvidia to XLA as its CUDA data dir, where
# it looks for bin/ptxas and nvvm/libdevice).
STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/lib/pjrt" "$STAGE/lib/nvidia"
ln -s "$PLUGIN" "$STAGE/lib/pjrt/pjrt_c_api_cuda_plugin.so"
for d in "$SITE"/nvidia/*/; do
  d="${d%/}"; [ "$(basename "$d")" = __pycache__ ] || ln -s "$d" "$STAGE/lib/nvidia/$(basename "$d")"
done
for sub in bin nvvm; do
  for cand in "$SITE/nvidia/cu13/$sub" "$SITE/nvidia/cuda_nvcc/$sub"; do
    [ -e "$cand" ] && [ ! -e "$STAGE/lib/nvidia/$sub" ] && ln -s "$cand" "$STAGE/lib/nvidia/$sub"
  done
done
LIBS="$(find -L "$SITE/nvidia" -maxdepth 2 -type d -name lib 2>/dev/null | tr '\n' ':')"
export PJRT_PLUGIN_LIBRARY_PATH="$STAGE/lib/pjrt" GOMLX_NO_AUTO_INSTALL=1 TF_CPP_MIN_LOG_LEVEL=2
export LD_LIBRARY_PATH="${LIBS}${LD_LIBRARY_PATH:-}"

step "environment"
{
  date -u +%Y-%m-%dT%H:%M:%SZ; uname -a; echo "plugin: $PLUGIN"
  for pkg in jax-cuda13-pjrt torch; do
    "$PY" -c "import importlib.metadata as m, sys; print(sys.argv[1], m.version(sys.argv[1]))" "$pkg" 2>/dev/null || echo "$pkg: not installed"
  done
} | tee "$OUT/env.txt"
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1; head -15 "$OUT/nvidia-smi.txt"

step "whygpu doctor"
"$BIN" doctor 2>&1 | tee "$OUT/doctor.txt"

rc=0
step "PyTorch on the same shapes"
"$PY" "$ROOT/scripts/torch_compare.py" --out "$OUT/torch.json" || rc=1

step "GoMLX on xla:cuda vs PyTorch"
"$BIN" compare -device xla:cuda -torch "$OUT/torch.json" -out "$OUT/compare.json" 2>&1 | tee "$OUT/compare.txt"
[ "${PIPESTATUS[0]}" = 0 ] || rc=1

step "every lesson's experiments at GPU scale"
"$BIN" record -device xla:cuda -scale "$SCALE" ${ONLY:+-only "$ONLY"} -out "$OUT/reference" 2>&1 | tee "$OUT/record.txt"
[ "${PIPESTATUS[0]}" = 0 ] || rc=1

step "done (rc=$rc): results in $OUT"
exit $rc
