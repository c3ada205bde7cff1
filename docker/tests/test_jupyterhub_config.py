"""The one-machine classroom hub (docker/jupyterhub/jupyterhub_config.py): it loads, and each learner on the
GPU image gets a GPU of their own (never the `count=1` that puts everyone on GPU 0).

The config is loaded by traitlets as JupyterHub loads it; DockerSpawner is not needed to load it (the
spawner is named by its entry point), and its hooks are driven with a stand-in spawner whose `docker()`
answers like the Docker API.
"""
import asyncio
import importlib.util
import logging
import types

import pytest
from tornado import web
from traitlets.config.loader import PyFileConfigLoader

from _classroom import DOCKER

HUB = DOCKER / "jupyterhub"


def load(monkeypatch, **env):
    monkeypatch.setenv("WHYGPU_CLASS_PASSWORD", "a long shared password")
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    return PyFileConfigLoader("jupyterhub_config.py", path=str(HUB)).load_config()


class FakeSpawner:
    def __init__(self, user, image, containers):
        self.user = types.SimpleNamespace(name=user)
        self.name = ""
        self.image = image
        self.container_name = f"jupyter-{user}"
        self.log = logging.getLogger("test")
        self._containers = containers

    async def docker(self, method, **kw):
        assert method == "containers"
        return self._containers


def start(cfg, user, image, containers):
    """What DockerSpawner does with our hooks when it creates a container: returns (labels, host config)."""
    s = FakeSpawner(user, image, containers)
    cfg.Spawner.pre_spawn_hook(s)
    kwargs = asyncio.run(cfg.DockerSpawner.extra_create_kwargs(s))
    host = asyncio.run(cfg.DockerSpawner.extra_host_config(s))
    return s, kwargs, host


def test_config_loads_with_cpu_and_gpu_images(monkeypatch):
    cfg = load(monkeypatch, WHYGPU_GPUS="0,1")
    assert cfg.JupyterHub.spawner_class == "docker"
    assert set(cfg.DockerSpawner.allowed_images.values()) == {"whygpu:cpu", "whygpu:cuda"}
    assert cfg.DockerSpawner.volumes == {"whygpu-work-{username}": "/home/jovyan/work"}
    assert cfg.DockerSpawner.remove is True
    assert cfg.ClassPasswordAuthenticator.class_password == "a long shared password"
    culler = cfg.JupyterHub.services[0]
    assert "jupyterhub_idle_culler" in culler["command"]


def test_without_gpus_only_the_cpu_course(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")  # no nvidia-smi
    cfg = load(monkeypatch, WHYGPU_GPUS="")
    assert list(cfg.DockerSpawner.allowed_images.values()) == ["whygpu:cpu"]


def test_refuses_to_start_without_a_password(monkeypatch):
    monkeypatch.setenv("WHYGPU_CLASS_PASSWORD", "")
    with pytest.raises(SystemExit):
        PyFileConfigLoader("jupyterhub_config.py", path=str(HUB)).load_config()


def test_each_gpu_learner_gets_their_own_gpu(monkeypatch):
    cfg = load(monkeypatch, WHYGPU_GPUS="0,1,2")
    running = []
    seen = []
    for user in ["ada", "bo", "cy"]:
        s, kwargs, host = start(cfg, user, "whygpu:cuda", running)
        (req,) = host["device_requests"]
        assert req["driver"] == "nvidia" and req["capabilities"] == [["gpu"]]
        assert "count" not in req, "count=1 would give every learner GPU 0"
        (gpu,) = req["device_ids"]
        label = kwargs["labels"]["org.gpu-course.whygpu.gpu"]
        assert label == gpu
        seen.append(gpu)
        running.append({"Names": [f"/jupyter-{user}"], "Labels": {"org.gpu-course.whygpu.gpu": gpu}})
        assert host["mem_limit"] == "8G"
    assert sorted(seen) == ["0", "1", "2"]
    with pytest.raises(web.HTTPError) as e:
        start(cfg, "dee", "whygpu:cuda", running)
    assert e.value.status_code == 503
    # CPU learners never get a GPU, whatever is free
    _, kwargs, host = start(cfg, "eve", "whygpu:cpu", running)
    assert "device_requests" not in host and kwargs == {} and host["mem_limit"] == "4G"


def test_gpu_comes_back_when_a_server_stops(monkeypatch):
    cfg = load(monkeypatch, WHYGPU_GPUS="0")
    s, _, host = start(cfg, "ada", "whygpu:cuda", [])
    assert host["device_requests"][0]["device_ids"] == ["0"]
    cfg.Spawner.post_stop_hook(s)  # the container is removed (DockerSpawner.remove = True)
    _, _, host = start(cfg, "bo", "whygpu:cuda", [])
    assert host["device_requests"][0]["device_ids"] == ["0"]


def test_gpus_held_by_containers_from_before_a_hub_restart(monkeypatch):
    cfg = load(monkeypatch, WHYGPU_GPUS="0,1")
    running = [{"Names": ["/jupyter-old"], "Labels": {"org.gpu-course.whygpu.gpu": "0"}}]
    _, _, host = start(cfg, "ada", "whygpu:cuda", running)
    assert host["device_requests"][0]["device_ids"] == ["1"]


def test_restart_of_the_same_server_keeps_no_stale_claim(monkeypatch):
    cfg = load(monkeypatch, WHYGPU_GPUS="0,1")
    start(cfg, "ada", "whygpu:cuda", [])
    # ada's start failed without a stop; her next start must not hold two GPUs
    _, _, host = start(cfg, "ada", "whygpu:cuda", [])
    _, _, host_bo = start(cfg, "bo", "whygpu:cuda", [])
    assert {host["device_requests"][0]["device_ids"][0], host_bo["device_requests"][0]["device_ids"][0]} == {"0", "1"}


def test_gpu_pool_module():
    spec = importlib.util.spec_from_file_location("gpu_pool", HUB / "gpu_pool.py")
    gp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gp)
    assert gp.parse_gpu_list(" 0, 1,,GPU-abc ") == ["0", "1", "GPU-abc"]
    pool = gp.GPUPool(["a", "b"])
    assert pool.acquire("x/") == "a" and pool.acquire("x/") == "a"
    assert pool.acquire("y/", in_use={"b"}) is None
    pool.release("x/")
    assert pool.free() == ["a", "b"]
