"""scripts/gpu-record.sh, the script for a lent GPU machine, dry-run here on the CPU plugin.

It runs the self-contained binary (make whygpu-bin) the way the GPU machine will: no Go on PATH,
outside the checkout's Go tooling, writing reference results with provenance under $OUT.
"""
import json
import os
import pathlib
import re
import shutil
import subprocess

from conftest import ROOT


def gomlx_pin():
    """The GoMLX version go.mod requires: what a recording's provenance must name."""
    m = re.search(r"^\s*github\.com/gomlx/gomlx (v\S+)", (ROOT / "go.mod").read_text(), re.M)
    assert m, "go.mod does not require github.com/gomlx/gomlx"
    return m.group(1)


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
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "gpu-record.sh")], env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    rows = json.loads((out / "compare.json").read_text())["rows"]
    assert len(rows) == 6 and all(r["ours_rate"] > 0 for r in rows)
    results = list((out / "reference").glob("*/00-setup-check/matmul.json"))
    assert results, list((out / "reference").rglob("*"))
    r = json.loads(results[0].read_text())[0]
    assert r["provenance"]["device"] == "xla:cpu" and r["provenance"]["gomlx"] == gomlx_pin()
    assert r["stats"]["median_ns"] > 0
