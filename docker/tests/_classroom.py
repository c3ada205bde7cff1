"""Shared helpers of the classroom tests (docker/tests): paths, docker/setup.env as the Dockerfile reads it,
the image's build context (docker/Dockerfile.dockerignore), the one-machine hub's venv and proxy. The image
itself is built and checked by docker/tests/image (make test-image).
"""
import contextlib
import fnmatch
import glob
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest
import requests

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCKER = ROOT / "docker"
BUILD = ROOT / "build" / "_classroom"  # "_": the go tool skips it in ./... patterns


def setup_env():
    """docker/setup.env as the Dockerfile sees it: `set -a; . docker/setup.env`."""
    out = subprocess.run(
        ["bash", "-c", "set -a; . docker/setup.env; env -0"], cwd=ROOT, env={"PATH": os.environ["PATH"]},
        capture_output=True, check=True,
    ).stdout.decode()
    base = subprocess.run(["bash", "-c", "env -0"], env={"PATH": os.environ["PATH"]},
                          capture_output=True, check=True).stdout.decode()
    before = dict(kv.split("=", 1) for kv in base.split("\0") if "=" in kv)
    after = dict(kv.split("=", 1) for kv in out.split("\0") if "=" in kv)
    return {k: v for k, v in after.items() if before.get(k) != v and k not in ("_", "SHLVL", "PWD", "OLDPWD")}


def dockerignore_patterns():
    pats = []
    for line in (DOCKER / "Dockerfile.dockerignore").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            pats.append(line.rstrip("/"))
    return pats


def ignored(rel, pats):
    parts = rel.split("/")
    for p in pats:
        if p.startswith("**/"):
            if any(fnmatch.fnmatch(part, p[3:]) for part in parts):
                return True
        elif rel == p or rel.startswith(p + "/") or fnmatch.fnmatch(rel, p):
            return True
    return False


def context_files():
    """The files `COPY . /opt/whygpu/` takes: the checkout (as git sees it) less Dockerfile.dockerignore."""
    if (ROOT / ".git").exists():
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             cwd=ROOT, capture_output=True, check=True).stdout.decode()
        files = [f for f in out.split("\0") if f]
    else:
        files = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file()]
    pats = dockerignore_patterns()
    return sorted(f for f in files if not ignored(f, pats) and (ROOT / f).is_file())


def copy_files(files, dest):
    for rel in files:
        src = ROOT / rel
        dst = dest / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)


# --- the one-machine hub, as the teacher installs it (docker/jupyterhub/requirements-hub.txt) ----------
HUB_DIR = DOCKER / "jupyterhub"
HUB_REQS = HUB_DIR / "requirements-hub.txt"
HUB_VENV = BUILD / "hub-venv"
CHP_DIR = BUILD / "chp"
CHP_LOCK = DOCKER / "tests" / "hub" / "package-lock.json"


def hub_venv():
    """A venv with requirements-hub.txt, made as docker/README.md says (again only when the file changed)."""
    stamp = HUB_VENV / "requirements-hub.txt"
    if not (stamp.exists() and stamp.read_bytes() == HUB_REQS.read_bytes()):
        shutil.rmtree(HUB_VENV, ignore_errors=True)
        subprocess.run([os.environ.get("WHYGPU_HUB_PYTHON", "python3"), "-m", "venv", str(HUB_VENV)], check=True)
        subprocess.run([str(HUB_VENV / "bin" / "pip"), "install", "-q", "--disable-pip-version-check",
                        "-r", str(HUB_REQS)], check=True, timeout=1200)
        shutil.copy(HUB_REQS, stamp)
    return HUB_VENV


def use_hub_packages():
    """Make the hub venv's packages (nativeauthenticator, dockerspawner, ...) importable here, after this
    interpreter's own (the same JupyterHub, traitlets and tornado versions come first), for loading the hub
    configs in-process."""
    (site,) = glob.glob(str(hub_venv() / "lib" / "python3*" / "site-packages"))
    if site not in sys.path:
        sys.path.append(site)


def chp():
    """configurable-http-proxy, `npm ci` from the pinned lock file (again only when the lock changed)."""
    if not shutil.which("npm"):
        pytest.fail("npm is not installed: the hub tests need configurable-http-proxy (apt install npm)")
    binary = CHP_DIR / "node_modules" / ".bin" / "configurable-http-proxy"
    stamp = CHP_DIR / "package-lock.json"
    if not (binary.exists() and stamp.exists() and stamp.read_bytes() == CHP_LOCK.read_bytes()):
        shutil.rmtree(CHP_DIR, ignore_errors=True)
        CHP_DIR.mkdir(parents=True)
        shutil.copy(DOCKER / "tests" / "hub" / "package.json", CHP_DIR)
        shutil.copy(CHP_LOCK, CHP_DIR)
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=CHP_DIR, check=True,
                       timeout=600)
    return binary


@contextlib.contextmanager
def hub_process(jupyterhub, config, base, log_path, cwd, env, verify=True, up_within=90):
    """A JupyterHub started with `jupyterhub -f config` in cwd, its output in log_path; yields once its
    API at base answers (the test fails with the log's tail if it exits or stays silent past up_within
    seconds), and stops its whole process group afterwards."""
    log = open(log_path, "w")
    proc = subprocess.Popen([str(jupyterhub), "-f", str(config)], cwd=cwd, env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + up_within
        while True:
            assert proc.poll() is None, pathlib.Path(log_path).read_text()[-4000:]
            try:
                if requests.get(f"{base}/hub/api", timeout=2, verify=verify).status_code == 200:
                    break
            except requests.ConnectionError:
                pass
            assert time.monotonic() < deadline, "the hub did not come up:\n" + pathlib.Path(log_path).read_text()[-4000:]
            time.sleep(0.5)
        yield proc
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()
        end_hub_children(config)


def end_hub_children(config):
    """Ends what a stopped hub left running: its managed services and local seats run in sessions of
    their own (the idle culler outlived `make test`), so they are found by the hub API URL in their
    environment (the config's hub_port) and terminated."""
    import psutil
    m = re.search(r"hub_port\s*=\s*(\d+)", pathlib.Path(config).read_text())
    if not m:
        return
    mark = f"127.0.0.1:{m.group(1)}/hub/api"
    left = []
    for p in psutil.process_iter(["pid"]):
        try:
            if mark in p.environ().get("JUPYTERHUB_API_URL", ""):
                p.terminate()
                left.append(p)
        except psutil.Error:
            pass
    _, alive = psutil.wait_procs(left, timeout=10)
    for p in alive:
        p.kill()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build_context(root=ROOT):
    """What `docker build -f docker/Dockerfile .` sends: every file under root on disk (git's ignore files
    play no part) less what Dockerfile.dockerignore excludes."""
    pats = dockerignore_patterns()
    out = []
    for dirpath, dirs, files in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        rel_dir = "" if rel_dir == "." else rel_dir + "/"
        dirs[:] = [d for d in dirs if not ignored(rel_dir + d, pats)]
        out += [rel_dir + f for f in files if not ignored(rel_dir + f, pats)]
    return sorted(out)
