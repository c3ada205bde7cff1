#!/usr/bin/env bash
# scripts/gpu-record.sh — record the course's GPU reference results on a lent NVIDIA machine, in
# calls that fit one 15-minute lease, and bring them back as ONE archive.
#
#     bash scripts/gpu-record.sh [GROUP=1|2|3] [ONLY=lesson/name,...] [BUDGET_S=seconds] [OUT=dir]
#
# Build here first (the GPU machine has no Go and no network): `make whygpu-bin` → build/whygpu and
# build/whygpu.version, both carried. The exact calls, their carried paths and time limits, and the
# import step are in README.md ("Recording on a GPU") and lessons/AUTHORING.md.
#
# What it writes: $OUT/recording.tar.gz (everything, under recording/) and $OUT/summary.txt (a few
# lines: what ran, what was cut, what to run next): two files, because the machine returns at most
# 8 files, two folders down. The archive is rewritten after every part and every 20 s of a long
# part, and once more on exit (also on SIGTERM/SIGINT), so a call cut at its limit still brings back
# what finished. `whygpu record -import recording.tar.gz` (here) puts it into lessons/reference/<gpu>/.
#
# Order (priority, not lesson order): pre-flight (≤ 30 s: GPU, driver and CUDA version, ldd of the
# binary, the CUDA PJRT plugin and its PJRT API version, ptxas and libdevice, the nvidia-* wheels; a
# failure stops the call with the reason in summary.txt) → GROUP=1: a smoke test of GoMLX on
# xla:cuda → `whygpu record -group 1` (the reduced race grid, the roofline ceilings and points, the
# GPT step, the ridge-batch sweep) → PyTorch and JAX on the same shapes → `whygpu compare`.
# GROUP=2 and 3 record the rest (`whygpu record -plan` prints every experiment's compile count and
# estimated time). ONLY=ids records just those (with GROUP= also set: within that group's call).
# Every part runs under its own `timeout`, sized from what is left of BUDGET_S; `whygpu record
# -budget` starts no experiment whose estimate no longer fits, and lists it for a later ONLY= call.
#
# Dry run without a GPU (tests/test_gpu_record.py): DEVICE=xla:cpu SCALE=laptop, with
# PJRT_PLUGIN_LIBRARY_PATH at the CPU plugin and, to exercise the JAX part, JAX_PY=<python with jax>.
set -uo pipefail

for arg in "$@"; do
  case "$arg" in
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    [A-Z]*=*) export "${arg?}" ;;
    *) echo "gpu-record: unexpected argument '$arg' (arguments are NAME=value: GROUP=1, ONLY=..., BUDGET_S=..., OUT=...)" >&2; exit 2 ;;
  esac
done

DEVICE="${DEVICE:-xla:cuda}"
SCALE="${SCALE:-gpu}"
ONLY="${ONLY:-}"
if [ -z "${GROUP:-}" ]; then GROUP=1; [ -n "$ONLY" ] && GROUP=only; fi
case "$GROUP" in
  1) BUDGET_S="${BUDGET_S:-450}" ;;
  2) BUDGET_S="${BUDGET_S:-270}" ;;
  3) BUDGET_S="${BUDGET_S:-450}" ;;
  only) BUDGET_S="${BUDGET_S:-300}" ;;
  *) echo "gpu-record: GROUP must be 1, 2 or 3, not '$GROUP'" >&2; exit 2 ;;
esac
BUDGET_TORCH="${BUDGET_TORCH:-60}" BUDGET_JAX="${BUDGET_JAX:-60}" BUDGET_COMPARE="${BUDGET_COMPARE:-90}"
BUDGET_SMOKE="${BUDGET_SMOKE:-60}"
RESERVE_S=12 # kept back at the end for the last packing

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${WHYGPU_BIN:-$ROOT/build/whygpu}"
TORCH_VENV="${TORCH_VENV:-/opt/torch/.venv}"
PY="$TORCH_VENV/bin/python"
OUT="${OUT:-$ROOT/build/gpu-out}"
mkdir -p "$OUT" && rm -f "$OUT/recording.tar.gz" "$OUT/recording.tar.gz.tmp" "$OUT/summary.txt"
WORKROOT="$(mktemp -d)"
W="$WORKROOT/recording"
mkdir -p "$W"
export GOMLX_NO_AUTO_INSTALL=1 TF_CPP_MIN_LOG_LEVEL=2
START=$SECONDS
PARTS=()
PART_PID=""
STATUS="running"
NEXT=""
left() { echo $(( BUDGET_S - (SECONDS - START) - RESERVE_S )); }
step() { printf '\n== %s\n' "$*"; }

# summary: the short summary.txt (also inside the archive).
summary() {
  {
    echo "gpu-record: group $GROUP on $DEVICE, scale $SCALE${ONLY:+, ONLY=$ONLY}: $STATUS"
    echo "started $(date -u -d "@$RUN_EPOCH" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null || echo "$RUN_EPOCH"), $((SECONDS - START)) s of a ${BUDGET_S} s budget"
    [ -s "$W/gpu.txt" ] && echo "gpu: $(head -1 "$W/gpu.txt")"
    printf '%s\n' "${PARTS[@]}"
    if [ -s "$W/record.txt" ]; then
      echo "record: $(grep -c '^  ok ' "$W/record.txt") ok, $(grep -c '^  FAIL ' "$W/record.txt") failed, $(grep -c '^  skip ' "$W/record.txt") skipped, $(grep -c '^  NOT RUN ' "$W/record.txt") not run"
      grep '^  FAIL \|^  NOT RUN ' "$W/record.txt" | cut -c1-200
    fi
    [ -n "$NEXT" ] && echo "next: bash scripts/gpu-record.sh $NEXT"
    echo "import here: go run ./cmd/whygpu record -import <files_at>/recording.tar.gz"
  } > "$W/summary.txt"
}
# pack: summary.txt, then the archive, replaced atomically.
pack() {
  summary
  cp "$W/summary.txt" "$OUT/summary.txt"
  tar -czf "$OUT/recording.tar.gz.tmp" -C "$WORKROOT" recording 2>/dev/null &&
    mv -f "$OUT/recording.tar.gz.tmp" "$OUT/recording.tar.gz"
}
on_exit() {
  local rc=$?
  [ "$STATUS" = running ] && STATUS="stopped (exit $rc)"
  if [ -n "${PART_PID:-}" ]; then
    kill -TERM "$PART_PID" 2>/dev/null && sleep 1 # timeout passes it on
    PARTS+=("$(printf '%-30s %4d s  CUT: the call stopped during it' "$PART_NAME" "$((SECONDS - PART_T))")")
  fi
  pack
  echo "gpu-record: $STATUS; $OUT/recording.tar.gz ($(du -k "$OUT/recording.tar.gz" 2>/dev/null | cut -f1) KiB) and summary.txt"
  cat "$OUT/summary.txt"
  [ -n "${STAGE:-}" ] && rm -rf "$STAGE"
  rm -rf "$WORKROOT"
}
trap on_exit EXIT
trap 'STATUS="stopped by SIGTERM at $((SECONDS - START)) s"; exit 143' TERM
trap 'STATUS="stopped by SIGINT at $((SECONDS - START)) s"; exit 130' INT
RUN_EPOCH="$(date +%s)"
# stop REASON: end the call here, the reason in summary.txt.
stop() { STATUS="STOPPED: $*"; echo "gpu-record: $STATUS" >&2; exit 1; }

# part NAME BUDGET LOG CMD...: runs CMD under timeout (BUDGET, capped by what is left of the run),
# output to the terminal and LOG (in the archive), repacking every 20 s; books its time and status.
# Returns CMD's status (124: cut at its budget; 125: not started, no time left).
part() {
  local name="$1" budget="$2" log="$3"; shift 3
  local l; l=$(left)
  [ "$budget" -gt "$l" ] && budget=$l
  if [ "$budget" -lt 5 ]; then
    PARTS+=("$(printf '%-30s not started: %d s left' "$name" "$l")"); return 125
  fi
  step "$name (budget ${budget} s; $((SECONDS - START)) s into the run)"
  local t=$SECONDS
  timeout -k 5 "$budget" "$@" > >(tee "$W/$log") 2>&1 &
  PART_PID=$! PART_NAME="$name" PART_T=$t
  local n=0
  while kill -0 "$PART_PID" 2>/dev/null; do
    sleep 1; n=$((n + 1)); [ $((n % 20)) = 0 ] && pack
  done
  wait "$PART_PID"; local rc=$?
  PART_PID=""
  local dt=$((SECONDS - t)) note=""
  { [ "$rc" = 124 ] || [ "$rc" = 137 ]; } && note="  CUT at its budget"
  echo "-- $name: ${dt} s (budget ${budget} s), rc=$rc$note"
  PARTS+=("$(printf '%-30s %4d s  budget %4d s  rc=%s%s' "$name" "$dt" "$budget" "$rc" "$note")")
  pack
  return "$rc"
}
importable() { [ -n "$1" ] && [ -x "$1" ] && "$1" -c "import $2" >/dev/null 2>&1; }

# ---- pre-flight (≤ 30 s): every probe under its own short timeout --------------------------------
step "pre-flight"
PF="$W/preflight.txt"
pf() { echo "$*" | tee -a "$PF"; }
[ -x "$BIN" ] || stop "$BIN missing: run 'make whygpu-bin' on the build machine and carry build/whygpu"
pf "host: $(uname -srm) $(hostname 2>/dev/null); $(date -u +%Y-%m-%dT%H:%M:%SZ)"
pf "binary: $BIN ($(stat -c %s "$BIN") bytes); $(cat "$ROOT/build/whygpu.version" 2>/dev/null || echo 'no build/whygpu.version')"
LDD="$(timeout 10 ldd "$BIN" 2>&1)"; echo "$LDD" >> "$PF"
grep -q "not found" <<<"$LDD" && stop "ldd $BIN: $(grep 'not found' <<<"$LDD" | tr -s ' \t\n' ' ')"
timeout 10 "$BIN" record -plan > "$W/plan.txt" 2>&1 || stop "$BIN record -plan failed: $(tail -3 "$W/plan.txt")"
cat "$W/plan.txt"; grep "^group [0-9]*: [0-9]" "$W/plan.txt" >> "$PF"

# pjrt_version PYTHON PLUGIN: the PJRT C API version the plugin's GetPjrtApi reports (PJRT_Api:
# struct_size, extension_start, then PJRT_Api_Version {struct_size, extension_start, major, minor}).
pjrt_version() {
  timeout 20 "$1" - "$2" <<'EOF'
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.GetPjrtApi.restype = ctypes.c_void_p
api = lib.GetPjrtApi()
major, minor = (ctypes.c_int * 2).from_address(api + 32)
print(f"{major}.{minor}")
EOF
}

if [ "$DEVICE" = xla:cuda ]; then
  SMI="$(timeout 10 nvidia-smi -L 2>&1)" || stop "nvidia-smi -L: ${SMI:-no output} (no GPU visible)"
  pf "$SMI"
  timeout 10 nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap --format=csv,noheader > "$W/gpu.txt" 2>&1
  timeout 10 nvidia-smi > "$W/nvidia-smi.txt" 2>&1
  CUDA_DRV="$(grep -o 'CUDA Version: [0-9.]*' "$W/nvidia-smi.txt" | grep -o '[0-9.]*$')"
  pf "gpu: $(cat "$W/gpu.txt"); driver CUDA version ${CUDA_DRV:-unknown}"
  [ "${CUDA_DRV%%.*}" -ge 13 ] 2>/dev/null || stop "the driver supports CUDA ${CUDA_DRV:-?}; the cu13 PJRT plugin needs 13.0 or later"

  [ -x "$PY" ] || stop "no Python at $PY (set TORCH_VENV)"
  SITE="$(timeout 10 "$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  PLUGIN="$(ls "$SITE"/jax_plugins/xla_cuda13/xla_cuda_plugin.so 2>/dev/null | head -1)"
  [ -n "$PLUGIN" ] || PLUGIN="$(find "$SITE/jax_plugins" -name '*cuda*plugin*.so' 2>/dev/null | head -1)"
  [ -n "$PLUGIN" ] || stop "no CUDA PJRT plugin under $SITE/jax_plugins (pip install jax-cuda13-pjrt)"
  PJRT="$(pjrt_version "$PY" "$PLUGIN" 2>&1)" || stop "the CUDA PJRT plugin $PLUGIN does not load: $PJRT"
  pf "plugin: $PLUGIN (PJRT C API $PJRT)"

  # Stage the plugin as scripts/setup.sh --cuda does: lib/pjrt/pjrt_c_api_cuda_plugin.so and
  # lib/nvidia, links to the NVIDIA wheels (the plugin's RPATH is $ORIGIN/../nvidia/<wheel>/lib, and
  # go-xla hands <stage>/lib/nvidia to XLA as its CUDA data dir: bin/ptxas and nvvm/libdevice there).
  STAGE="$(mktemp -d)"
  mkdir -p "$STAGE/lib/pjrt" "$STAGE/lib/nvidia"
  ln -s "$PLUGIN" "$STAGE/lib/pjrt/pjrt_c_api_cuda_plugin.so"
  for d in "$SITE"/nvidia/*/; do
    d="${d%/}"; [ "$(basename "$d")" = __pycache__ ] || ln -s "$d" "$STAGE/lib/nvidia/$(basename "$d")"
  done
  CUDA_DIR=""
  for cand in "$SITE/nvidia/cu13" "$SITE/nvidia/cuda_nvcc"; do
    if [ -x "$cand/bin/ptxas" ] && [ -d "$cand/nvvm/libdevice" ]; then
      ln -s "$cand/bin" "$STAGE/lib/nvidia/bin"; ln -s "$cand/nvvm" "$STAGE/lib/nvidia/nvvm"; CUDA_DIR="$cand"; break
    fi
  done
  if [ -z "$CUDA_DIR" ]; then # only a system toolkit: point XLA at it (go-xla keeps a data dir already set)
    for cand in "$(dirname "$(dirname "$(command -v ptxas 2>/dev/null || echo /x/x)")")" /usr/local/cuda /usr/local/cuda-13.0; do
      [ -x "$cand/bin/ptxas" ] && [ -d "$cand/nvvm/libdevice" ] && { CUDA_DIR="$cand"; break; }
    done
    [ -n "$CUDA_DIR" ] || stop "no ptxas with nvvm/libdevice in the wheels ($SITE/nvidia/cu13, cuda_nvcc) or a system toolkit"
    export XLA_FLAGS="${XLA_FLAGS:+$XLA_FLAGS }--xla_gpu_cuda_data_dir=$CUDA_DIR"
    pf "XLA_FLAGS=$XLA_FLAGS (only a system toolkit has ptxas and libdevice)"
  fi
  pf "ptxas: $CUDA_DIR/bin/ptxas ($(timeout 5 "$CUDA_DIR/bin/ptxas" --version 2>&1 | tail -1))"
  pf "libdevice: $(ls "$CUDA_DIR"/nvvm/libdevice/libdevice*.bc 2>/dev/null | head -1)"
  # The nvidia-* wheels the staged lib/nvidia links to (what the plugin loads), and the Python peers.
  timeout 15 "$PY" - "$SITE" <<'EOF' | tee -a "$PF"
import importlib.metadata as m, sys
used = {}
for d in m.distributions():
    name = d.metadata["Name"] or ""
    tops = {str(f).split("/")[1] for f in (d.files or []) if str(f).startswith("nvidia/") and str(f).count("/") > 1}
    if name.lower().startswith("nvidia-") and tops:
        used[name] = (d.version, sorted(tops))
for name, (v, tops) in sorted(used.items()):
    print(f"wheel {name} {v} (nvidia/{','.join(tops)})")
for p in ("jax", "jaxlib", "jax-cuda13-pjrt", "jax-cuda13-plugin", "torch"):
    try: print(f"python {p} {m.version(p)}")
    except m.PackageNotFoundError: print(f"python {p}: not installed")
EOF
  LIBS="$(find -L "$SITE/nvidia" -maxdepth 2 -type d -name lib 2>/dev/null | tr '\n' ':')"
  ORIG_LD="${LD_LIBRARY_PATH:-}"
  export PJRT_PLUGIN_LIBRARY_PATH="$STAGE/lib/pjrt" LD_LIBRARY_PATH="${LIBS}${ORIG_LD}"
  TORCH_PY="${TORCH_PY:-$PY}" JAX_PY="${JAX_PY:-$PY}"
  PEER_ENV=(env LD_LIBRARY_PATH="$ORIG_LD" XLA_PYTHON_CLIENT_PREALLOCATE=false JAX_PLATFORMS=cuda)
  CMP=() JCMP=()
else
  pf "dry run on $DEVICE: no nvidia-smi, ptxas or CUDA wheels checked"
  PLUGIN="$(ls "${PJRT_PLUGIN_LIBRARY_PATH:-/nonexistent}"/pjrt_c_api_cpu_plugin.so 2>/dev/null | head -1)"
  [ -n "$PLUGIN" ] || stop "no CPU PJRT plugin under PJRT_PLUGIN_LIBRARY_PATH='${PJRT_PLUGIN_LIBRARY_PATH:-}'"
  PYV="${JAX_PY:-$(command -v python3)}"
  PJRT="$(pjrt_version "$PYV" "$PLUGIN" 2>&1)" || stop "the PJRT plugin $PLUGIN does not load: $PJRT"
  pf "plugin: $PLUGIN (PJRT C API $PJRT)"
  TORCH_PY="" JAX_PY="${JAX_PY:-}"
  PEER_ENV=(env JAX_PLATFORMS=cpu)
  CMP=(-n 256 -ln-rows 256 -ln-cols 256 -copy-bytes 4194304 -check-n 128)
  JCMP=(--n 256 --ln-rows 256 --ln-cols 256 --copy-bytes 4194304 --check-n 128 --reps 10 --sample-s 0.002)
fi
PARTS+=("$(printf '%-30s %4d s  budget   30 s' "pre-flight" "$((SECONDS - START))")")
[ $((SECONDS - START)) -le 30 ] || pf "note: the pre-flight took $((SECONDS - START)) s, more than its 30 s"
pack

# ---- group 1: smoke test first ---------------------------------------------------------------------
if [ "$GROUP" = 1 ] && [ "$DEVICE" = xla:cuda ]; then
  if ! part "smoke: GoMLX on xla:cuda" "$BUDGET_SMOKE" smoke.txt \
      "$BIN" compare -device xla:cuda -n 1024 -ln-rows 1024 -ln-cols 1024 -copy-bytes 16777216 -check-n 512 \
      -batches 1 -out "$W/smoke.json" && ! grep -q "target(s) missed" "$W/smoke.txt"; then
    part "whygpu doctor" "${BUDGET_DOCTOR:-30}" doctor.txt "$BIN" doctor
    stop "GoMLX on xla:cuda failed its smoke test (smoke.txt, doctor.txt in the archive)"
  fi
fi

# ---- the recording ---------------------------------------------------------------------------------
PEER_S=0
[ "$GROUP" = 1 ] && PEER_S=$((BUDGET_TORCH + BUDGET_JAX + BUDGET_COMPARE))
RB=$(( $(left) - PEER_S ))
if [ -n "$ONLY" ]; then SEL=(-only "$ONLY"); else SEL=(-group "$GROUP"); fi
[ "$RB" -ge 10 ] || RB=10
part "whygpu record ${SEL[*]}" "$RB" record.txt \
  "$BIN" record -device "$DEVICE" -scale "$SCALE" "${SEL[@]}" -budget "$((RB - 5))s" -out "$W/reference"
rc=$?
NR="$(grep -o 'ONLY=[^ ]*' "$W/record.txt" | tail -1)"
[ -n "$NR" ] && NEXT="$NR"

# ---- group 1: PyTorch and JAX on the same shapes, then the comparison ------------------------------
if [ "$GROUP" = 1 ]; then
  PEERS=()
  if importable "$TORCH_PY" torch; then
    part "PyTorch, same shapes" "$BUDGET_TORCH" torch.txt \
      "${PEER_ENV[@]}" "$TORCH_PY" "$ROOT/scripts/torch_compare.py" --out "$W/torch.json"
    [ -s "$W/torch.json" ] && PEERS+=(-torch "$W/torch.json")
  else
    PARTS+=("PyTorch: skipped (not importable with TORCH_PY='$TORCH_PY')")
  fi
  if importable "$JAX_PY" jax; then
    part "JAX, same shapes" "$BUDGET_JAX" jax.txt \
      "${PEER_ENV[@]}" "$JAX_PY" "$ROOT/scripts/bench_jax.py" --compare "$W/jax.json" "${JCMP[@]}"
    [ -s "$W/jax.json" ] && PEERS+=(-jax "$W/jax.json")
  else
    echo "note: JAX skipped: not importable with JAX_PY='${JAX_PY}'" > "$W/jax.txt"
    PARTS+=("JAX: skipped (not importable with JAX_PY='${JAX_PY}')")
  fi
  # Targets are measured, not asserted: a missed target is a line in compare.txt, not a failure.
  part "whygpu compare" "$BUDGET_COMPARE" compare.txt \
    "$BIN" compare -device "$DEVICE" "${CMP[@]}" "${PEERS[@]}" -out "$W/compare.json"
  c=$?; [ "$c" = 0 ] || grep -q "target(s) missed" "$W/compare.txt" || rc=1
  [ -z "$NEXT" ] && [ -z "$ONLY" ] && NEXT="GROUP=2"
fi
[ "$GROUP" = 2 ] && [ -z "$NEXT" ] && [ -z "$ONLY" ] && NEXT="GROUP=3 (in a later lease)"

STATUS="done (rc=$rc)"
[ "$rc" = 0 ] || STATUS="done with failures (rc=$rc): see record.txt/compare.txt in the archive"
exit "$rc"
