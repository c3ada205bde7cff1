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
TEACHER_PW = "the teachers' first secret"    # from WHYGPU_TEACHER_PASSWORD_FILE
TEACHER_OWN = "the teacher's own, chosen at first login"
PASSWORDS = {"ada": "ada's long passphrase", "bo": "bo keeps another one", "cy": "cy's own passphrase"}


@pytest.fixture(scope="module")
def hub_python():
    return str(_classroom.hub_venv() / "bin" / "python")


def hub_env(tmp, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("WHYGPU_")}
    pw_file = tmp / "teacher-password"
    pw_file.write_text(TEACHER_PW + "\n")
    pw_file.chmod(0o600)
    env.update({
        "PATH": f"{_classroom.HUB_VENV}/bin:{os.environ['PATH']}",
        "WHYGPU_TEACHERS": "teacher",
        "WHYGPU_TEACHER_PASSWORD_FILE": str(pw_file),
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
c.JupyterHub.cleanup_servers = True  # local processes: stop them with the hub (the course keeps containers)
""")
    log_path = BUILD / f"hub-login-{scheme}.log"
    base = f"{scheme}://127.0.0.1:{port}"
    with _classroom.hub_process(_classroom.HUB_VENV / "bin" / "jupyterhub", wrapper, base, log_path, ROOT,
                                hub_env(tmp, WHYGPU_HUB_URL=base, **env), verify=verify):
        yield {"base": base, "state": tmp / "state", "log": log_path}

@pytest.fixture(scope="module")
def hub(hub_python, tmp_path_factory):
    before = checkout_files()
    # small limits, so the flood tests reach them quickly (the defaults: course_login.py)
    with running_hub(tmp_path_factory.mktemp("hub-login"), WHYGPU_MAX_SEATS="1", WHYGPU_MAX_PENDING="10",
                     WHYGPU_SIGNUPS_PER_ADDRESS="3") as h:
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
        set_own_password(h, s, "teacher", TEACHER_PW, TEACHER_OWN, verify=str(cert))
        r = s.post(h["base"] + "/hub/login", data={"username": "teacher", "password": TEACHER_OWN, "_xsrf": xsrf(s)},
                   allow_redirects=False, timeout=30, verify=str(cert))
        assert r.status_code == 302, r.text[:500]
        login_cookies = [c for c in s.cookies if c.name.startswith("jupyterhub-")]
        assert login_cookies and all(c.secure for c in login_cookies), [(c.name, c.secure) for c in s.cookies]


class _From(requests.adapters.HTTPAdapter):
    """Connections from a loopback address of one's own (any 127.x.y.z is this machine): each attack
    comes from its own client address, as from another machine."""

    def __init__(self, ip):
        self.ip = ip
        super().__init__()

    def init_poolmanager(self, *args, **kwargs):
        kwargs["source_address"] = (self.ip, 0)
        return super().init_poolmanager(*args, **kwargs)


def browser(hub, source="127.0.0.1", **headers):
    s = requests.Session()
    s.mount("http://", _From(source))
    s.get(hub["base"] + "/hub/login", timeout=30, headers=headers)  # the _xsrf cookie
    return s


def xsrf(s):
    return s.cookies.get("_xsrf", path="/hub/") or s.cookies.get("_xsrf")


REFUSALS = ("Invalid username or password", "not been authorized", "choose your own", "Too many failed logins")


def try_login(hub, name, password, source="127.0.0.1", **headers):
    """(session, response) of a login as name from source."""
    s = browser(hub, source, **headers)
    r = s.post(hub["base"] + "/hub/login", data={"username": name, "password": password, "_xsrf": xsrf(s)},
               allow_redirects=False, timeout=60, headers=headers)
    return s, r


def login(hub, name, password, source="127.0.0.1"):
    """A browser session logged in as name, or None when the hub refuses."""
    s, r = try_login(hub, name, password, source)
    if r.status_code == 302:
        return s
    assert r.status_code in (200, 429) and any(m in r.text for m in REFUSALS), \
        f"login as {name!r}: {r.status_code}, not a refusal:\n" + r.text[:1000]
    return None


def sign_up(hub, name, password, source="127.0.0.1", status=200):
    s = browser(hub, source)
    s.get(hub["base"] + "/hub/signup", timeout=30)
    r = s.post(hub["base"] + "/hub/signup", data={
        "username": name, "signup_password": password, "signup_password_confirmation": password,
        "_xsrf": xsrf(s)}, timeout=60)
    assert r.status_code == status, r.text[:500]
    return r.text


def set_own_password(hub, s, name, given, own, verify=True):
    """At /hub/set-password, replace a password someone else set (the teachers' first one, a reset)."""
    s.get(hub["base"] + "/hub/set-password", timeout=30, verify=verify)
    r = s.post(hub["base"] + "/hub/set-password", data={
        "username": name, "old_password": given, "new_password": own, "new_password_confirmation": own,
        "_xsrf": xsrf(s)}, timeout=60, verify=verify)
    assert r.status_code == 200 and "Your password is set" in r.text, r.text[:2000]


def approve(teacher, hub, name):
    """The teacher approves name as the authorize page does: its button POSTs with the XSRF token."""
    r = teacher.post(f"{hub['base']}/hub/authorize/{name}", data={"_xsrf": xsrf(teacher)}, timeout=30)
    assert r.status_code == 200, r.text[:500]


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
    """ada, bo and cy signed up (each from an address of their own); the teacher approves ada and bo (cy
    waits). The teacher's first login replaces the first password (test_first_teacher_password_...)."""
    for i, (name, pw) in enumerate(PASSWORDS.items()):
        sign_up(hub, name, pw, source=f"127.0.1.{i + 1}")
    teacher = browser(hub)
    set_own_password(hub, teacher, "teacher", TEACHER_PW, TEACHER_OWN)
    teacher = login(hub, "teacher", TEACHER_OWN)
    assert teacher, "the teacher's account does not log in:\n" + hub["log"].read_text()[-3000:]
    for name in ("ada", "bo"):
        approve(teacher, hub, name)
    return teacher


def test_teacher_account_exists_before_anyone_signs_up(hub):
    sign_up(hub, "teacher", "a learner's attempt at it", source="127.0.1.9")
    assert not login(hub, "teacher", "a learner's attempt at it"), "a sign-up took over the teacher's name"


def test_first_teacher_password_must_be_replaced(hub):
    """The first password came from a file (not the command line); it logs no one in until replaced."""
    _, r = try_login(hub, "teacher", TEACHER_PW, source="127.0.1.10")
    assert r.status_code == 200 and "choose your own" in r.text, r.text[:1000]


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
    approve(learners, hub, name)  # the teacher approves cy now
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
    ({"WHYGPU_TEACHER_PASSWORD_FILE": ""}, "WHYGPU_TEACHER_PASSWORD"),
    ({"WHYGPU_TEACHER_PASSWORD_FILE": "", "WHYGPU_TEACHER_PASSWORD": "short"}, "WHYGPU_TEACHER_PASSWORD"),
    ({"WHYGPU_TEACHER_PASSWORD_FILE": "/nonexistent/password"}, "WHYGPU_TEACHER_PASSWORD_FILE"),
    ({"WHYGPU_TEACHERS": ""}, "WHYGPU_TEACHERS"),
    ({"WHYGPU_HUB_URL": "http://:8000"}, "without TLS"),
    ({"WHYGPU_HUB_URL": "http://0.0.0.0:8000"}, "without TLS"),
    ({"WHYGPU_HUB_URL": "https://:8000"}, "WHYGPU_SSL_CERT"),
    ({"WHYGPU_SSL_CERT": "/nonexistent.crt"}, "WHYGPU_SSL_KEY"),
    ({"WHYGPU_HUB_STATE": str(ROOT / "hub-state")}, "inside the checkout"),
], ids=["no teacher password", "short password", "no password file", "no teachers", "all interfaces, http", "0.0.0.0, http",
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


# --- issue 37: the attacks that broke, performed against the real hub ---------------------------------
# Each comes from a loopback address of its own (127.0.2.x), as from another machine; the hub sees the
# address configurable-http-proxy saw (X-Forwarded-For), not what a client claims.
def refused_for_address(r):
    return r.status_code == 429 and "Too many failed logins" in r.text


def test_attack1_a_stranger_cannot_lock_the_teacher_out(hub, learners):
    stranger = "127.0.2.1"
    for _ in range(3 * 5):
        assert not login(hub, "teacher", "a guess at the teacher's", source=stranger)
    assert login(hub, "teacher", TEACHER_OWN), "the stranger's wrong passwords locked the teacher out"
    _, r = try_login(hub, "teacher", TEACHER_OWN, source=stranger)
    assert r.status_code != 302, "the lockout holds for the address that guessed, even with the right password"


def test_attack2_spraying_is_limited_per_address(hub, learners):
    sprayer = "127.0.2.2"
    answers = [try_login(hub, f"name{i}", "Summer2026!", source=sprayer)[1] for i in range(40)]
    limited = [r for r in answers if refused_for_address(r)]
    assert len(limited) >= 40 - 20, f"40 names tried from one address, {len(limited)} refused for the address"
    # the address waits even with a right password; from elsewhere the name logs in
    assert refused_for_address(try_login(hub, "bo", PASSWORDS["bo"], source=sprayer)[1])
    assert login(hub, "bo", PASSWORDS["bo"], source="127.0.2.3")


def test_attack2_a_client_cannot_claim_another_address(hub, learners):
    claimer = "127.0.2.4"
    for i in range(25):
        fake = f"10.9.{i}.{i}"
        _, r = try_login(hub, "ada", "wrong", source=claimer, **{"X-Real-Ip": fake, "X-Forwarded-For": fake})
        assert r.status_code in (200, 429), r.text[:500]
    _, r = try_login(hub, "ada", "wrong", source=claimer, **{"X-Real-Ip": "10.9.99.1", "X-Forwarded-For": "10.9.99.1"})
    assert refused_for_address(r), "headers the client sent reset its failure count"


def test_attack2_login_storms_leave_the_hub_responsive(hub, learners):
    """Six anonymous clients posting logins: the hub's API still answers quickly (bcrypt runs off the
    event loop). Before the fix, 9 ms became 0.3–1.9 s."""
    import statistics
    import threading

    def latency():
        t = time.perf_counter()
        requests.get(hub["base"] + "/hub/api", timeout=30)
        return time.perf_counter() - t

    quiet = statistics.median(latency() for _ in range(10))
    stop = threading.Event()

    def storm(i):
        s = browser(hub, f"127.0.3.{i}")
        while not stop.is_set():  # real names: before the fix, each wrong password was hashed on the event loop
            s.post(hub["base"] + "/hub/login", data={"username": ["ada", "bo", "cy"][i % 3], "password": "x" * 12,
                                                     "_xsrf": xsrf(s)}, timeout=60)

    threads = [threading.Thread(target=storm, args=(i,), daemon=True) for i in range(1, 7)]
    for t in threads:
        t.start()
    time.sleep(1)
    try:
        busy = [latency() for _ in range(15)]
    finally:
        stop.set()
        for t in threads:
            t.join(60)
    print(f"hub API latency: quiet median {quiet * 1e3:.1f} ms, under the storm median "
          f"{statistics.median(busy) * 1e3:.1f} ms, max {max(busy) * 1e3:.1f} ms (load {os.getloadavg()[0]:.1f})")
    assert statistics.median(busy) < 0.15, busy


def test_attack3_login_time_does_not_tell_which_names_exist(hub, learners):
    import statistics

    def timed(name):
        t = time.perf_counter()
        _, r = try_login(hub, name, "not the password", source="127.0.2.5")
        assert r.status_code == 200 and INVALID_TEXT in r.text, r.text[:500]
        return time.perf_counter() - t

    real, missing = [], []
    for _ in range(4):
        real.append(timed("cy"))
        missing.append(timed("nobody-by-this-name"))
    r, m = statistics.median(real), statistics.median(missing)
    print(f"login refusal: a real name {r * 1e3:.0f} ms, a missing one {m * 1e3:.0f} ms")
    assert 0.5 < r / m < 2, f"a real name takes {r:.3f} s to refuse, a missing one {m:.3f} s"


INVALID_TEXT = "Invalid username or password"


def test_attack3_signup_does_not_tell_which_names_exist(hub, learners):
    taken = sign_up(hub, "ada", "someone else's passphrase", source="127.0.2.6")
    free = sign_up(hub, "eve-new", "someone else's passphrase", source="127.0.2.6")
    assert "already in use" not in taken
    msg = re.compile(r'<div class="alert[^"]*" role="alert">(.*?)</div>', re.S)
    assert msg.search(taken).group(1).strip() == msg.search(free).group(1).strip(), (taken[-1500:], free[-1500:])
    assert login(hub, "ada", PASSWORDS["ada"]), "a sign-up under a taken name changed its password"


def test_attack5_cross_site_requests_approve_and_discard_nothing(hub, learners):
    sign_up(hub, "mallory", "mallory's passphrase", source="127.0.2.7")
    sign_up(hub, "waiting", "waiting's passphrase", source="127.0.2.7")
    cross_site = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Referer": "https://evil.example/"}
    pages = {}
    for path in ("authorize/mallory", "discard/waiting"):  # a link on another site, followed by the teacher
        pages[path] = learners.get(f"{hub['base']}/hub/{path}", headers=cross_site, timeout=30)
    _, r = try_login(hub, "mallory", "mallory's passphrase", source="127.0.2.7")
    assert "not been authorized" in r.text, "a link followed from another site approved mallory"
    _, r = try_login(hub, "waiting", "waiting's passphrase", source="127.0.2.7")
    assert "not been authorized" in r.text, "a link followed from another site discarded a sign-up"
    for path, r in pages.items():
        assert r.status_code == 200 and 'method="post"' in r.text, r.text[:500]  # a button, not an action
        r = learners.post(f"{hub['base']}/hub/{path}", headers=cross_site, timeout=30)  # a form another site posts
        assert r.status_code == 403, r.text[:500]
    _, r = try_login(hub, "mallory", "mallory's passphrase", source="127.0.2.7")
    assert "not been authorized" in r.text, "a form posted from another site approved mallory"
    for name in ("mallory", "waiting"):  # the teacher's own button: a POST with the XSRF token
        r = learners.post(f"{hub['base']}/hub/discard/{name}", data={"_xsrf": xsrf(learners)}, timeout=30)
        assert r.status_code == 200, r.text[:500]
    assert "discarded the sign-up of mallory" in hub["log"].read_text()


def test_attack5_hub_cookies_are_samesite_lax(hub, learners):
    s, r = try_login(hub, "bo", PASSWORDS["bo"], source="127.0.2.8")
    assert r.status_code == 302, r.text[:500]
    set_cookies = r.raw.headers.getlist("Set-Cookie") + s.get(hub["base"] + "/hub/login").raw.headers.getlist("Set-Cookie")
    hub_cookies = [c for c in set_cookies if c.split("=")[0] in ("jupyterhub-hub-login", "jupyterhub-session-id", "_xsrf")]
    assert hub_cookies and all("samesite=lax" in c.lower() for c in hub_cookies), set_cookies


def test_attack6_password_resets_are_logged_and_must_be_replaced(hub, learners):
    """Decision (docker/README.md, "Security"): teachers may reset a learner's password (a school has no
    other way back in), so a teacher could enter a learner's account. Every reset is logged, and the reset
    password logs no one in: it must be replaced first, so the learner notices."""
    sign_up(hub, "dee", "dee's first passphrase", source="127.0.2.9")
    approve(learners, hub, "dee")
    reset = "set by the teacher 1"
    learners.get(f"{hub['base']}/hub/change-password/dee", timeout=30)
    r = learners.post(f"{hub['base']}/hub/change-password/dee", timeout=30, data={
        "new_password": reset, "new_password_confirmation": reset, "_xsrf": xsrf(learners)})
    assert r.status_code == 200, r.text[-1500:]
    _, r = try_login(hub, "dee", reset, source="127.0.2.10")
    assert r.status_code != 302, "the password the teacher set logs straight into dee's account, unnoticed"
    assert "choose your own" in r.text, r.text[:1000]
    assert re.search(r"course_login AUDIT: teacher reset the password of dee \(from 127\.0\.0\.1\)",
                     hub["log"].read_text()), "the reset is not in the hub's log"
    s = browser(hub, "127.0.2.9")
    set_own_password(hub, s, "dee", reset, "dee's own new passphrase")
    assert login(hub, "dee", "dee's own new passphrase", source="127.0.2.9")
    assert "AUDIT: dee chose their own password" in hub["log"].read_text()


def test_attack4_signup_flood_is_limited(hub, learners):
    """Last: it fills the waiting list (WHYGPU_MAX_PENDING=10 and 3 sign-ups per address on this hub)."""
    flood = []
    for i in range(3):
        sign_up(hub, f"flood0x{i}", "a flood's passphrase", source="127.0.4.1")
        flood.append(f"flood0x{i}")
    page = sign_up(hub, "flood0x3", "a flood's passphrase", source="127.0.4.1", status=429)
    assert "Too many sign-ups from your address" in page
    full = None
    for a in range(2, 12):
        for i in range(3):
            name = f"flood{a}x{i}"
            s = browser(hub, f"127.0.4.{a}")
            r = s.post(hub["base"] + "/hub/signup", timeout=60, data={
                "username": name, "signup_password": "a flood's passphrase",
                "signup_password_confirmation": "a flood's passphrase", "_xsrf": xsrf(s)})
            if r.status_code == 503:
                full = r.text
                break
            assert r.status_code == 200, r.text[:500]
            flood.append(name)
        if full:
            break
    assert full and "already waiting for the teacher" in full, "the waiting list has no cap"
    page = learners.get(f"{hub['base']}/hub/authorize", timeout=30).text
    assert len(re.findall(r'<tr id=', page)) <= 10 + 5, "more sign-ups wait than the cap"
    for name in flood:
        learners.post(f"{hub['base']}/hub/discard/{name}", data={"_xsrf": xsrf(learners)}, timeout=30)
    sign_up(hub, "real-learner", "a real learner's passphrase", source="127.0.4.99")
    _, r = try_login(hub, "real-learner", "a real learner's passphrase", source="127.0.4.99")
    assert "not been authorized" in r.text, "after the teacher discarded the flood, a real sign-up still fails"
