"""The learners' copies of the notebooks (docker/sync-notebooks.sh and its start hook), against temp dirs.

Each test plays image versions and container starts: the image's read-only notebooks dir is SRC, the
learner's volume is DEST, a start is one run of the script.
"""
import hashlib
import os
import pathlib
import shutil
import stat
import subprocess
import tempfile

import pytest

from _classroom import DOCKER

SCRIPT = DOCKER / "sync-notebooks.sh"
HOOK = DOCKER / "before-notebook.d" / "50-whygpu-notebooks.sh"
DATE = "2026-11-30"


def start(src, dest, date=DATE, env=None):
    """One container start: the sync as the hook runs it."""
    e = dict(os.environ, WHYGPU_SYNC_DATE=date, **(env or {}))
    out = subprocess.run([str(SCRIPT), str(src), str(dest)], env=e, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def image(src, files):
    """An image version: the read-only notebooks dir holds exactly `files`."""
    if src.exists():
        for p in src.rglob("*"):
            p.chmod(0o755 if p.is_dir() else 0o644)
        for p in sorted(src.rglob("*"), reverse=True):
            p.rmdir() if p.is_dir() else p.unlink()
    src.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        p = src / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    for p in src.rglob("*"):
        p.chmod(0o555 if p.is_dir() else 0o444)


def listing(dest):
    return sorted(str(p.relative_to(dest)) for p in dest.rglob("*") if p.is_file() and not p.name.startswith("."))


def read(dest, name):
    return (dest / name).read_text()


@pytest.fixture
def dirs(tmp_path):
    yield tmp_path / "image-notebooks", tmp_path / "home" / "work"
    for p in tmp_path.rglob("*"):
        if p.is_dir():
            p.chmod(0o755)


def test_first_start_copies_every_lesson_writable(dirs):
    src, dest = dirs
    image(src, {"00-setup-check.ipynb": "v1-00", "01-matmul.ipynb": "v1-01", "img/chart.svg": "<svg/>"})
    out = start(src, dest)
    assert listing(dest) == ["00-setup-check.ipynb", "01-matmul.ipynb", "img/chart.svg"]
    assert read(dest, "01-matmul.ipynb") == "v1-01"
    for p in dest.rglob("*.ipynb"):
        assert p.stat().st_mode & stat.S_IWUSR, f"{p} must be writable by the learner"
    assert "3 copied" in out
    manifest = (dest / ".whygpu-lessons.sha256").read_text()
    assert hashlib.sha256(b"v1-01").hexdigest() + "  01-matmul.ipynb" in manifest


def test_restart_changes_nothing(dirs):
    src, dest = dirs
    image(src, {"00-setup-check.ipynb": "v1-00"})
    start(src, dest)
    (dest / "00-setup-check.ipynb").write_text("my edits")
    out = start(src, dest)
    assert read(dest, "00-setup-check.ipynb") == "my edits"
    assert listing(dest) == ["00-setup-check.ipynb"]
    assert "0 copied, 0 updated, 0 new versions" in out


def test_update_keeps_edited_copy_and_puts_new_version_beside(dirs):
    src, dest = dirs
    image(src, {"03-memory.ipynb": "v1"})
    start(src, dest)
    (dest / "03-memory.ipynb").write_text("v1 + my answers")
    image(src, {"03-memory.ipynb": "v2"})  # the image is updated
    out = start(src, dest)
    assert read(dest, "03-memory.ipynb") == "v1 + my answers"
    assert read(dest, "03-memory (updated 2026-11-30).ipynb") == "v2"
    assert "the new version is 03-memory (updated 2026-11-30).ipynb" in out
    # offered once: later starts add no further copies
    start(src, dest, date="2026-12-01")
    assert listing(dest) == ["03-memory (updated 2026-11-30).ipynb", "03-memory.ipynb"]


def test_update_replaces_an_untouched_copy(dirs):
    src, dest = dirs
    image(src, {"02-layernorm.ipynb": "v1"})
    start(src, dest)
    image(src, {"02-layernorm.ipynb": "v2"})
    out = start(src, dest)
    assert read(dest, "02-layernorm.ipynb") == "v2"
    assert listing(dest) == ["02-layernorm.ipynb"]
    assert "updated 02-layernorm.ipynb" in out


def test_second_update_of_an_edited_lesson(dirs):
    src, dest = dirs
    image(src, {"03-memory.ipynb": "v1"})
    start(src, dest)
    (dest / "03-memory.ipynb").write_text("mine")
    image(src, {"03-memory.ipynb": "v2"})
    start(src, dest, date="2026-11-30")
    image(src, {"03-memory.ipynb": "v3"})
    start(src, dest, date="2026-12-07")
    assert read(dest, "03-memory.ipynb") == "mine"
    assert read(dest, "03-memory (updated 2026-11-30).ipynb") == "v2"
    assert read(dest, "03-memory (updated 2026-12-07).ipynb") == "v3"


def test_same_day_name_clash_gets_a_number(dirs):
    src, dest = dirs
    image(src, {"03-memory.ipynb": "v1"})
    start(src, dest)
    (dest / "03-memory.ipynb").write_text("mine")
    (dest / "03-memory (updated 2026-11-30).ipynb").write_text("a file the learner made")
    image(src, {"03-memory.ipynb": "v2"})
    start(src, dest)
    assert read(dest, "03-memory (updated 2026-11-30).ipynb") == "a file the learner made"
    assert read(dest, "03-memory (updated 2026-11-30 2).ipynb") == "v2"


def test_new_lesson_in_an_update_is_added(dirs):
    src, dest = dirs
    image(src, {"00-setup-check.ipynb": "v1"})
    start(src, dest)
    (dest / "00-setup-check.ipynb").write_text("mine")
    image(src, {"00-setup-check.ipynb": "v1", "04-training-step.ipynb": "new"})
    start(src, dest)
    assert listing(dest) == ["00-setup-check.ipynb", "04-training-step.ipynb"]
    assert read(dest, "00-setup-check.ipynb") == "mine"


def test_lesson_removed_from_the_image_stays(dirs):
    src, dest = dirs
    image(src, {"00-a.ipynb": "a", "01-b.ipynb": "b"})
    start(src, dest)
    image(src, {"00-a.ipynb": "a"})
    start(src, dest)
    assert listing(dest) == ["00-a.ipynb", "01-b.ipynb"]
    assert "01-b.ipynb" in (dest / ".whygpu-lessons.sha256").read_text()


def test_deleted_copy_comes_back_fresh(dirs):
    src, dest = dirs
    image(src, {"01-b.ipynb": "b"})
    start(src, dest)
    (dest / "01-b.ipynb").unlink()
    start(src, dest)
    assert read(dest, "01-b.ipynb") == "b"


def test_volume_from_before_the_manifest(dirs):
    """A work dir that already holds a lesson of the same name (no record of a copy): never overwritten."""
    src, dest = dirs
    dest.mkdir(parents=True)
    (dest / "00-a.ipynb").write_text("learner's own")
    (dest / "01-b.ipynb").write_text("b")
    image(src, {"00-a.ipynb": "a", "01-b.ipynb": "b"})
    start(src, dest)
    assert read(dest, "00-a.ipynb") == "learner's own"
    assert read(dest, "00-a (updated 2026-11-30).ipynb") == "a"
    assert listing(dest) == ["00-a (updated 2026-11-30).ipynb", "00-a.ipynb", "01-b.ipynb"]


def as_learner(script, tmp_path):
    """argv running `script` in bash as the container's learner: this user, or `nobody` when we are root
    (as root the hook takes its sudo branch, which needs the image's NB_USER)."""
    if os.getuid() != 0:
        return ["bash", "-c", script]
    if subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "true"],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot drop privileges here")
    for p in [DOCKER.parent, *DOCKER.parent.parents]:
        if not os.stat(p).st_mode & stat.S_IXOTH:
            pytest.skip(f"{p} is not searchable by an unprivileged user")
    for p in [tmp_path, *tmp_path.rglob("*")]:
        if p.is_dir():
            p.chmod(0o777)
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "bash", "-c", script]


@pytest.fixture
def hook_tmp():
    """A temp dir an unprivileged user can reach (pytest's own tmp_path is private to its user)."""
    d = pathlib.Path(tempfile.mkdtemp(prefix="whygpu-hook-"))
    d.chmod(0o777)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def test_hook_never_stops_the_server_from_starting(hook_tmp):
    """The hook is sourced by docker-stacks' start.sh under `set -e`: a failing sync must only warn."""
    home = hook_tmp / "home"
    home.mkdir()
    (home / "work").write_text("a file where the work dir should be")
    script = f'set -e; source "{HOOK}"; echo server-starts'
    env = dict(os.environ, HOME=str(home), WHYGPU_ROOT=str(DOCKER.parent))
    out = subprocess.run(as_learner(script, hook_tmp), env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "server-starts" in out.stdout
    assert "WARNING" in out.stdout


def test_hook_copies_for_the_learner(hook_tmp):
    """The hook as start.sh sources it, as the learner (the container's default user)."""
    home = hook_tmp / "home"
    home.mkdir()
    script = f'set -e; source "{HOOK}"; echo server-starts'
    env = dict(os.environ, HOME=str(home), WHYGPU_ROOT=str(DOCKER.parent), WHYGPU_SYNC_DATE=DATE)
    out = subprocess.run(as_learner(script, hook_tmp), env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "server-starts" in out.stdout
    notebooks = sorted(p.name for p in (DOCKER.parent / "notebooks").glob("*.ipynb"))
    assert notebooks and sorted(p.name for p in (home / "work").glob("*.ipynb")) == notebooks
