"""scripts/gpu-record.sh, the script for a lent GPU machine, dry-run here on the CPU plugin.

It runs the self-contained binary (make whygpu-bin) the way the GPU machine will: no Go on PATH,
outside the checkout's Go tooling. What comes back must fit what that machine returns (at most 8
files from $OUT, no more than two folders down, 16 MiB each, 64 MiB in all), and the one archive must
import (`whygpu record -import`) into a reference folder that the lessons then read: here a temporary
one (WHYGPU_ROOT), never lessons/reference. The JAX peer (scripts/bench_jax.py --compare) runs too,
on the CPU at tiny sizes, when the bench venv (.venv/bench, `make bench`) has JAX; without it the
script notes the skip and the test says so.
"""
import io
import json
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import time
import warnings

import pytest

from conftest import ROOT

MiB = 1 << 20
# What the device tool carries and returns (the device README): the working tree plus carried
# paths ≤ 64 MiB; back from $OUT ≤ 8 files, ≤ 2 folders down, ≤ 16 MiB each, ≤ 64 MiB in all.
CARRY_LIMIT, OUT_FILES, OUT_DEPTH, OUT_FILE, OUT_ALL = 64 * MiB, 8, 2, 16 * MiB, 64 * MiB
# A relabeled copy of the CPU dry run, imported only into a temporary folder, so the lessons' GPU
# paths (model-vs-recording lines) see a recording: the model name says what it is.
FIXTURE_MODEL = "TEST FIXTURE GPU (relabeled CPU dry run, not a GPU)"


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


def tree_bytes():
    """Bytes of what the device tool copies: tracked files and untracked files git does not ignore."""
    names = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=ROOT, capture_output=True, check=True).stdout.split(b"\0")
    return sum((ROOT / n.decode()).stat().st_size for n in names if n and (ROOT / n.decode()).is_file())


def relabel(archive, dest):
    """A copy of the dry run's archive with every result's provenance renamed to FIXTURE_MODEL on
    xla:cuda (and its folder to that model's slug): a test fixture, never committed."""
    slug = "test-fixture-gpu"
    with tarfile.open(archive) as src, tarfile.open(dest, "w:gz") as out:
        for m in src.getmembers():
            data = src.extractfile(m).read() if m.isfile() else None
            parts = m.name.split("/")
            if len(parts) > 2 and parts[1] == "reference":
                parts[2] = slug
                if data is not None and m.name.endswith(".json"):
                    doc = json.loads(data)
                    if parts[-1] == "record.json" and len(parts) == 4:
                        doc["device"], doc["model"] = "xla:cuda", FIXTURE_MODEL
                    else:
                        for r in doc:
                            r["provenance"]["device"], r["provenance"]["model"] = "xla:cuda", FIXTURE_MODEL
                    data = json.dumps(doc).encode()
            m.name = "/".join(parts)
            if data is None:
                out.addfile(m)
            else:
                m.size = len(data)
                out.addfile(m, io.BytesIO(data))


@pytest.fixture(scope="module")
def built():
    """build/whygpu as carried to the GPU machine (make whygpu-bin), built once for this file."""
    subprocess.run(["make", "-s", "whygpu-bin"], cwd=ROOT, check=True, timeout=900)
    return ROOT / "build" / "whygpu"


def whygpu(binary, env, *args):
    proc = subprocess.run([str(binary), *args], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout


def test_gpu_record_dry_run_on_cpu(tmp_path, built):
    size = built.stat().st_size
    tree = tree_bytes()
    carried = size + (ROOT / "build" / "whygpu.version").stat().st_size
    print(f"build/whygpu: {size / MiB:.1f} MiB; working tree {tree / MiB:.1f} MiB; "
          f"together {(tree + carried) / MiB:.1f} MiB of the {CARRY_LIMIT // MiB} MiB the device tool carries")
    assert tree + carried <= CARRY_LIMIT - 8 * MiB, "the binary and the tree leave < 8 MiB of the carry limit"

    binary = tmp_path / "bin" / "whygpu"
    binary.parent.mkdir()
    shutil.copy(built, binary)
    out = tmp_path / "out"
    env = {
        "PATH": "/usr/bin:/bin",  # no Go, as on the GPU machine
        "HOME": str(tmp_path),
        "DEVICE": "xla:cpu", "SCALE": "laptop",
        "WHYGPU_BIN": str(binary), "OUT": str(out),
        "PJRT_PLUGIN_LIBRARY_PATH": str(ROOT / ".venv" / "lib" / "pjrt"),
    }
    jax_py = bench_python()
    if jax_py:
        env["JAX_PY"] = str(jax_py)
    # Group 1's call as on the GPU (pre-flight, record, peers, compare), recording two experiments.
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "gpu-record.sh"), "GROUP=1",
                           "ONLY=00-setup-check/matmul,01-race/step-sweep"],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    print(proc.stdout[-1500:])

    # The plan's estimates are printed: every group and every registered experiment.
    assert re.search(r"^group 1: \d+ experiments, \d+ compiles, \d+ s estimated of a \d+ s budget$", proc.stdout, re.M)
    listed = whygpu(binary, env, "record", "-list")
    for eid in (line.split()[0] for line in listed.splitlines() if line.strip()):
        assert re.search(rf"^  {re.escape(eid)} +\d+ compiles +~ *\d+ s", proc.stdout, re.M), f"{eid} has no estimate"

    # What comes back fits what the GPU machine returns.
    files = [p for p in out.rglob("*") if p.is_file()]
    assert sorted(p.name for p in files) == ["recording.tar.gz", "summary.txt"], files
    assert len(files) <= OUT_FILES
    assert all(len(p.relative_to(out).parts) - 1 <= OUT_DEPTH for p in files)
    assert all(p.stat().st_size <= OUT_FILE for p in files) and sum(p.stat().st_size for p in files) <= OUT_ALL
    summary = (out / "summary.txt").read_text()
    assert "done" in summary and "record: 2 ok, 0 failed" in summary and len(summary.splitlines()) <= 40, summary

    archive = out / "recording.tar.gz"
    with tarfile.open(archive) as tar:
        names = tar.getnames()
        member = lambda n: tar.extractfile("recording/" + n).read()
        assert {"recording/preflight.txt", "recording/plan.txt", "recording/summary.txt",
                "recording/record.txt", "recording/compare.json"} <= set(names), names
        assert "PJRT C API" in member("preflight.txt").decode()
        compare = json.loads(member("compare.json"))
        jax_doc = json.loads(member("jax.json")) if jax_py else None
        assert "JAX skipped" in member("jax.txt").decode() or jax_py
    rows = {r["name"]: r for r in compare["rows"]}
    mlp = ["mlp-step-b1", "mlp-step-b256", "mlp-step-b4096"]
    assert set(rows) == {"matmul-bf16", "matmul-f32-tf32", "matmul-f32", "layernorm-float32",
                         "layernorm-bfloat16", "copy-d2d", *mlp}, sorted(rows)
    assert all(r["ours_rate"] > 0 for r in rows.values())
    if jax_py:
        jax_rows = {r["name"]: r for r in jax_doc["results"]}
        assert set(jax_rows) == set(rows) and not any("error" in r for r in jax_rows.values()), jax_rows
        assert all(rows[n]["jax_rate"] > 0 and rows[n]["jax_ratio"] > 0 for n in rows), rows
        assert sum("MLP step" in c["what"] for c in compare["checks"]) == 3, compare["checks"]
    else:
        warnings.warn("gpu-record dry run: JAX part skipped: no .venv/bench with jax (`make bench` builds it); "
                      "the GoMLX side was still dry-run")

    # The archive imports into a temporary reference folder (WHYGPU_ROOT) that lessons read.
    root = tmp_path / "checkout"
    root.mkdir()
    ienv = dict(env, WHYGPU_ROOT=str(root))
    text = whygpu(binary, ienv, "record", "-import", str(archive))
    assert "lessons read all 2 experiment(s)" in text, text
    ref = root / "lessons" / "reference"
    (matmul,) = ref.glob("*/00-setup-check/matmul.json")
    r = json.loads(matmul.read_text())[0]
    assert r["provenance"]["device"] == "xla:cpu" and r["provenance"]["gomlx"] == gomlx_pin()
    assert r["stats"]["median_ns"] > 0
    assert list(ref.glob("*/runs/*/preflight.txt")), list(ref.rglob("*"))

    # Relabeled as a GPU (a fixture), the same recording reaches the lessons' GPU paths: the race's
    # step sweep shows the GPU model beside every recorded step ("model vs recording").
    fixture = tmp_path / "fixture.tar.gz"
    relabel(archive, fixture)
    text = whygpu(binary, ienv, "record", "-import", str(fixture))
    versus = [l for l in text.splitlines() if "model vs recording" in l]
    assert len(versus) == 10 and all("batch" in l and FIXTURE_MODEL in l for l in versus), text
    assert (ref / "test-fixture-gpu" / "01-race" / "step-sweep.json").exists()

    # A cut or tampered archive is refused, and nothing of it is written.
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(archive.read_bytes()[: archive.stat().st_size // 2])
    proc = subprocess.run([str(binary), "record", "-import", str(bad)], env=dict(ienv, WHYGPU_ROOT=str(tmp_path / "empty")),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and "record -import" in proc.stderr and not (tmp_path / "empty" / "lessons").exists(), proc.stderr


def test_gpu_record_cut_still_brings_back_the_archive(tmp_path, built):
    """A call stopped mid-part (SIGTERM, as at the device tool's limit) still leaves the archive with
    what finished, and a summary that says where it stopped."""
    binary = built
    out = tmp_path / "out"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DEVICE": "xla:cpu", "SCALE": "laptop",
           "WHYGPU_BIN": str(binary), "OUT": str(out),
           "PJRT_PLUGIN_LIBRARY_PATH": str(ROOT / ".venv" / "lib" / "pjrt")}
    log = tmp_path / "log"
    with open(log, "w") as f:
        proc = subprocess.Popen(["bash", str(ROOT / "scripts" / "gpu-record.sh"),
                                 "ONLY=00-setup-check/matmul,01-race/step-sweep"], env=env, stdout=f, stderr=subprocess.STDOUT)
        deadline = time.time() + 120
        while "ok   00-setup-check/matmul" not in log.read_text() and time.time() < deadline and proc.poll() is None:
            time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) != 0
    summary = (out / "summary.txt").read_text()
    assert "stopped by SIGTERM" in summary and "CUT: the call stopped during it" in summary, summary + log.read_text()
    with tarfile.open(out / "recording.tar.gz") as tar:
        names = tar.getnames()
    assert any(n.endswith("00-setup-check/matmul.json") for n in names), names
    assert sorted(p.name for p in out.iterdir()) == ["recording.tar.gz", "summary.txt"]


NVIDIA_SMI = """#!/bin/sh
# A stand-in for the test: there is no GPU here.
case "$1" in
  -L) echo "GPU 0: NVIDIA H200 (UUID: GPU-00000000-stand-in)";;
  --query-gpu=*) echo "NVIDIA H200, 143771 MiB, 580.159, 9.0";;
  *) echo "| NVIDIA-SMI 580.159   Driver Version: 580.159   CUDA Version: $FAKE_CUDA |";;
esac
"""
PTXAS = "#!/bin/sh\necho 'Cuda compilation tools, release 13.0, V13.0.88 (a stand-in for the test)'\n"


def fake_gpu_machine(tmp_path, toolkit):
    """The GPU machine's layout with stand-ins (no GPU): nvidia-smi on PATH, a venv whose
    jax_plugins/xla_cuda13 holds a loadable PJRT plugin (the CPU one), and ptxas + libdevice in the
    cu13 wheel ("wheel"), only in a system toolkit on PATH ("system"), or nowhere ("none")."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    site = pathlib.Path(subprocess.run([str(venv / "bin" / "python"), "-c",
                                        "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                       capture_output=True, text=True, check=True).stdout.strip())
    (site / "jax_plugins" / "xla_cuda13").mkdir(parents=True)
    (site / "jax_plugins" / "xla_cuda13" / "xla_cuda_plugin.so").symlink_to(ROOT / ".venv" / "lib" / "pjrt" / "pjrt_c_api_cpu_plugin.so")
    (site / "nvidia" / "cu13" / "lib").mkdir(parents=True)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "nvidia-smi").write_text(NVIDIA_SMI)
    (bindir / "nvidia-smi").chmod(0o755)
    where = {"wheel": site / "nvidia" / "cu13", "system": tmp_path / "cuda"}.get(toolkit)
    if where:
        (where / "bin").mkdir(parents=True, exist_ok=True)
        (where / "nvvm" / "libdevice").mkdir(parents=True)
        (where / "nvvm" / "libdevice" / "libdevice.10.bc").write_bytes(b"")
        (where / "bin" / "ptxas").write_text(PTXAS)
        (where / "bin" / "ptxas").chmod(0o755)
    info = site / "nvidia_cuda_nvcc-13.0.88.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: nvidia-cuda-nvcc\nVersion: 13.0.88\n")
    (info / "RECORD").write_text("nvidia/cu13/bin/ptxas,,\nnvidia_cuda_nvcc-13.0.88.dist-info/METADATA,,\n")
    path = f"{bindir}:{tmp_path / 'cuda' / 'bin'}:/usr/bin:/bin"
    return venv, path


@pytest.mark.parametrize("toolkit,cuda,want", [
    ("wheel", "13.0", ["STOPPED: GoMLX on xla:cuda failed its smoke test"]),
    ("system", "13.0", ["STOPPED: GoMLX on xla:cuda failed its smoke test"]),
    ("wheel", "12.8", ["STOPPED: the driver supports CUDA 12.8"]),
    ("none", "13.0", ["STOPPED: no ptxas with nvvm/libdevice"]),
])
def test_gpu_record_preflight(tmp_path, built, toolkit, cuda, want):
    """The GPU path's pre-flight on stand-ins: what it finds goes to preflight.txt; what is missing
    stops the call with the reason in summary.txt (here the smoke test is where a GPU would be needed)."""
    venv, path = fake_gpu_machine(tmp_path, toolkit)
    out = tmp_path / "out"
    env = {"PATH": path, "HOME": str(tmp_path), "TORCH_VENV": str(venv), "WHYGPU_BIN": str(built), "OUT": str(out),
           "FAKE_CUDA": cuda, "BUDGET_DOCTOR": "5"}
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "gpu-record.sh"), "GROUP=1"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    summary = (out / "summary.txt").read_text()
    assert all(w in summary for w in want), summary + proc.stdout[-2000:]
    with tarfile.open(out / "recording.tar.gz") as tar:
        pre = tar.extractfile("recording/preflight.txt").read().decode()
    if cuda == "13.0" and toolkit != "none":
        assert "PJRT C API" in pre and "ptxas: " in pre and "libdevice: " in pre, pre
        assert "wheel nvidia-cuda-nvcc 13.0.88" in pre and "driver CUDA version 13.0" in pre, pre
        assert ("XLA_FLAGS=--xla_gpu_cuda_data_dir=" + str(tmp_path / "cuda") in pre) == (toolkit == "system"), pre
