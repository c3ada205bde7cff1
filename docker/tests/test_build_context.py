"""The image's build context (what `docker build -f docker/Dockerfile .` sends, Dockerfile.dockerignore
applied) holds no JupyterHub state, even when a hub was run from the checkout.

The Dockerfile COPYs the whole context into the image, and the documented update is "git pull, rebuild":
a hub database and cookie secret in the checkout would ship to every learner, and with them an admin
cookie can be forged. The shipped hub keeps its state outside the checkout (test_hub_login.py runs it
and checks); this test puts state files where a hub started from the checkout would write them and
requires the ignore file to keep every one out.
"""
import pytest

from _classroom import ROOT, build_context

HUB_STATE = ["jupyterhub.sqlite", "jupyterhub.sqlite-journal", "jupyterhub_cookie_secret", "jupyterhub.pid",
             "jupyterhub-proxy.pid", "internal-ssl/hub-ca/hub-ca.key",
             # secrets a teacher keeps beside the checkout (issue 37): TLS key and certificate, an .env for
             # compose, the teachers' first-password file (WHYGPU_TEACHER_PASSWORD_FILE)
             "hub.key", "hub.pem", "hub.crt", ".env", ".env.local", "teacher-password"]
WHERE = ["", "docker/", "docker/jupyterhub/"]  # the repository root (the documented cwd), and the config's folder


@pytest.fixture
def planted():
    made = []
    try:
        for where in WHERE:
            for name in HUB_STATE:
                p = ROOT / where / name
                assert not p.exists(), f"{p} exists in the checkout: hub state; remove it"
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text("secret")
                made.append(p)
        yield [str(p.relative_to(ROOT)) for p in made]
    finally:
        for p in made:
            p.unlink(missing_ok=True)
        for where in WHERE:
            for d in sorted((ROOT / where / "internal-ssl").glob("**/"), reverse=True):
                d.rmdir()


def test_build_context_holds_no_hub_state(planted):
    context = set(build_context())
    leaked = [f for f in planted if f in context]
    assert not leaked, f"the image build would copy hub state: {leaked} (add them to docker/Dockerfile.dockerignore)"
    assert "docker/jupyterhub/jupyterhub_config.py" in context, "the walk missed the context itself"


def test_git_ignores_hub_state(planted):
    import subprocess
    out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--", *planted], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    assert not out.strip(), f"git would offer to commit hub state:\n{out}"
