"""No shipped hub configuration lets anyone in without a secret (docker/jupyterhub/class_auth.py).

Each shipped configuration is loaded as its hub loads it: jupyterhub_config.py by traitlets, as JupyterHub
does; z2jh-values.yaml as Zero to JupyterHub does (hub.config into the config, then extraConfig run with `c`,
the mounted extraFiles importable). Without its secrets each refuses to start; with them, the real
JupyterHub authenticator it configures is asked to log people in.
"""
import asyncio
import importlib.util
import sys

import pytest
import yaml
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from _classroom import DOCKER

HUB = DOCKER / "jupyterhub"
VALUES = HUB / "z2jh-values.yaml"
CLASS_PW, TEACHER_PW = "a long shared password", "the teacher's own secret"


def load_one_machine(monkeypatch, env):
    for k in ("WHYGPU_CLASS_PASSWORD", "WHYGPU_TEACHER_PASSWORD", "WHYGPU_TEACHERS", "WHYGPU_CLASS_USERS"):
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("WHYGPU_GPUS", "0")
    return PyFileConfigLoader("jupyterhub_config.py", path=str(HUB)).load_config()


def load_z2jh(monkeypatch, env):
    """What the chart's hub does with the values: hub.config, the pod's env (secrets resolved), extraConfig."""
    values = yaml.safe_load(VALUES.read_text())
    hub = values["hub"]
    c = Config(hub.get("config") or {})
    # the pod's environment: plain values as written, secretKeyRef ones only when the secret exists (env)
    pod_env = {}
    for name, spec in (hub.get("extraEnv") or {}).items():
        if isinstance(spec, dict):
            ref = spec["valueFrom"]["secretKeyRef"]
            assert ref["name"] == "whygpu-class", ref
            if name not in env:
                pytest.fail(f"secret {ref} missing: the pod would not start (CreateContainerConfigError)")
            pod_env[name] = env[name]
        else:
            pod_env[name] = env.get(name, str(spec))
    # the mounted file (--set-file ...stringData=docker/jupyterhub/class_auth.py) is importable there
    (mount,) = [f["mountPath"] for f in hub["extraFiles"].values()]
    assert mount.endswith("/class_auth.py")
    spec = importlib.util.spec_from_file_location("class_auth", HUB / "class_auth.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setitem(sys.modules, "class_auth", mod)
    monkeypatch.setattr("os.environ", pod_env)
    for code in hub["extraConfig"].values():
        exec(compile(code, "extraConfig", "exec"), {"c": c, "get_config": lambda: c})
    return c


def login(cfg, name, password):
    cls = cfg.JupyterHub.authenticator_class
    assert not isinstance(cls, str), f"{cls!r}: a named authenticator, not the course's"
    auth = cls(config=cfg)
    user = asyncio.run(auth.get_authenticated_user(None, {"username": name, "password": password}))
    return user and user["name"]


LOADERS = {"one machine": load_one_machine, "kubernetes": load_z2jh}


@pytest.mark.parametrize("which", LOADERS)
@pytest.mark.parametrize("env", [
    {},
    {"WHYGPU_CLASS_PASSWORD": "short"},
    {"WHYGPU_CLASS_PASSWORD": CLASS_PW, "WHYGPU_TEACHER_PASSWORD": ""},
    {"WHYGPU_CLASS_PASSWORD": CLASS_PW, "WHYGPU_TEACHER_PASSWORD": CLASS_PW},
], ids=["no secret", "short", "no teacher secret", "teacher secret = class secret"])
def test_refuses_to_start_without_its_secrets(monkeypatch, which, env):
    env = dict(env, WHYGPU_TEACHERS="teacher")
    with pytest.raises(SystemExit) as e:
        try:
            LOADERS[which](monkeypatch, env)
        except pytest.fail.Exception:
            raise SystemExit("the pod does not start")
    assert "WHYGPU_" in str(e.value) or "pod" in str(e.value)


@pytest.mark.parametrize("which", LOADERS)
def test_only_a_secret_lets_anyone_in(monkeypatch, which):
    cfg = LOADERS[which](monkeypatch, {"WHYGPU_CLASS_PASSWORD": CLASS_PW, "WHYGPU_TEACHER_PASSWORD": TEACHER_PW,
                                       "WHYGPU_TEACHERS": "teacher"})
    assert login(cfg, "ada", CLASS_PW) == "ada"
    assert login(cfg, "teacher", TEACHER_PW) == "teacher"
    for name, pw in [("ada", ""), ("ada", "guess"), ("ada", TEACHER_PW[:-1]), ("", CLASS_PW),
                     ("teacher", CLASS_PW), ("Teacher", CLASS_PW), (" teacher", CLASS_PW), ("teacher", "")]:
        assert not login(cfg, name, pw), f"{which}: {name!r} got in with {pw!r}"
    assert "teacher" in cfg.Authenticator.admin_users


def test_class_users_limit_the_names(monkeypatch):
    cfg = load_one_machine(monkeypatch, {"WHYGPU_CLASS_PASSWORD": CLASS_PW, "WHYGPU_CLASS_USERS": "ada,bo"})
    assert login(cfg, "bo", CLASS_PW) == "bo"
    assert not login(cfg, "mallory", CLASS_PW)


def test_no_shipped_values_let_anyone_in_by_themselves():
    """The values alone (no extraConfig): never the chart's dummy login with allow_all and no password."""
    values = yaml.safe_load(VALUES.read_text())
    cfg = (values["hub"].get("config") or {})
    auth = cfg.get("JupyterHub", {}).get("authenticator_class")
    assert auth in (None,), f"hub.config sets {auth!r}; the login belongs to class_auth.py"
    assert "allow_all" not in str(cfg) and "DummyAuthenticator" not in str(cfg)
    assert "whygpu-login" in values["hub"]["extraConfig"]
