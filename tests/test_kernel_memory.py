"""Memory limits are the container's: a real cgroup memory limit around a real course kernel.

The test makes a memory cgroup (v1 memory.limit_in_bytes or v2 memory.max, whichever this machine has and
lets us write), and a kernel spec that is the course's own with one step first: enter that cgroup. Inside,
the course's budget names the container's limit rather than the host's RAM; a cell that allocates past the
limit is killed by the kernel's out-of-memory killer, the kernel stays alive, and the next cell tells the
learner what most likely happened and what to lower.
"""
import json
import os
import pathlib
import uuid

import pytest
from jupyter_client.manager import start_new_kernel

from conftest import KERNEL, ROOT
from test_kernel import run, text

LIMIT = 2 << 30  # room for GoNB, gopls and the Go compiler; a cell that wants 4 GiB does not fit


def make_cgroup():
    """(directory, procs file) of a fresh memory cgroup limited to LIMIT, or skip when none can be made."""
    name = f"whygpu-test-{uuid.uuid4().hex[:8]}"
    for base, limit_file in [("/sys/fs/cgroup/memory", "memory.limit_in_bytes"), ("/sys/fs/cgroup", "memory.max")]:
        d = pathlib.Path(base) / name
        try:
            d.mkdir()
        except OSError:
            continue
        try:
            (d / limit_file).write_text(str(LIMIT))
            return d
        except OSError:
            d.rmdir()
    pytest.skip("cannot create a memory cgroup here (not root, or no writable cgroup memory controller)")


@pytest.fixture
def limited_kernel(tmp_path, monkeypatch):
    cg = make_cgroup()
    spec = json.loads((ROOT / ".venv/share/jupyter/kernels" / KERNEL / "kernel.json").read_text())
    spec["argv"] = ["/bin/sh", "-c", f'echo $$ > {cg}/cgroup.procs && exec "$0" "$@"'] + spec["argv"]
    spec["display_name"] += " (memory-limited test)"
    kdir = tmp_path / "kernels" / "whygpu-limited"
    kdir.mkdir(parents=True)
    (kdir / "kernel.json").write_text(json.dumps(spec))
    monkeypatch.setenv("JUPYTER_PATH", f"{tmp_path}:{os.environ.get('JUPYTER_PATH', '')}")
    km, kc = start_new_kernel(kernel_name="whygpu-limited", startup_timeout=120)
    try:
        yield km, kc, cg
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
        for _ in range(100):  # the launcher ends everything below the kernel; then the cgroup can go
            try:
                cg.rmdir()
                break
            except OSError:
                import time
                time.sleep(0.1)


def test_budget_uses_the_container_limit_and_a_killed_cell_is_explained(limited_kernel):
    km, kc, cg = limited_kernel
    status, out = run(kc, '%%\nfmt.Println(devices.HostMemoryLimit())\n')
    assert status == "ok", text(out)
    assert "container limit 2.00 GiB (cgroup v" in text(out), text(out)

    # lesson 06's budget refuses a step too large for the container and says which limit it used
    status, out = run(kc, '%%\ndev, err := devices.Open("xla:cpu")\nif err != nil { panic(err) }\n'
                          '_, err = memory.TryTooLarge(dev)\nfmt.Println(err)\n')
    assert status == "ok", text(out)
    assert "refused before allocating" in text(out) and "container limit 2.00 GiB" in text(out), text(out)

    # a cell that really allocates 4 GiB is killed by the kernel's out-of-memory killer ...
    status, out = run(kc, 'import _ "github.com/gpu-course/whygpu/pkg/view/display"\n\n%%\n'
                          'var keep [][]byte\nfor i := 0; i < 64; i++ {\n'
                          '\tb := make([]byte, 64<<20)\n\tfor j := 0; j < len(b); j += 4096 { b[j] = 1 }\n'
                          '\tkeep = append(keep, b)\n}\nfmt.Println("allocated", len(keep)*64, "MiB")\n')
    assert "signal: killed" in text(out), text(out)
    assert "allocated 4096 MiB" not in text(out)
    assert km.is_alive()
    # ... and the next cell, in the same kernel, says what most likely happened and what to lower
    status, out = run(kc, '%%\nfmt.Println("next cell")\n')
    assert status == "ok" and "next cell" in text(out), text(out)
    note = text(out)
    assert "most likely killed for running out of memory" in note, note
    assert "in this container" in note and "container limit 2.00 GiB" in note and "Lower" in note, repr(note)
    # one note per kill: the cell after that is quiet
    status, out = run(kc, '%%\nfmt.Println("quiet")\n')
    assert "out of memory" not in text(out), text(out)
