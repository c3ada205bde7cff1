#!/usr/bin/env bash
# docker/smoke.sh — check a course environment end to end, with no network: the doctor, the hub's
# single-user server, the learners' notebook copies, JupyterLab answering, and notebook 00 through the
# real course kernel.
#
# In the image (the teacher's one command, docker/README.md):
#   docker run --rm --network none whygpu:cpu /opt/whygpu/docker/smoke.sh
#   docker run --rm --network none --gpus all whygpu:cuda /opt/whygpu/docker/smoke.sh
# CI runs it inside the image it builds with buildah (docker/tests/image/test_image.py).
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
lab=""
trap '[ -z "$lab" ] || kill "$lab" 2>/dev/null; rm -rf "$work"' EXIT
"$ROOT/docker/sync-notebooks.sh" "$ROOT/notebooks" "$work/work"

step "JupyterLab starts and answers"
# on 127.0.0.1 with a token of its own, the settings of the image (/etc/jupyter) included
read -r port token < <("$VENV/bin/python" -c 'import secrets, socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1], secrets.token_hex(16))')
(cd "$work" && exec jupyter lab --no-browser --ip=127.0.0.1 --port="$port" --IdentityProvider.token="$token" \
  --ServerApp.root_dir="$work" >"$work/lab.log" 2>&1) &
lab=$!
"$VENV/bin/python" - "$port" "$token" "$work/lab.log" <<'PY' || { tail -n 30 "$work/lab.log" >&2; exit 1; }
import json, sys, time, urllib.request
port, token, log = sys.argv[1:]
base = f"http://127.0.0.1:{port}"
def get(path):
    req = urllib.request.Request(base + path, headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(req, timeout=5) as r:
        return json.load(r)
t0 = time.monotonic()
while True:
    try:
        status = get("/api/status")
        break
    except OSError:
        if time.monotonic() - t0 > 120:
            sys.exit("JupyterLab did not answer on %s within 120 s" % base)
        time.sleep(0.5)
specs = get("/api/kernelspecs")
lab = urllib.request.urlopen(urllib.request.Request(base + "/lab", headers={"Authorization": f"token {token}"}), timeout=10)
assert lab.status == 200, lab.status
assert "whygpu" in specs["kernelspecs"], "the course kernel is not among the kernels: %s" % sorted(specs["kernelspecs"])
print(f"JupyterLab answered in {time.monotonic() - t0:.1f}s: /api/status, /lab, kernels {sorted(specs['kernelspecs'])}, "
      f"default kernel {specs['default']}")
PY
if [ -x /etc/jupyter/docker_healthcheck.py ] && [ -n "${NB_USER:-}" ]; then
  /etc/jupyter/docker_healthcheck.py >/dev/null && echo "the image's healthcheck (/etc/jupyter/docker_healthcheck.py) passes"
fi
kill "$lab" 2>/dev/null; wait "$lab" 2>/dev/null || true; lab=""

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
