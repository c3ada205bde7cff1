"""docker/install-go.sh, as the Dockerfile runs it, on the Go toolchain zip pinned in docker/setup.env.

The zip is the module golang.org/toolchain@v0.0.1-go<version>.linux-amd64, fetched here with the go command
into the module cache (the same bytes the Dockerfile downloads from the Go module proxy; about 70 MB the
first time). The test checks the pinned sha256, the unpacked toolchain's version, and that a wrong sha256
is refused.
"""
import os
import platform
import subprocess

import pytest

from _classroom import DOCKER, ROOT, setup_env


@pytest.fixture(scope="module")
def toolchain_zip():
    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("the image is linux/amd64")
    env = setup_env()
    mod = f"golang.org/toolchain@v0.0.1-go{env['WHYGPU_GO_VERSION']}.linux-amd64"
    out = subprocess.run(["go", "mod", "download", "-json", mod], capture_output=True, text=True, timeout=600,
                         env=dict(os.environ, GOFLAGS="-mod=mod", GOTOOLCHAIN="local"), cwd="/")
    assert out.returncode == 0, out.stdout + out.stderr
    import json
    return json.loads(out.stdout)["Zip"], env


def test_go_version_matches_go_mod():
    env = setup_env()
    go_line = next(l for l in (ROOT / "go.mod").read_text().splitlines() if l.startswith("go "))
    assert go_line.split()[1] == env["WHYGPU_GO_VERSION"], "docker/setup.env WHYGPU_GO_VERSION must match go.mod"


def test_install_go(toolchain_zip, tmp_path):
    zip_path, env = toolchain_zip
    dest = tmp_path / "usr-local-go"
    out = subprocess.run([str(DOCKER / "install-go.sh"), zip_path, env["WHYGPU_GO_ZIP_SHA256"], str(dest)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    v = subprocess.run([str(dest / "bin" / "go"), "version"], capture_output=True, text=True,
                       env=dict(os.environ, GOTOOLCHAIN="local"), cwd=tmp_path).stdout
    assert f"go{env['WHYGPU_GO_VERSION']} linux/amd64" in v
    assert os.access(dest / "pkg" / "tool" / "linux_amd64" / "compile", os.X_OK)


def test_install_go_refuses_a_wrong_checksum(toolchain_zip, tmp_path):
    zip_path, _ = toolchain_zip
    out = subprocess.run([str(DOCKER / "install-go.sh"), zip_path, "0" * 64, str(tmp_path / "go")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and "sha256 mismatch" in out.stderr
    assert not (tmp_path / "go").exists()
