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
#     smoke.txt, smoke.json          GoMLX on xla:cuda at small sizes first (a failure there skips
#                                    compare and record, so the lease is not spent on them)
#     torch.json, torch.txt          PyTorch on the same shapes (scripts/torch_compare.py)
#     jax.json, jax.txt              JAX on the same shapes (scripts/bench_jax.py --compare)
#     compare.json, compare.txt      GoMLX/xla:cuda vs PyTorch and JAX, with the issue's targets checked
#     reference/<gpu-slug>/...       every lesson's experiments at GPU scale (whygpu record)
#     parts.txt                      each part's wall time against its budget, and its exit status
# Copy $OUT/reference/<gpu-slug> into lessons/reference/ and commit it: lessons then show it.
#
# Time: the whole run is held to BUDGET_S (default 480 s, so one rerun fits in a 15-minute lease).
# Each part runs under `timeout` with its own budget (BUDGET_DOCTOR, BUDGET_SMOKE, BUDGET_TORCH, BUDGET_JAX,
# BUDGET_COMPARE); `whygpu record` gets what is left. A part cut at its budget is reported, not fatal
# to the others; rerun the missing experiments with ONLY=<lesson/name>.
# A missing PyTorch or JAX (not importable with $TORCH_PY / $JAX_PY) is a note; the comparison then
# has fewer columns.
#
# Dry run without a GPU (what CI does, tests/test_gpu_record.py): DEVICE=xla:cpu SCALE=laptop
# ONLY=<lesson/name> with PJRT_PLUGIN_LIBRARY_PATH pointing at the CPU plugin, and JAX_PY=<a python
# with jax[cpu]> (e.g. .venv/bench/bin/python) to exercise the JAX part; PyTorch is skipped and
# everything runs at tiny sizes.
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
export GOMLX_NO_AUTO_INSTALL=1 TF_CPP_MIN_LOG_LEVEL=2

[ -x "$BIN" ] || { echo "gpu-record: $BIN missing: run 'make whygpu-bin' on the build machine first" >&2; exit 2; }

BUDGET_S="${BUDGET_S:-480}"
START=$SECONDS
PARTS=()
# part NAME BUDGET_S LOG CMD...: runs CMD under timeout, output to the terminal and LOG, and books
# its wall time. Returns CMD's status (124: cut at its budget).
part() {
  local name="$1" budget="$2" log="$3"; shift 3
  step "$name (budget ${budget} s; $((SECONDS - START)) s into the run)"
  local t=$SECONDS
  timeout -k 10 "$budget" "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]} dt=$((SECONDS - t)) note=""
  [ "$rc" = 124 ] || [ "$rc" = 137 ] && note="  CUT at its budget"
  echo "-- $name: ${dt} s (budget ${budget} s), rc=$rc$note"
  PARTS+=("$(printf '%-34s %4d s  budget %4d s  rc=%s%s' "$name" "$dt" "$budget" "$rc" "$note")")
  return "$rc"
}
finish() {
  step "parts (total $((SECONDS - START)) s of a ${BUDGET_S} s budget)"
  printf '%s\n' "${PARTS[@]}" | tee "$OUT/parts.txt"
  echo "total $((SECONDS - START)) s (budget ${BUDGET_S} s)" >> "$OUT/parts.txt"
  step "done (rc=$1): results in $OUT"
  exit "$1"
}
# importable PY MODULE: whether PY exists and imports MODULE (a missing peer is a note, not a crash).
importable() { [ -n "$1" ] && [ -x "$1" ] && "$1" -c "import $2" >/dev/null 2>&1; }

rc=0
if [ "$DEVICE" != xla:cuda ]; then
  step "dry run on $DEVICE (no PyTorch, tiny sizes)"
  JAX_PY="${JAX_PY:-}"
  SMALL=(-n 256 -ln-rows 256 -ln-cols 256 -copy-bytes 4194304 -check-n 128)
  JSMALL=(--n 256 --ln-rows 256 --ln-cols 256 --copy-bytes 4194304 --check-n 128 --reps 10 --sample-s 0.002)
  part "whygpu doctor" "${BUDGET_DOCTOR:-60}" "$OUT/doctor.txt" "$BIN" doctor || true
  PEERS=()
  if importable "$JAX_PY" jax; then
    part "JAX on the same shapes" "${BUDGET_JAX:-90}" "$OUT/jax.txt" \
      env JAX_PLATFORMS=cpu "$JAX_PY" "$ROOT/scripts/bench_jax.py" --compare "$OUT/jax.json" "${JSMALL[@]}" || rc=1
    [ -s "$OUT/jax.json" ] && PEERS+=(-jax "$OUT/jax.json")
  else
    echo "note: JAX skipped: not importable with JAX_PY='${JAX_PY}' (set JAX_PY to a python with jax)" | tee "$OUT/jax.txt"
    PARTS+=("JAX on the same shapes: skipped (not importable with JAX_PY='${JAX_PY}')")
  fi
  # Targets are measured, not asserted here: on a CPU some miss, which is no failure of the dry run.
  part "GoMLX vs peers (compare)" "${BUDGET_COMPARE:-150}" "$OUT/compare.txt" \
    "$BIN" compare -device "$DEVICE" "${SMALL[@]}" "${PEERS[@]}" -out "$OUT/compare.json"
  c=$?; [ "$c" = 0 ] || grep -q "target(s) missed" "$OUT/compare.txt" || rc=1
  left=$(( BUDGET_S - (SECONDS - START) - 10 )); [ "$left" -ge 60 ] || left=60
  part "whygpu record" "$left" "$OUT/record.txt" \
    "$BIN" record -device "$DEVICE" -scale "$SCALE" ${ONLY:+-only "$ONLY"} -out "$OUT/reference" || rc=1
  finish $rc
fi
[ -x "$PY" ] || { echo "gpu-record: no Python at $PY (set TORCH_VENV)" >&2; exit 2; }
TORCH_PY="${TORCH_PY:-$PY}"
JAX_PY="${JAX_PY:-$PY}"

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
ORIG_LD="${LD_LIBRARY_PATH:-}"
export PJRT_PLUGIN_LIBRARY_PATH="$STAGE/lib/pjrt" GOMLX_NO_AUTO_INSTALL=1 TF_CPP_MIN_LOG_LEVEL=2
export LD_LIBRARY_PATH="${LIBS}${ORIG_LD}"

step "environment"
{
  date -u +%Y-%m-%dT%H:%M:%SZ; uname -a; echo "plugin: $PLUGIN"
  for pkg in jax jaxlib jax-cuda13-pjrt jax-cuda13-plugin torch; do
    "$PY" -c "import importlib.metadata as m, sys; print(sys.argv[1], m.version(sys.argv[1]))" "$pkg" 2>/dev/null || echo "$pkg: not installed"
  done
} | tee "$OUT/env.txt"
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1; head -15 "$OUT/nvidia-smi.txt"

part "whygpu doctor" "${BUDGET_DOCTOR:-60}" "$OUT/doctor.txt" "$BIN" doctor || true

# Smoke first: GoMLX on xla:cuda at small sizes, matmuls checked against float64. If the plugin does
# not open or run, the full comparison and the recording are skipped (the peers still run) so the
# lease is not spent on them; smoke.txt has the whole error.
GOMLX_OK=1
part "smoke: GoMLX on xla:cuda, small" "${BUDGET_SMOKE:-90}" "$OUT/smoke.txt" \
  "$BIN" compare -device xla:cuda -n 1024 -ln-rows 1024 -ln-cols 1024 -copy-bytes 16777216 -check-n 512 \
  -batches 1 -out "$OUT/smoke.json"
if [ $? != 0 ] && ! grep -q "target(s) missed" "$OUT/smoke.txt"; then
  GOMLX_OK=0; rc=1
  echo "gpu-record: GoMLX on xla:cuda failed its smoke test (see $OUT/smoke.txt): compare and record skipped" >&2
fi

# The Python peers run one after the other, each in its own process (so neither holds GPU memory
# while another measures), with the library path Python's wheels expect.
PEERS=()
if importable "$TORCH_PY" torch; then
  part "PyTorch on the same shapes" "${BUDGET_TORCH:-90}" "$OUT/torch.txt" \
    env LD_LIBRARY_PATH="$ORIG_LD" "$TORCH_PY" "$ROOT/scripts/torch_compare.py" --out "$OUT/torch.json" || rc=1
  [ -s "$OUT/torch.json" ] && PEERS+=(-torch "$OUT/torch.json")
else
  echo "note: PyTorch skipped: not importable with TORCH_PY='$TORCH_PY'" | tee "$OUT/torch.txt"
  PARTS+=("PyTorch on the same shapes: skipped (not importable with TORCH_PY='$TORCH_PY')")
fi
if importable "$JAX_PY" jax; then
  part "JAX on the same shapes" "${BUDGET_JAX:-90}" "$OUT/jax.txt" \
    env LD_LIBRARY_PATH="$ORIG_LD" JAX_PLATFORMS=cuda XLA_PYTHON_CLIENT_PREALLOCATE=false \
    "$JAX_PY" "$ROOT/scripts/bench_jax.py" --compare "$OUT/jax.json" || rc=1
  [ -s "$OUT/jax.json" ] && PEERS+=(-jax "$OUT/jax.json")
else
  echo "note: JAX skipped: not importable with JAX_PY='$JAX_PY'" | tee "$OUT/jax.txt"
  PARTS+=("JAX on the same shapes: skipped (not importable with JAX_PY='$JAX_PY')")
fi

[ "$GOMLX_OK" = 1 ] || finish $rc
part "GoMLX on xla:cuda vs PyTorch and JAX" "${BUDGET_COMPARE:-150}" "$OUT/compare.txt" \
  "$BIN" compare -device xla:cuda "${PEERS[@]}" -out "$OUT/compare.json" || rc=1

left=$(( BUDGET_S - (SECONDS - START) - 10 )); [ "$left" -ge 60 ] || left=60
part "every lesson's experiments at GPU scale" "$left" "$OUT/record.txt" \
  "$BIN" record -device xla:cuda -scale "$SCALE" ${ONLY:+-only "$ONLY"} -out "$OUT/reference" || rc=1

finish $rc
