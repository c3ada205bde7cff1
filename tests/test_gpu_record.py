"""scripts/gpu-record.sh, the script for a lent GPU machine, dry-run here on the CPU plugin.

It runs the self-contained binary (make whygpu-bin) the way the GPU machine will: no Go on PATH,
outside the checkout's Go tooling, writing reference results with provenance under $OUT. The JAX peer
(scripts/bench_jax.py --compare) runs too, on the CPU at tiny sizes, when the bench venv (.venv/bench,
`make bench`) has JAX; without it the script notes the skip and the test says so.
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import warnings

from conftest import ROOT


def gomlx_pin():
    """The GoMLX version go.mod requires: what a recording's provenance must name."""
    m = re.search(r"^\s*github\.com/gomlx/gomlx (v\S+)", (ROOT / "go.mod").read_text(), re.M)
    assert m, "go.mod does not require github.com/gomlx/gomlx"
    return m.group(1)


def bench_python():
    """The bench venv's python when it imports jax (the JAX peer's dry run), else None."""
    py = ROOT / ".venv" / "bench" / "bin" / "python"
    if py.exists() and subprocess.run([str(py), "-c", "import jax"], capture_output=True).returncode == 0:
        return py
    return None


def test_gpu_record_dry_run_on_cpu(tmp_path):
    subprocess.run(["make", "-s", "whygpu-bin"], cwd=ROOT, check=True, timeout=900)
    binary = tmp_path / "whygpu"
    shutil.copy(ROOT / "build" / "whygpu", binary)
    out = tmp_path / "out"
    env = {
        "PATH": "/usr/bin:/bin",  # no Go, as on the GPU machine
        "HOME": str(tmp_path),
        "DEVICE": "xla:cpu", "SCALE": "laptop", "ONLY": "00-setup-check/matmul",
        "WHYGPU_BIN": str(binary), "OUT": str(out),
        "PJRT_PLUGIN_LIBRARY_PATH": str(ROOT / ".venv" / "lib" / "pjrt"),
    }
    jax_py = bench_python()
    if jax_py:
        env["JAX_PY"] = str(jax_py)
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "gpu-record.sh")], env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    rows = {r["name"]: r for r in json.loads((out / "compare.json").read_text())["rows"]}
    mlp = ["mlp-step-b1", "mlp-step-b256", "mlp-step-b4096"]
    assert set(rows) == {"matmul-bf16", "matmul-f32-tf32", "matmul-f32", "layernorm-float32",
                         "layernorm-bfloat16", "copy-d2d", *mlp}, sorted(rows)
    assert all(r["ours_rate"] > 0 for r in rows.values())
    parts = (out / "parts.txt").read_text()
    assert "whygpu record" in parts and "total" in parts, parts
    if jax_py:
        jax_rows = {r["name"]: r for r in json.loads((out / "jax.json").read_text())["results"]}
        assert set(jax_rows) == set(rows) and not any("error" in r for r in jax_rows.values()), jax_rows
        assert all(rows[n]["jax_rate"] > 0 and rows[n]["jax_ratio"] > 0 for n in rows), rows
        checks = json.loads((out / "compare.json").read_text())["checks"]
        assert sum("MLP step" in c["what"] for c in checks) == 3, checks
        print("JAX peer exercised on the CPU with", jax_py)
    else:
        assert "JAX skipped" in (out / "jax.txt").read_text()
        warnings.warn("gpu-record dry run: JAX part skipped: no .venv/bench with jax (`make bench` builds it); "
                      "the GoMLX side was still dry-run")
    results = list((out / "reference").glob("*/00-setup-check/matmul.json"))
    assert results, list((out / "reference").rglob("*"))
    r = json.loads(results[0].read_text())[0]
    assert r["provenance"]["device"] == "xla:cpu" and r["provenance"]["gomlx"] == gomlx_pin()
    assert r["stats"]["median_ns"] > 0
