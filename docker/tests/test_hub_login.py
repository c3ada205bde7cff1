"""The classroom hub's security, on the real JupyterHub with the real authenticator and config.

The one-machine hub runs as the teacher runs it: `jupyterhub -f docker/jupyterhub/jupyterhub_config.py`
from a venv of requirements-hub.txt (JupyterHub 6.1.1, NativeAuthenticator 1.3.0, DockerSpawner), with
the repository root as its working directory. Only what this machine lacks is swapped, in a wrapper
config that loads the real one first: the ports, configurable-http-proxy from npm, and a local-process
spawner running the course's own jupyterhub-singleuser instead of a Docker container. Through HTTP, as a
browser does, the tests sign learners up, approve them as the teacher, log in, make tokens, and check:

- a learner cannot log in as another learner or as a teacher; a wrong password is refused, and repeated
  failures lock the name out (even with the right password afterwards);
- a learner's token cannot reach another learner's server, nor the admin API (403);
- without subdomains, even a teacher cannot open a learner's server (origin isolation);
- no more servers run than the seat limit;
- with a certificate the hub serves https only, and its login cookies are Secure;
- the hub leaves no state in the checkout, and refuses to start without its secrets, with its state
  inside the checkout, or listening beyond loopback without TLS.

The Zero to JupyterHub values are loaded as the chart's hub loads them, and must configure the same login.
"""
import contextlib
import importlib.util
import json
import os
import re
import secrets
import subprocess
import sys
import time

import pytest
import requests
import yaml
from traitlets.config import Config

import _classroom
from _classroom import BUILD, HUB_DIR, ROOT, free_port

VALUES = HUB_DIR / "z2jh-values.yaml"
COURSE_VENV = ROOT / ".venv"
TEACHER_PW = "the teacher's own secret"
PASSWORDS = {"ada": "ada's long passphrase", "bo": "bo keeps another one", "cy": "cy's own passphrase"}


@pytest.fixture(scope="module")
def hub_python():
    return str(_classroom.hub_venv() / "bin" / "python")


def hub_env(tmp, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("WHYGPU_")}
    env.update({
        "PATH": f"{_classroom.HUB_VENV}/bin:{os.environ['PATH']}",
        "WHYGPU_TEACHERS": "teacher",
        "WHYGPU_TEACHER_PASSWORD": TEACHER_PW,
        "WHYGPU_HUB_STATE": str(tmp / "state"),
        "WHYGPU_HUB_CONNECT_IP": "127.0.0.1",
        "WHYGPU_GPUS": "",
    })
    env.update(extra)
    return env


HUB_STATE_NAMES = ("jupyterhub.sqlite", "jupyterhub_cookie_secret", "jupyterhub.pid", "jupyterhub-proxy.pid",
                   "internal-ssl")


def checkout_files():
    """What a hub could leave in the checkout: every file in its working directory (the repository root)
    and its config's folder, and anything named like hub state anywhere (git's own files, the build
    outputs and the venv aside)."""
    out = {p.name for p in ROOT.iterdir() if p.is_file()} | \
          {f"docker/jupyterhub/{p.name}" for p in HUB_DIR.iterdir() if p.is_file()}
    for dirpath, dirs, files in os.walk(ROOT):
        if dirpath == str(ROOT):
            dirs[:] = [d for d in dirs if d not in (".git", "build", ".venv")]
        for name in files + dirs:
            if name.startswith(HUB_STATE_NAMES):
                out.add(os.path.relpath(os.path.join(dirpath, name), ROOT))
    return out


# --- the real hub ------------------------------------------------------------------------------------
@contextlib.contextmanager
def running_hub(tmp, scheme="http", verify=True, **env):
    """The real hub, as the teacher starts it, with only what this machine lacks swapped (module docstring)."""
    if not (COURSE_VENV / "bin" / "jupyterhub-singleuser").exists():
        pytest.fail("the course environment is not set up (make setup): its jupyterhub-singleuser serves the seats")
    chp = _classroom.chp()
    port, hub_port, api_port = free_port(), free_port(), free_port()
    wrapper = tmp / "jupyterhub_config.py"
    wrapper.write_text(f"""
c = get_config()  # noqa
load_subconfig({str(HUB_DIR / "jupyterhub_config.py")!r})
# what this machine lacks: ports of its own, the proxy from npm, local processes instead of containers
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.command = [{str(chp)!r}]
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = "{tmp}/home/{{username}}"
c.Spawner.cmd = [{str(COURSE_VENV / "bin" / "jupyterhub-singleuser")!r}]
c.Spawner.args = {["--allow-root"] if os.getuid() == 0 else []!r}
c.Spawner.default_url = "/lab"
c.Spawner.pre_spawn_hook = None   # the Docker network check and device choice: test_jupyterhub_config.py
c.Spawner.post_stop_hook = None
""")
    log_path = BUILD / f"hub-login-{scheme}.log"
    base = f"{scheme}://127.0.0.1:{port}"
    with _classroom.hub_process(_classroom.HUB_VENV / "bin" / "jupyterhub", wrapper, base, log_path, ROOT,
                                hub_env(tmp, WHYGPU_HUB_URL=base, **env), verify=verify):
        yield {"base": base, "state": tmp / "state", "log": log_path}

@pytest.fixture(scope="module")
def hub(hub_python, tmp_path_factory):
    before = checkout_files()
    with running_hub(tmp_path_factory.mktemp("hub-login"), WHYGPU_MAX_SEATS="1") as h:
        yield dict(h, before=before)


def test_tls_when_a_certificate_is_given(hub_python, tmp_path):
    """With WHYGPU_SSL_CERT/KEY the hub serves https only, and its login cookie is Secure."""
    cert, key = tmp_path / "hub.crt", tmp_path / "hub.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    with running_hub(tmp_path, "https", verify=str(cert), WHYGPU_SSL_CERT=str(cert), WHYGPU_SSL_KEY=str(key)) as h:
        with pytest.raises(requests.ConnectionError):
            requests.get(h["base"].replace("https://", "http://") + "/hub/api", timeout=10)
        s = requests.Session()
        s.get(h["base"] + "/hub/login", timeout=30, verify=str(cert))
        r = s.post(h["base"] + "/hub/login", data={"username": "teacher", "password": TEACHER_PW, "_xsrf": xsrf(s)},
                   allow_redirects=False, timeout=30, verify=str(cert))
        assert r.status_code == 302, r.text[:500]
        login_cookies = [c for c in s.cookies if c.name.startswith("jupyterhub-")]
        assert login_cookies and all(c.secure for c in login_cookies), [(c.name, c.secure) for c in s.cookies]


def browser(hub):
    s = requests.Session()
    s.get(hub["base"] + "/hub/login", timeout=30)  # the _xsrf cookie
    return s


def xsrf(s):
    return s.cookies.get("_xsrf", path="/hub/") or s.cookies.get("_xsrf")


def login(hub, name, password):
    """A browser session logged in as name, or None when the hub refuses."""
    s = browser(hub)
    r = s.post(hub["base"] + "/hub/login", data={"username": name, "password": password, "_xsrf": xsrf(s)},
               allow_redirects=False, timeout=30)
    if r.status_code == 302:
        return s
    assert r.status_code == 200 and "Invalid username or password" in r.text or "not been authorized" in r.text, \
        f"login as {name!r}: {r.status_code}, not a refusal:\n" + r.text[:1000]
    return None


def sign_up(hub, name, password):
    s = browser(hub)
    s.get(hub["base"] + "/hub/signup", timeout=30)
    r = s.post(hub["base"] + "/hub/signup", data={
        "username": name, "signup_password": password, "signup_password_confirmation": password,
        "_xsrf": xsrf(s)}, timeout=30)
    assert r.status_code == 200, r.text[:500]
    return r.text


def token_for(session, hub, name):
    r = session.post(f"{hub['base']}/hub/api/users/{name}/tokens", json={"note": "test"},
                     headers={"X-XSRFToken": xsrf(session)}, timeout=30)
    assert r.status_code == 201, r.text
    return r.json()["token"]


def api(hub, token, method, path, **kw):
    return requests.request(method, hub["base"] + path, headers={"Authorization": f"token {token}"},
                            timeout=30, allow_redirects=False, **kw)


@pytest.fixture(scope="module")
def learners(hub):
    """ada, bo and cy signed up; the teacher approves ada and bo (cy waits)."""
    for name, pw in PASSWORDS.items():
        sign_up(hub, name, pw)
    teacher = login(hub, "teacher", TEACHER_PW)
    assert teacher, "the teacher's account (from WHYGPU_TEACHER_PASSWORD) does not log in:\n" + \
        hub["log"].read_text()[-3000:]
    for name in ("ada", "bo"):
        r = teacher.get(f"{hub['base']}/hub/authorize/{name}", timeout=30)
        assert r.status_code == 200, r.text[:500]
    return teacher


def test_teacher_account_exists_before_anyone_signs_up(hub):
    page = sign_up(hub, "teacher", "a learner's attempt at it")
    assert not login(hub, "teacher", "a learner's attempt at it"), "a sign-up took over the teacher's name"
    assert "already in use" in page, page[:1000]


def test_a_sign_up_waits_for_the_teacher(hub, learners):
    assert not login(hub, "cy", PASSWORDS["cy"]), "an unapproved sign-up logged in"
    assert login(hub, "ada", PASSWORDS["ada"]) and login(hub, "bo", PASSWORDS["bo"])


def test_a_learner_cannot_log_in_as_another(hub, learners):
    for name, pw in [("bo", PASSWORDS["ada"]), ("ada", PASSWORDS["bo"]), ("teacher", PASSWORDS["ada"]),
                     ("Bo", PASSWORDS["ada"]), ("ada", ""), ("", PASSWORDS["ada"]), ("ada", PASSWORDS["ada"][:-1])]:
        assert not login(hub, name, pw), f"{name!r} got in with {pw!r}"


def test_repeated_failures_lock_the_name_out(hub, learners):
    from_config = _classroom.HUB_DIR / "course_login.py"
    failures = int(re.search(r"^FAILED_LOGINS = (\d+)", from_config.read_text(), re.M).group(1))
    assert login(hub, "bo", PASSWORDS["bo"])
    for _ in range(failures):
        assert not login(hub, "bo", "not bo's password")
    assert not login(hub, "bo", PASSWORDS["bo"]), f"{failures} wrong passwords, and the right one still works"
    assert login(hub, "ada", PASSWORDS["ada"]), "locking bo locked others out too"


def test_tokens_reach_only_their_own_server(hub, learners):
    ada_s = login(hub, "ada", PASSWORDS["ada"])
    ada = token_for(ada_s, hub, "ada")
    cy_pw, name = PASSWORDS["cy"], "cy"
    learners.get(f"{hub['base']}/hub/authorize/{name}", timeout=30)  # the teacher approves cy now
    cy = token_for(login(hub, name, cy_pw), hub, name)
    teacher = token_for(learners, hub, "teacher")

    r = api(hub, ada, "POST", "/hub/api/users/ada/server")
    assert r.status_code in (201, 202), r.text
    deadline = time.monotonic() + 120
    while not api(hub, ada, "GET", "/hub/api/users/ada").json().get("servers", {}).get("", {}).get("ready"):
        assert time.monotonic() < deadline, "ada's server did not start:\n" + hub["log"].read_text()[-3000:]
        time.sleep(1)
    try:
        assert api(hub, ada, "GET", "/user/ada/api/status").status_code == 200
        # another learner's token, at her server and at the hub's admin API
        assert api(hub, cy, "GET", "/user/ada/api/status").status_code == 403
        assert api(hub, cy, "GET", "/user/ada/api/contents/").status_code == 403
        assert api(hub, cy, "GET", "/hub/api/users").status_code == 403
        assert api(hub, cy, "POST", "/hub/api/users/mallory").status_code == 403
        assert api(hub, cy, "DELETE", "/hub/api/users/ada/server").status_code in (403, 404)
        assert api(hub, cy, "POST", "/hub/api/users/ada/tokens", json={}).status_code in (403, 404)
        assert api(hub, cy, "PATCH", "/hub/api/users/cy", json={"admin": True}).status_code == 403
        # without subdomains, not even the teacher opens a learner's server (it shares the hub's origin)
        assert api(hub, teacher, "GET", "/hub/api/users").status_code == 200
        assert api(hub, teacher, "GET", "/user/ada/api/status").status_code == 403
        # one seat on this hub (WHYGPU_MAX_SEATS=1): a second server waits
        assert api(hub, cy, "POST", "/hub/api/users/cy/server").status_code == 429
    finally:
        api(hub, ada, "DELETE", "/hub/api/users/ada/server")


def test_hub_state_stays_out_of_the_checkout(hub, learners):
    state = hub["state"]
    assert (state / "jupyterhub.sqlite").exists() and (state / "jupyterhub_cookie_secret").exists()
    assert oct(state.stat().st_mode & 0o777) == "0o700"
    new = checkout_files() - hub["before"]
    assert not new, f"the hub wrote into the checkout: {sorted(new)}"


# --- the hub refuses to start ------------------------------------------------------------------------
@pytest.mark.parametrize("env, why", [
    ({"WHYGPU_TEACHER_PASSWORD": ""}, "WHYGPU_TEACHER_PASSWORD"),
    ({"WHYGPU_TEACHER_PASSWORD": "short"}, "WHYGPU_TEACHER_PASSWORD"),
    ({"WHYGPU_TEACHERS": ""}, "WHYGPU_TEACHERS"),
    ({"WHYGPU_HUB_URL": "http://:8000"}, "without TLS"),
    ({"WHYGPU_HUB_URL": "http://0.0.0.0:8000"}, "without TLS"),
    ({"WHYGPU_HUB_URL": "https://:8000"}, "WHYGPU_SSL_CERT"),
    ({"WHYGPU_SSL_CERT": "/nonexistent.crt"}, "WHYGPU_SSL_KEY"),
    ({"WHYGPU_HUB_STATE": str(ROOT / "hub-state")}, "inside the checkout"),
], ids=["no teacher password", "short password", "no teachers", "all interfaces, http", "0.0.0.0, http",
        "https without a certificate", "certificate without key", "state in the checkout"])
def test_hub_refuses_to_start(hub_python, tmp_path, env, why):
    p = subprocess.run([str(_classroom.HUB_VENV / "bin" / "jupyterhub"), "-f", str(HUB_DIR / "jupyterhub_config.py")],
                       cwd=ROOT, env=hub_env(tmp_path, **env), capture_output=True, text=True, timeout=120)
    assert p.returncode != 0, p.stdout[-2000:] + p.stderr[-2000:]
    assert why in p.stderr + p.stdout, p.stderr[-2000:]
    assert not (ROOT / "hub-state").exists()


def test_plain_http_beyond_loopback_only_when_the_teacher_says_so(hub_python, tmp_path):
    """WHYGPU_ALLOW_HTTP=yes: the config loads (the hub itself is not started)."""
    code = ("from traitlets.config.loader import PyFileConfigLoader as L; "
            f"c = L('jupyterhub_config.py', path={str(HUB_DIR)!r}).load_config(); print(c.JupyterHub.bind_url)")
    p = subprocess.run([hub_python, "-c", code], env=hub_env(tmp_path, WHYGPU_HUB_URL="http://:8000",
                                                             WHYGPU_ALLOW_HTTP="yes"),
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout.strip() == "http://:8000", p.stderr[-2000:]


# --- Zero to JupyterHub -------------------------------------------------------------------------------
def load_z2jh(monkeypatch, env):
    """What the chart's hub does with the values: hub.config into the config, the pod's env (secrets
    resolved), the mounted extraFiles importable, extraConfig run with `c`."""
    _classroom.use_hub_packages()  # the chart's hub image ships nativeauthenticator
    values = yaml.safe_load(VALUES.read_text())
    hub = values["hub"]
    c = Config(hub.get("config") or {})
    pod_env = {}
    for name, spec in (hub.get("extraEnv") or {}).items():
        if isinstance(spec, dict):
            ref = spec["valueFrom"]["secretKeyRef"]
            assert ref["name"] == "whygpu-class", ref
            if name not in env:
                raise SystemExit(f"secret {ref} missing: the pod does not start (CreateContainerConfigError)")
            pod_env[name] = env[name]
        else:
            pod_env[name] = env.get(name, str(spec))
    (mount,) = [f["mountPath"] for f in hub["extraFiles"].values()]
    assert mount.endswith("/course_login.py")
    spec = importlib.util.spec_from_file_location("course_login", HUB_DIR / "course_login.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setitem(sys.modules, "course_login", mod)
    monkeypatch.setattr("os.environ", pod_env)
    for code in hub["extraConfig"].values():
        exec(compile(code, "extraConfig", "exec"), {"c": c, "get_config": lambda: c})
    return c, values


@pytest.mark.parametrize("env", [{}, {"WHYGPU_TEACHER_PASSWORD": "short"}], ids=["no secret", "short"])
def test_z2jh_refuses_to_start_without_its_secret(monkeypatch, env):
    with pytest.raises(SystemExit) as e:
        load_z2jh(monkeypatch, env)
    assert "WHYGPU_TEACHER_PASSWORD" in str(e.value) or "secret" in str(e.value)


def test_z2jh_configures_the_same_login_as_one_machine(monkeypatch, hub_python, tmp_path):
    one_machine_env = hub_env(tmp_path)
    c, values = load_z2jh(monkeypatch, {"WHYGPU_TEACHER_PASSWORD": TEACHER_PW})
    assert c.JupyterHub.authenticator_class.__name__ == "CourseAuthenticator"
    assert c.CourseAuthenticator.teachers == {"teacher"}
    (teacher_role,) = [r for r in c.JupyterHub.load_roles if r["name"] == "teacher"]
    assert teacher_role["users"] == ["teacher"] and "access:servers" not in teacher_role["scopes"]
    native = dict(c.NativeAuthenticator)
    assert native["open_signup"] is False and native["allowed_failed_logins"] > 0
    cfg = values["hub"].get("config") or {}
    assert "dummy" not in str(cfg).lower() and "allow_all" not in str(cfg)
    # the one-machine hub's login is the same
    code = ("import json; from traitlets.config.loader import PyFileConfigLoader as L; "
            f"c = L('jupyterhub_config.py', path={str(HUB_DIR)!r}).load_config(); "
            "print(json.dumps([dict(c.NativeAuthenticator), [r for r in c.JupyterHub.load_roles if r['name'] == 'teacher']]))")
    p = subprocess.run([hub_python, "-c", code], env=one_machine_env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr[-2000:]
    assert json.loads(p.stdout) == [native, [teacher_role]]


def test_z2jh_values_secure_defaults():
    """TLS, seats isolated from each other and from the internet, whole cores, GPU nodes pre-pulled."""
    v = yaml.safe_load(VALUES.read_text())
    https = v["proxy"]["https"]
    assert https["enabled"] and https["hosts"] and (https.get("letsencrypt") or https.get("type") == "secret")
    su = v["singleuser"]
    assert su["networkPolicy"]["enabled"] and su["networkPolicy"]["egressAllowRules"]["nonPrivateIPs"] is False
    assert su["cpu"]["guarantee"] == su["cpu"]["limit"] == int(su["cpu"]["limit"]), "static CPU manager: whole cores"
    assert su["memory"]["guarantee"] == su["memory"]["limit"], "a Guaranteed pod"
    (gpu,) = [p["kubespawner_override"] for p in su["profileList"] if "kubespawner_override" in p]
    assert gpu["cpu_guarantee"] == gpu["cpu_limit"] and gpu["mem_guarantee"] == gpu["mem_limit"]
    for t in gpu["tolerations"]:
        assert t in v["prePuller"]["extraTolerations"], f"the pre-puller does not tolerate {t}: GPU nodes pull at login"
    sc = v["hub"]["config"]["KubeSpawner"]["container_security_context"]
    assert sc["capabilities"]["drop"] == ["ALL"] and sc["allowPrivilegeEscalation"] is False
    assert v["hub"]["config"]["JupyterHub"]["active_server_limit"] > 0
