"""Shared helpers of the classroom tests (docker/tests): the image's set-up, simulated on the bare machine.

No Docker engine runs here, so the tests do on this machine what docker/Dockerfile does, from the same files:
the build context (docker/Dockerfile.dockerignore), the set-up script with the arguments and environment of
docker/setup.env, in the two steps the Dockerfile takes, with fresh Go module and build caches and the
base image's Python when this machine has it. Only the transport differs: Go modules come from this
machine's module cache (same bytes, checked against go.sum) and wheels from its pip cache.
"""
import fnmatch
import glob
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import time

import pytest

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


def image_python(version):
    """An interpreter of the base image's Python version (setup.env WHYGPU_IMAGE_PYTHON), if this machine has one."""
    candidates = [shutil.which(f"python{version}")]
    pyenv_root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    candidates += sorted(glob.glob(f"{pyenv_root}/versions/{version}.*/bin/python{version}"), reverse=True)
    for c in candidates:
        if c and subprocess.run([c, "-c", "import venv, ensurepip"], capture_output=True).returncode == 0:
            return c
    return None


def host_go(var):
    return subprocess.run(["go", "env", var], capture_output=True, text=True, check=True).stdout.strip()


def host_pip_cache():
    out = subprocess.run(["python3", "-m", "pip", "cache", "dir"], capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 else ""


def run(cmd, env, cwd, timeout, log):
    t0 = time.monotonic()
    with open(log, "ab") as f:
        f.write(f"\n$ {' '.join(map(str, cmd))}\n".encode())
        f.flush()
        p = subprocess.run(cmd, env=env, cwd=cwd, stdout=f, stderr=subprocess.STDOUT, timeout=timeout)
    dt = time.monotonic() - t0
    if p.returncode != 0:
        tail = pathlib.Path(log).read_text(errors="replace")[-4000:]
        raise AssertionError(f"{cmd} failed ({p.returncode}) after {dt:.0f}s:\n{tail}")
    return dt


def offline_prefix():
    """`unshare -n` with loopback up: a network namespace with no way out, as in `docker run --network none`."""
    if shutil.which("unshare") and shutil.which("ip"):
        if subprocess.run(["unshare", "-n", "ip", "link", "set", "lo", "up"], capture_output=True).returncode == 0:
            return ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "offline"]
    return []


class Sim:
    """A simulated image: /opt/whygpu and /opt/go under build/_classroom/image/opt, a fresh home."""

    def __init__(self):
        self.base = BUILD / "image"
        self.root = self.base / "opt" / "whygpu"
        self.gopath = self.base / "opt" / "go"
        self.home = self.base / "home" / "jovyan"
        self.log = BUILD / "image-setup.log"
        self.env_file = setup_env()
        self.python = image_python(self.env_file.get("WHYGPU_IMAGE_PYTHON", "3"))
        self.timings = {}

    def build_env(self):
        """The environment of the Dockerfile's set-up RUN steps."""
        env = {
            "PATH": os.environ["PATH"],  # go, gcc, python3 of this machine (the image: /usr/local/go/bin, conda)
            "HOME": str(self.home),
            "LANG": "C.UTF-8",
            "WHYGPU_ROOT": str(self.root),
            "GOPATH": str(self.gopath),
            "GOMODCACHE": str(self.gopath / "pkg" / "mod"),
            "GOCACHE": str(self.gopath / "cache"),
            "GOPLSCACHE": str(self.gopath / "gopls"),  # the Dockerfile's ENV: outside the home volume
            "WHYGPU_CUDA": "0",  # the Dockerfile's ARG default: the CPU image
        }
        env.update(self.env_file)
        if self.python:
            env["WHYGPU_PYTHON"] = self.python
        # transport only: the same module zips and wheels, from this machine's caches
        env["GOPROXY"] = f"file://{host_go('GOMODCACHE')}/cache/download,{host_go('GOPROXY')}"
        cache = host_pip_cache()
        if cache:
            env["PIP_CACHE_DIR"] = cache
        return env

    def runtime_env(self):
        """The container's environment at run time (the Dockerfile's last ENV)."""
        env = self.build_env()
        venv = self.root / ".venv"
        env.update({
            "PATH": f"{venv}/bin:{os.environ['PATH']}",
            "JUPYTER_PATH": str(venv / "share" / "jupyter"),
            "PJRT_PLUGIN_LIBRARY_PATH": str(venv / "lib" / "pjrt"),
            "GOPROXY": "off",
        })
        env.pop("PIP_CACHE_DIR", None)
        env.pop("WHYGPU_PYTHON", None)
        return env

    def build(self):
        if self.base.exists():
            subprocess.run(["chmod", "-R", "u+w", str(self.base)], check=False)
            shutil.rmtree(self.base)
        self.root.mkdir(parents=True)
        self.home.mkdir(parents=True)
        self.log.parent.mkdir(parents=True, exist_ok=True)
        self.log.write_text(f"python for the venv: {self.python or 'python3 (no ' + self.env_file.get('WHYGPU_IMAGE_PYTHON', '') + ' here)'}\n")
        env = self.build_env()
        args = self.env_file.get("WHYGPU_SETUP_ARGS", "").split()
        files = context_files()
        # step 1: the set-up inputs only, then `scripts/setup.sh --no-warm $WHYGPU_SETUP_ARGS`
        inputs = self.env_file["WHYGPU_SETUP_INPUTS"].split()
        step1 = [f for f in files if any(f == i or f.startswith(i.rstrip("/") + "/") for i in inputs)]
        copy_files(step1, self.root)
        self.timings["setup step 1"] = run(["scripts/setup.sh", "--no-warm", *args], env, self.root, 3000, self.log)
        # step 2: the whole context, the stamp removed, `scripts/setup.sh $WHYGPU_SETUP_ARGS`
        copy_files(files, self.root)
        (self.root / ".venv" / ".whygpu-setup").unlink()
        self.timings["setup step 2"] = run(["scripts/setup.sh", *args], env, self.root, 3000, self.log)
        # the course ships read-only (the Dockerfile's chmod), the Go build cache stays writable
        subprocess.run(f"find '{self.root}' -path '{self.root}/.venv' -prune -o -exec chmod a-w {{}} +",
                       shell=True, check=True)
        return self


_SIM = None


@pytest.fixture(scope="session")
def sim():
    global _SIM
    if _SIM is None:
        _SIM = Sim().build()
    yield _SIM
    # leave it for a look, but removable by `make clean` (the go command makes its module cache read-only)
    subprocess.run(["chmod", "-R", "u+w", str(_SIM.base)], check=False)


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
