"""A real JupyterHub on loopback spawns the course environment and serves a notebook through its proxy.

JupyterHub 6.1.1 (the hub of the course's requirements.txt), its configurable-http-proxy from npm (pinned by
docker/tests/hub/package-lock.json, installed into build/_classroom/chp), DummyAuthenticator and
SimpleLocalProcessSpawner: the spawned single-user server is the course's own `jupyterhub-singleuser`, the
one the image runs under Zero to JupyterHub or DockerSpawner, and its pre-spawn hook makes the learner's
copies of the notebooks as the image's start hook does. Through the hub's proxy and an API token, the test
reads the learner's copy of notebook 00, starts the course kernel and runs a Go cell in it.
"""
import json
import os
import secrets
import subprocess
import time
import uuid

import pytest
import requests

import _classroom
from _classroom import BUILD, DOCKER, ROOT, free_port

VENV = ROOT / ".venv"


@pytest.fixture(scope="module")
def chp():
    return _classroom.chp()


@pytest.fixture(scope="module")
def hub(chp, tmp_path_factory):
    if not (VENV / "bin" / "jupyterhub").exists():
        pytest.fail("the course environment is not set up (make setup)")
    tmp = tmp_path_factory.mktemp("hub")
    port, hub_port, api_port = free_port(), free_port(), free_port()
    token = secrets.token_hex(16)
    env_for_server = {
        "JUPYTER_PATH": str(VENV / "share" / "jupyter"),
        "PJRT_PLUGIN_LIBRARY_PATH": str(VENV / "lib" / "pjrt"),
        "WHYGPU_ROOT": str(ROOT),
        "GOPROXY": "off",
        "GOMLX_NO_AUTO_INSTALL": "1",
        "GOTOOLCHAIN": "local",
        "GOFLAGS": "-buildvcs=false",
        "CGO_CFLAGS": "-O2 -g -Wno-deprecated-declarations",
        "WHYGPU_SYNC_DATE": "2026-11-30",
    }
    config = tmp / "jupyterhub_config.py"
    config.write_text(f"""
import subprocess
c = get_config()  # noqa
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.command = [{str(chp)!r}]
c.ConfigurableHTTPProxy.auth_token = {secrets.token_hex(16)!r}
c.JupyterHub.db_url = "sqlite:///{tmp}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "{tmp}/cookie_secret"
c.JupyterHub.pid_file = "{tmp}/jupyterhub.pid"
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allow_all = True
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = "{tmp}/home/{{username}}"
c.Spawner.cmd = [{str(VENV / "bin" / "jupyterhub-singleuser")!r}]
c.Spawner.args = {["--allow-root"] if os.getuid() == 0 else []!r}
c.Spawner.default_url = "/lab/tree/work"
c.Spawner.environment = {env_for_server!r}
c.Spawner.http_timeout = 90
c.Spawner.start_timeout = 120

def copy_notebooks(spawner):
    # what the image's start hook does (docker/before-notebook.d/50-whygpu-notebooks.sh)
    subprocess.run([{str(DOCKER / "sync-notebooks.sh")!r}, {str(ROOT / "notebooks")!r},
                    spawner.home_dir + "/work"], check=True, env=dict(spawner.environment))

c.Spawner.pre_spawn_hook = copy_notebooks
c.JupyterHub.services = [{{"name": "classroom-test", "api_token": {token!r}}}]
c.JupyterHub.load_roles = [{{
    "name": "classroom-test",
    "scopes": ["admin:users", "admin:servers", "access:servers", "read:users"],
    "services": ["classroom-test"],
}}]
""")
    env = dict(os.environ, PATH=f"{VENV}/bin:{os.environ['PATH']}")
    base = f"http://127.0.0.1:{port}"
    with _classroom.hub_process(VENV / "bin" / "jupyterhub", config, base, BUILD / "hub.log", tmp, env):
        yield {"base": base, "token": token, "home": tmp / "home"}

def api(hub, method, path, **kw):
    r = requests.request(method, hub["base"] + path, headers={"Authorization": f"token {hub['token']}"},
                         timeout=30, **kw)
    return r


def test_singleuser_version():
    out = subprocess.run([str(VENV / "bin" / "jupyterhub-singleuser"), "--version"], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().startswith("6.1."), out.stdout


def test_hub_spawns_the_course_and_serves_a_notebook(hub):
    assert api(hub, "POST", "/hub/api/users/alice").status_code in (201, 409)
    r = api(hub, "POST", "/hub/api/users/alice/server")
    assert r.status_code in (201, 202), r.text
    deadline = time.monotonic() + 150
    while True:
        user = api(hub, "GET", "/hub/api/users/alice").json()
        server = user.get("servers", {}).get("", {})
        if server.get("ready"):
            break
        assert time.monotonic() < deadline, f"server not ready: {user}\n" + (BUILD / "hub.log").read_text()[-4000:]
        time.sleep(1)

    # the learner's copy of notebook 00, through the hub's proxy
    r = api(hub, "GET", "/user/alice/api/contents/work/00-setup-check.ipynb", params={"content": "1"})
    assert r.status_code == 200, r.text[:1000]
    nb = r.json()
    assert nb["type"] == "notebook" and nb["writable"]
    assert nb["content"]["metadata"]["kernelspec"]["name"] == "whygpu"
    assert (hub["home"] / "alice" / "work" / ".whygpu-lessons.sha256").exists()

    specs = api(hub, "GET", "/user/alice/api/kernelspecs").json()
    assert "whygpu" in specs["kernelspecs"], specs.keys()

    # the course kernel runs a Go cell, over the kernel's websocket through the proxy
    r = api(hub, "POST", "/user/alice/api/kernels", json={"name": "whygpu"})
    assert r.status_code == 201, r.text
    kid = r.json()["id"]
    try:
        assert "still here 42" in run_cell(hub, kid, '%%\nfmt.Println("still here", 6*7)\n')
    finally:
        api(hub, "DELETE", f"/user/alice/api/kernels/{kid}")
    assert api(hub, "DELETE", "/hub/api/users/alice/server").status_code in (202, 204)


def run_cell(hub, kernel_id, code, timeout=120):
    import websocket  # websocket-client, in the course environment

    url = hub["base"].replace("http://", "ws://") + f"/user/alice/api/kernels/{kernel_id}/channels"
    ws = websocket.create_connection(url, header=[f"Authorization: token {hub['token']}"], timeout=timeout)
    try:
        msg_id = uuid.uuid4().hex
        ws.send(json.dumps({
            "header": {"msg_id": msg_id, "username": "test", "session": uuid.uuid4().hex,
                       "msg_type": "execute_request", "version": "5.3"},
            "parent_header": {}, "metadata": {}, "channel": "shell",
            "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                        "allow_stdin": False, "stop_on_error": True},
        }))
        out, deadline = [], time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg = json.loads(ws.recv())
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            t, content = msg["msg_type"], msg["content"]
            if t == "stream":
                out.append(content["text"])
            elif t == "error":
                out.append("\n".join(content.get("traceback", [])) or content.get("evalue", ""))
            elif t == "status" and content["execution_state"] == "idle":
                return "".join(out)
        raise AssertionError(f"no reply in {timeout}s: {out}")
    finally:
        ws.close()
