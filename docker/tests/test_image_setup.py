"""CI builds the image's environment the way docker/Dockerfile does, then uses it with no network.

The Dockerfile cannot be built here (no Docker engine), so this test runs its set-up steps on the bare
machine from the same files (see _classroom.Sim): the build context, docker/setup.env, the two calls of
scripts/setup.sh, fresh Go caches, the base image's Python when present. Then, in a network namespace with
no way out (unshare -n; else GOPROXY=off alone), it runs docker/smoke.sh — the very check a teacher runs in
the built image — which executes notebook 00 through the course kernel and times its first cell.
"""
import os
import re
import subprocess

from _classroom import offline_prefix, sim  # noqa: F401  (sim is a fixture)

# The target: the first cell in under 10 s (measured here: about 2 s). smoke.sh enforces the limit.
FIRST_CELL_MAX = os.environ.get("WHYGPU_SMOKE_FIRST_CELL_MAX", "10")


def test_setup_steps_of_the_dockerfile(sim):
    print(f"venv Python: {sim.python or 'python3 (the image Python is not on this machine)'}; "
          + ", ".join(f"{k} {v:.0f}s" for k, v in sim.timings.items()))
    venv = sim.root / ".venv"
    assert (venv / "lib" / "pjrt" / "pjrt_c_api_cpu_plugin.so").exists()
    assert not (venv / "lib" / "pjrt" / "pjrt_c_api_cuda_plugin.so").exists()
    spec = (venv / "share" / "jupyter" / "kernels" / "whygpu" / "kernel.json").read_text()
    assert f"--go_work={sim.root}" in spec
    if sim.python:
        want = sim.env_file["WHYGPU_IMAGE_PYTHON"]
        got = subprocess.run([str(venv / "bin" / "python"), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, check=True).stdout.strip()
        assert got == want


def test_setup_is_a_noop_when_current(sim):
    out = subprocess.run(["scripts/setup.sh", *sim.env_file.get("WHYGPU_SETUP_ARGS", "").split()],
                         cwd=sim.root, env=sim.build_env(), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "nothing to do" in out.stdout


def test_course_builds_offline_from_the_warm_caches(sim):
    """Every package of the course compiles with GOPROXY=off from the image's module cache, from cache."""
    env = sim.runtime_env()
    out = subprocess.run(offline_prefix() + ["go", "build", "-v", "./..."], cwd=sim.root, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    # -v lists the packages it had to compile: none, the set-up warmed them all
    assert out.stderr.strip() == "", f"not warmed by the set-up: {out.stderr[:2000]}"


def test_smoke_offline(sim):
    """docker/smoke.sh with no network: doctor, jupyterhub-singleuser, notebook copies, notebook 00."""
    env = dict(sim.runtime_env(), WHYGPU_SMOKE_FIRST_CELL_MAX=FIRST_CELL_MAX)
    prefix = offline_prefix()
    out = subprocess.run(prefix + [str(sim.root / "docker" / "smoke.sh")], cwd=sim.home, env=env,
                         capture_output=True, text=True, timeout=900)
    text = out.stdout + out.stderr
    (sim.log.parent / "smoke.log").write_text(text)
    print(("offline (unshare -n)" if prefix else "GOPROXY=off (no unshare here)") + "\n" + text[-1500:])
    assert out.returncode == 0, text[-5000:]
    assert "everything the course needs is here" in text
    assert re.search(r"^6\.\d+\.\d+", text, re.M), "jupyterhub-singleuser --version"
    m = re.search(r"first code cell ([0-9.]+)s", text)
    assert m, text[-2000:]
