"""The classroom image, built for real (docker/tests/image/build.sh: buildah on the stand-in base) and checked
from inside, with no network, as the learner (uid 1000): `make test-image`.

Each check runs in a container of the built image with `buildah run --isolation chroot`, inside
`unshare -n` (a network namespace with only loopback: as `docker run --network none`), so nothing can be
downloaded. A build that fails, or a tool that is missing, fails the test: nothing here skips.
"""
import os
import pathlib
import re
import subprocess
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = pathlib.Path(os.environ.get("WHYGPU_IMAGE_OUT", ROOT / "build" / "image"))
TAG = os.environ.get("WHYGPU_IMAGE_TAG", "localhost/whygpu:test")
BASE_TAG = "localhost/whygpu-standin-base:trixie"  # build.sh
# smoke.sh's limit for the first cell (a learner's 2-core laptop); raise it on a machine loaded by others.
# A regression guard, not the target: notebook 00's first cell took 9.0 s in the image on the
# 2-core machine (load falling 13 → 2), against smoke.sh's 10 s for a teacher's server; the test
# allows 20 s so a CI machine's noise does not fail it, and prints the measured time.
FIRST_CELL_MAX = os.environ.get("WHYGPU_SMOKE_FIRST_CELL_MAX", "20")
LEARNER = "1000:100"


class Image:
    def __init__(self, ctr, mnt, build_seconds):
        self.ctr, self.mnt, self.build_seconds = ctr, pathlib.Path(mnt), build_seconds

    def run(self, cmd, user=LEARNER, workdir=None, timeout=600, env=()):
        """Run cmd (a shell line) in the container, offline, as user; return (rc, stdout+stderr)."""
        inner = ["buildah", "run", "--isolation", "chroot", "--user", user]
        if workdir:
            inner += ["--workingdir", workdir]
        for e in env:
            inner += ["--env", e]
        inner += [self.ctr, "--", "bash", "-c", cmd]
        p = subprocess.run(["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "offline", *inner],
                           capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout + p.stderr

    def ok(self, cmd, **kw):
        rc, out = self.run(cmd, **kw)
        assert rc == 0, f"{cmd!r} failed ({rc}) in the image:\n{out[-5000:]}"
        return out


@pytest.fixture(scope="module")
def image():
    t0 = time.monotonic()
    if os.environ.get("WHYGPU_IMAGE_REUSE") != "1":  # 1: check the image build.sh made before, as it is
        p = subprocess.run([str(ROOT / "docker" / "tests" / "image" / "build.sh")], capture_output=True,
                           text=True, timeout=2700)  # a hang guard, not a time target
        print(p.stdout[-3000:])
        assert p.returncode == 0, f"the image did not build:\n{p.stdout[-3000:]}\n{p.stderr[-6000:]}"
    seconds = time.monotonic() - t0
    ctr = subprocess.run(["buildah", "from", "--pull-never", TAG], capture_output=True, text=True, check=True).stdout.strip()
    mnt = subprocess.run(["buildah", "mount", ctr], capture_output=True, text=True, check=True).stdout.strip()
    try:
        yield Image(ctr, mnt, seconds)
    finally:
        subprocess.run(["buildah", "rm", ctr], capture_output=True)


def test_offline(image):
    """The checks run with no network at all."""
    rc, out = image.run("exec 3<>/dev/tcp/proxy.golang.org/443", timeout=60)
    assert rc != 0, "the container reached the network"


def test_smoke(image):
    """docker/smoke.sh, the teacher's check: doctor, jupyterhub-singleuser, notebook copies, JupyterLab
    answering (and the image's healthcheck), notebook 00 through the course kernel, its first cell timed."""
    out = image.ok("/opt/whygpu/docker/smoke.sh", workdir="/home/jovyan", timeout=900,
                   env=[f"WHYGPU_SMOKE_FIRST_CELL_MAX={FIRST_CELL_MAX}"])
    (OUT / "smoke.log").write_text(out)
    print(out[-2500:])
    assert "everything the course needs is here" in out
    assert re.search(r"^\d+\.\d+\.\d+", out, re.M), "jupyterhub-singleuser --version"
    assert "default kernel whygpu" in out, "the image's Jupyter config (/etc/jupyter) makes whygpu the default"
    assert "healthcheck (/etc/jupyter/docker_healthcheck.py) passes" in out
    m = re.search(r"first code cell ([0-9.]+)s", out)
    assert m, out[-2000:]
    assert "smoke test passed" in out


def test_make_doctor(image):
    out = image.ok("make doctor", workdir="/opt/whygpu", timeout=300)
    assert "everything the course needs is here" in out, out[-3000:]


def test_course_builds_offline_from_the_warm_caches(image):
    """Every course package compiles with GOPROXY=off from the image's module cache, and from its build cache."""
    out = image.ok("go env GOPROXY GOFLAGS && go build -v ./... 2>&1", workdir="/opt/whygpu", timeout=600)
    lines = out.splitlines()
    # The course kernel's flags (docker/setup.env, kernels/whygpu/kernel.json.tmpl): the warm cache is theirs.
    assert lines[:2] == ["off", "-buildvcs=false '-ldflags=-s -w -linkmode=internal'"], out[:500]
    # -v names every package it had to compile: none, the set-up warmed them all
    assert len(lines) == 2, f"not warmed by the image's set-up: {out[:2000]}"


def test_setup_is_current(image):
    """The set-up in the image is complete: the script finds nothing to do (and writes nothing)."""
    out = image.ok("/opt/whygpu/scripts/setup.sh", workdir="/opt/whygpu", timeout=120)
    assert "nothing to do" in out, out


def test_course_read_only_work_writable(image):
    """The course ships read-only; the learner writes in ~/work, and Go (GoNB) in the build cache."""
    image.ok("cd ~ && /usr/local/bin/start.sh true", timeout=120)  # the start hook, as the learner
    out = image.ok(
        "for f in /opt/whygpu/notebooks/00-setup-check.ipynb /opt/whygpu/go.mod /opt/whygpu/new-file "
        "/opt/whygpu/notebooks/new-file; do if (: >> \"$f\") 2>/dev/null; then echo \"WRITABLE $f\"; fi; done; "
        "ls ~/work/*.ipynb | wc -l; "
        ": >> ~/work/00-setup-check.ipynb && touch ~/work/mine.txt && echo work-ok; "
        "f=\"$(go env GOCACHE)/whygpu-test\" && touch \"$f\" && rm \"$f\" && echo gocache-ok")
    assert "WRITABLE" not in out, out
    assert "work-ok" in out and "gocache-ok" in out, out
    n = int(out.split()[0])
    want = len(list((ROOT / "notebooks").glob("*.ipynb")))
    assert n == want, f"~/work has {n} notebooks, the course {want}"


def test_home_belongs_to_the_learner(image):
    """Nothing in the learner's home belongs to another user (a root-owned ~/.config would refuse them
    ~/.config/go/env, matplotlib's or git's settings)."""
    out = image.ok("find /home/jovyan ! -user 1000 -printf '%u %p\\n'", user="0:0")
    assert out.strip() == "", out


def test_start_as_root_hands_over_to_the_learner(image):
    """Started as root (JupyterHub's DockerSpawner may), the start script runs the course's hook, which
    copies the notebooks as the learner, and runs the server as the learner."""
    out = image.ok("rm -rf /home/jovyan/work && cd /home/jovyan && /usr/local/bin/start.sh "
                   "bash -c 'echo \"server uid $(id -u), notebooks uid $(stat -c %u ~/work/00-setup-check.ipynb)\"'",
                   user="0:0", timeout=120)
    # (sudo may also say it cannot resolve the container's host name: buildah run adds none to /etc/hosts)
    assert "server uid 1000, notebooks uid 1000" in out, out


def test_venv_python_is_the_base_images(image):
    want = subprocess.run(["bash", "-c", ". docker/setup.env && echo $WHYGPU_IMAGE_PYTHON"], cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout.strip()
    out = image.ok("/opt/whygpu/.venv/bin/python -c 'import sys; print(\"%d.%d\" % sys.version_info[:2])'")
    assert out.strip() == want


def test_jupyter_settings(image):
    """The image's server settings are read (the course kernel by default, the learner's ~/work first)."""
    out = image.ok("cd /tmp && jupyter server --show-config-json 2>/dev/null")
    assert '"default_kernel_name": "whygpu"' in out, out[-2000:]
    assert '"default_url": "/lab/tree/work"' in out, out[-2000:]


def test_image_config(image):
    """What Docker reads from the image: the healthcheck, the learner, the network-free Go settings."""
    out = subprocess.run(["buildah", "inspect", "--type", "image", "--format",
                          "{{.Docker.Config.User}}|{{.Docker.Config.Healthcheck.Test}}|{{.Docker.Config.Env}}", TAG],
                         capture_output=True, text=True, check=True).stdout
    user, health, env = out.split("|", 2)
    assert user.strip() == "1000"
    assert "/etc/jupyter/docker_healthcheck.py" in health
    for want in ("GOPROXY=off", "GOTOOLCHAIN=local", "GOMLX_NO_AUTO_INSTALL=1", "WHYGPU_ROOT=/opt/whygpu"):
        assert want in env, env


# Names of hub state and secrets that must never be in an image: JupyterHub's database, cookie secret and
# proxy token, private keys, env files with passwords, credentials, a git checkout.
SECRET_NAMES = re.compile(r"^(jupyterhub\.sqlite|jupyterhub_cookie_secret|jupyterhub-proxy\.pid|proxy_auth_token|"
                          r".*\.key|.*\.pem|id_rsa.*|id_ed25519.*|\.env|\.git-credentials|\.netrc|\.git|\.gitconfig)$")


def test_no_hub_state_or_secret(image):
    found = []
    for base in ("opt/whygpu", "opt/go", "home", "root", "etc/jupyter", "srv", "tmp"):
        for dirpath, dirnames, filenames in os.walk(image.mnt / base):
            rel = dirpath[len(str(image.mnt)):]
            if "/site-packages/" in rel + "/" or rel.startswith("/opt/go/pkg/mod"):
                continue  # third-party test fixtures (certifi's bundle, tornado's test keys, Go modules' testdata)
            found += [f"{rel}/{n}" for n in filenames + dirnames if SECRET_NAMES.match(n)]
    assert not found, f"hub state or secrets in the image: {found}"


def test_build_transport_left_nothing(image):
    """The build's transport (pip settings and cache, this machine's CA bundle) is not in the image."""
    conf = image.mnt / "etc" / "pip.conf"
    assert not conf.exists() or conf.stat().st_size == 0, conf.read_text()
    assert not any((image.mnt / "var" / "cache" / "whygpu-pip").glob("*"))
    assert not (image.mnt / "home" / "jovyan" / ".cache" / "pip").exists()
    base = subprocess.run(["buildah", "from", "--pull-never", BASE_TAG], capture_output=True, text=True,
                          check=True).stdout.strip()
    try:
        bmnt = pathlib.Path(subprocess.run(["buildah", "mount", base], capture_output=True, text=True,
                                           check=True).stdout.strip())
        ca = "etc/ssl/certs/ca-certificates.crt"
        assert (image.mnt / ca).read_bytes() == (bmnt / ca).read_bytes(), "the image's CA bundle is not the base's"
    finally:
        subprocess.run(["buildah", "rm", base], capture_output=True)
    # the checkout's own environment was not copied in (Dockerfile.dockerignore): the venv is the image's
    spec = (image.mnt / "opt/whygpu/.venv/share/jupyter/kernels/whygpu/kernel.json").read_text()
    assert "--go_work=/opt/whygpu" in spec and str(ROOT) not in spec, spec


def test_sizes(image):
    """Report the image's size and its parts (recorded in the test log, for docker/README.md)."""
    out = subprocess.run(["buildah", "images", "--format", "{{.Size}}", TAG], capture_output=True, text=True,
                         check=True).stdout.strip()
    parts = image.ok("du -sh /opt/whygpu/.venv /opt/go/pkg/mod /opt/go/cache /usr/local/go 2>/dev/null", user="0:0")
    print(f"image {TAG}: {out}; build {image.build_seconds:.0f}s\n{parts}")
    (OUT / "sizes.txt").write_text(f"{out}\n{parts}")
