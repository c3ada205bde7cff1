"""The one-machine classroom hub's seats (docker/jupyterhub/jupyterhub_config.py): each learner's container
gets a GPU of its own (never the `count=1` that puts everyone on GPU 0) and cores of its own (cpuset), no
capabilities, no swap, a pids cap, and starts only on a network where seats cannot reach each other.

The config is loaded by traitlets as JupyterHub loads it, with the hub venv's packages (requirements-hub.txt)
importable; its hooks are driven with a stand-in spawner whose `docker()` answers like the Docker API.
test_hub_login.py runs the same config in the real hub.
"""
import asyncio
import importlib.util
import logging
import types

import pytest
from tornado import web
from traitlets.config.loader import PyFileConfigLoader

import _classroom
from _classroom import HUB_DIR

LIVE = {"created", "restarting", "running", "paused"}


@pytest.fixture(autouse=True)
def hub_packages():
    _classroom.use_hub_packages()


def load(monkeypatch, tmp_path, **env):
    monkeypatch.setenv("WHYGPU_TEACHERS", "teacher")
    monkeypatch.setenv("WHYGPU_TEACHER_PASSWORD", "the teacher's own secret")
    monkeypatch.setenv("WHYGPU_HUB_STATE", str(tmp_path / "state"))
    monkeypatch.setenv("WHYGPU_SEAT_CPUS", "0-7")
    monkeypatch.delenv("WHYGPU_CPU_SHARING", raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    return PyFileConfigLoader("jupyterhub_config.py", path=str(HUB_DIR)).load_config()


XFS = {"Driver": "overlay2", "DriverStatus": [["Backing Filesystem", "xfs"], ["Supports d_type", "true"]],
       "DockerRootDir": "/nonexistent/docker"}


class FakeSpawner:
    def __init__(self, user, image, containers, icc="false", internal=True, info=XFS):
        self.user = types.SimpleNamespace(name=user)
        self.name = ""
        self.image = image
        self.container_name = f"jupyter-{user}"
        self.log = logging.getLogger("test")
        self._containers = containers
        self._icc, self._internal, self._info = icc, internal, info

    async def docker(self, method, *args, **kw):
        if method == "inspect_network":
            if self._icc is None:
                raise RuntimeError(f"404 Client Error: network {args[0]} not found")
            return {"Name": args[0], "Internal": self._internal,
                    "Options": {"com.docker.network.bridge.enable_icc": self._icc}}
        if method == "info":
            return self._info
        assert method == "containers"
        label, status = kw["filters"]["label"], set(kw["filters"]["status"])
        assert status == LIVE, status
        return [ct for ct in self._containers if label in ct["Labels"] and ct.get("State", "running") in status]


def start(cfg, user, image, containers):
    """What DockerSpawner does with our hooks when it creates a container: returns (labels, host config)."""
    s = FakeSpawner(user, image, containers)
    asyncio.run(cfg.Spawner.pre_spawn_hook(s))
    kwargs = asyncio.run(cfg.DockerSpawner.extra_create_kwargs(s))
    host = asyncio.run(cfg.DockerSpawner.extra_host_config(s))
    return s, kwargs, host


def running(user, kwargs, state="running"):
    return {"Names": [f"/jupyter-{user}"], "Labels": kwargs.get("labels", {}), "State": state}


def test_config_loads_with_cpu_and_gpu_images(monkeypatch, tmp_path):
    cfg = load(monkeypatch, tmp_path, WHYGPU_GPUS="0,1")
    assert cfg.JupyterHub.spawner_class == "docker"
    assert set(cfg.DockerSpawner.allowed_images.values()) == {"whygpu:cpu", "whygpu:cuda"}
    assert cfg.DockerSpawner.volumes == {"whygpu-work-{username}": "/home/jovyan/work"}
    assert cfg.DockerSpawner.remove is True
    assert cfg.DockerSpawner.network_name == "whygpu-seats"
    assert cfg.JupyterHub.authenticator_class.__name__ == "CourseAuthenticator"
    assert "jupyterhub_idle_culler" in cfg.JupyterHub.services[0]["command"]
    # JupyterLab's settings live in the work volume, so they survive a restart (a fresh container)
    assert all(v.startswith("/home/jovyan/work/") for v in cfg.DockerSpawner.environment.values())
    # 8 cores of 2 per seat: at most 4 seats (fewer when memory binds first)
    assert 1 <= cfg.JupyterHub.active_server_limit <= 4
    assert 1 <= cfg.JupyterHub.concurrent_spawn_limit <= cfg.JupyterHub.active_server_limit


def test_without_gpus_only_the_cpu_course(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", "/nonexistent")  # no nvidia-smi
    cfg = load(monkeypatch, tmp_path, WHYGPU_GPUS="")
    assert list(cfg.DockerSpawner.allowed_images.values()) == ["whygpu:cpu"]


def test_each_seat_is_locked_down(monkeypatch, tmp_path):
    cfg = load(monkeypatch, tmp_path)
    _, _, host = start(cfg, "ada", "whygpu:cpu", [])
    assert host["cap_drop"] == ["ALL"] and host["security_opt"] == ["no-new-privileges:true"]
    assert host["memswap_limit"] == host["mem_limit"] == "4G", "no swap beyond the memory limit"
    assert host["pids_limit"] > 0


@pytest.mark.parametrize("icc, status", [("true", 503), (None, 503)], ids=["icc on", "no network"])
def test_refuses_a_network_where_seats_reach_each_other(monkeypatch, tmp_path, icc, status):
    cfg = load(monkeypatch, tmp_path)
    with pytest.raises(web.HTTPError) as e:
        asyncio.run(cfg.Spawner.pre_spawn_hook(FakeSpawner("ada", "whygpu:cpu", [], icc=icc)))
    assert e.value.status_code == status and "enable_icc=false" in e.value.log_message


def test_each_seat_gets_cores_of_its_own(monkeypatch, tmp_path):
    cfg = load(monkeypatch, tmp_path, WHYGPU_GPUS="0")
    live, seen = [], []
    for user in ["ada", "bo", "cy"]:
        _, kwargs, host = start(cfg, user, "whygpu:cpu", live)
        assert "nano_cpus" not in host, "a quota on top of the cpuset is not needed"
        assert kwargs["labels"]["org.gpu-course.whygpu.cpus"] == host["cpuset_cpus"]
        seen.append(host["cpuset_cpus"])
        live.append(running(user, kwargs))
    assert seen == ["0,1", "2,3", "4,5"]
    with pytest.raises(web.HTTPError) as e:
        start(cfg, "dee", "whygpu:cuda", live)  # a GPU seat needs 4 cores; 2 are left
    assert e.value.status_code == 503 and "core" in e.value.log_message
    _, kwargs, host = start(cfg, "eve", "whygpu:cpu", live)
    assert host["cpuset_cpus"] == "6,7"
    with pytest.raises(web.HTTPError) as e:
        start(cfg, "fay", "whygpu:cpu", live + [running("eve", kwargs)])
    assert e.value.status_code == 503
    # dee's refused start holds no GPU: the next GPU seat (once cores are free) gets it
    for user in ["ada", "bo", "cy"]:
        cfg.Spawner.post_stop_hook(FakeSpawner(user, "whygpu:cpu", []))
    _, _, host = start(cfg, "gus", "whygpu:cuda", [running("eve", kwargs)])
    assert host["device_requests"][0]["device_ids"] == ["0"] and host["cpuset_cpus"] == "0,1,2,3"


def test_a_gpu_seat_needs_four_free_cores(monkeypatch, tmp_path):
    cfg = load(monkeypatch, tmp_path, WHYGPU_GPUS="0,1")
    _, kwargs, host = start(cfg, "ada", "whygpu:cuda", [])
    assert host["cpuset_cpus"] == "0,1,2,3"
    _, _, host2 = start(cfg, "bo", "whygpu:cuda", [running("ada", kwargs)])
    assert host2["cpuset_cpus"] == "4,5,6,7"
    assert host["device_requests"][0]["device_ids"] != host2["device_requests"][0]["device_ids"]


def test_shared_cpus_use_a_quota(monkeypatch, tmp_path):
    cfg = load(monkeypatch, tmp_path, WHYGPU_CPU_SHARING="shared")
    _, kwargs, host = start(cfg, "ada", "whygpu:cpu", [])
    assert "cpuset_cpus" not in host and host["nano_cpus"] == 2_000_000_000 and kwargs == {}
    assert cfg.JupyterHub.active_server_limit >= 1


def test_each_gpu_learner_gets_their_own_gpu(monkeypatch, tmp_path):
    cfg = load(monkeypatch, tmp_path, WHYGPU_GPUS="0,1,2", WHYGPU_SEAT_CPUS="0-15")
    live, seen = [], []
    for user in ["ada", "bo", "cy"]:
        s, kwargs, host = start(cfg, user, "whygpu:cuda", live)
        (req,) = host["device_requests"]
        assert req["driver"] == "nvidia" and req["capabilities"] == [["gpu"]]
        assert "count" not in req, "count=1 would give every learner GPU 0"
        (gpu,) = req["device_ids"]
        assert kwargs["labels"]["org.gpu-course.whygpu.gpu"] == gpu
        seen.append(gpu)
        live.append(running(user, kwargs))
        assert host["mem_limit"] == "8G"
    assert sorted(seen) == ["0", "1", "2"]
    with pytest.raises(web.HTTPError) as e:
        start(cfg, "dee", "whygpu:cuda", live)
    assert e.value.status_code == 503
    # CPU learners never get a GPU, whatever is free
    _, kwargs, host = start(cfg, "eve", "whygpu:cpu", live)
    assert "device_requests" not in host and "org.gpu-course.whygpu.gpu" not in kwargs["labels"]
    assert host["mem_limit"] == "4G"


def test_gpu_comes_back_when_a_server_stops(monkeypatch, tmp_path):
    cfg = load(monkeypatch, tmp_path, WHYGPU_GPUS="0")
    s, _, host = start(cfg, "ada", "whygpu:cuda", [])
    assert host["device_requests"][0]["device_ids"] == ["0"]
    cfg.Spawner.post_stop_hook(s)  # the container is removed (DockerSpawner.remove = True)
    _, _, host = start(cfg, "bo", "whygpu:cuda", [])
    assert host["device_requests"][0]["device_ids"] == ["0"] and host["cpuset_cpus"] == "0,1,2,3"


def test_an_exited_container_holds_nothing(monkeypatch, tmp_path):
    """A container that stopped on its own (not through the hub) releases its GPU and cores at once."""
    cfg = load(monkeypatch, tmp_path, WHYGPU_GPUS="0")
    old = {"labels": {"org.gpu-course.whygpu.gpu": "0", "org.gpu-course.whygpu.cpus": "0,1,2,3"}}
    _, _, host = start(cfg, "ada", "whygpu:cuda", [running("old", old, state="exited")])
    assert host["device_requests"][0]["device_ids"] == ["0"] and host["cpuset_cpus"] == "0,1,2,3"


def test_devices_held_by_containers_from_before_a_hub_restart(monkeypatch, tmp_path):
    cfg = load(monkeypatch, tmp_path, WHYGPU_GPUS="0,1")
    old = {"labels": {"org.gpu-course.whygpu.gpu": "0", "org.gpu-course.whygpu.cpus": "0,1,2,3"}}
    _, _, host = start(cfg, "ada", "whygpu:cuda", [running("old", old)])
    assert host["device_requests"][0]["device_ids"] == ["1"] and host["cpuset_cpus"] == "4,5,6,7"


def test_restart_of_the_same_server_keeps_no_stale_claim(monkeypatch, tmp_path):
    cfg = load(monkeypatch, tmp_path, WHYGPU_GPUS="0,1")
    start(cfg, "ada", "whygpu:cuda", [])
    # ada's start failed without a stop; her next start must not hold two GPUs
    _, _, host = start(cfg, "ada", "whygpu:cuda", [])
    _, _, host_bo = start(cfg, "bo", "whygpu:cuda", [])
    assert {host["device_requests"][0]["device_ids"][0], host_bo["device_requests"][0]["device_ids"][0]} == {"0", "1"}


def test_seats_module():
    spec = importlib.util.spec_from_file_location("seats", HUB_DIR / "seats.py")
    seats = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(seats)
    assert seats.parse_list(" 0, 1,,GPU-abc ") == ["0", "1", "GPU-abc"]
    assert seats.parse_cpuset("0-3,8,10-11") == [0, 1, 2, 3, 8, 10, 11]
    for bad in ["3-1", "a", "-1"]:
        with pytest.raises(ValueError):
            seats.parse_cpuset(bad)
    assert seats.format_cpuset([3, 2]) == "2,3"
    pool = seats.Pool(["a", "b", "c"])
    assert pool.acquire("x/") == ["a"] and pool.acquire("x/") == ["a"]
    assert pool.acquire("y/", 2, in_use={"b"}) is None
    assert pool.acquire("y/", 2) == ["b", "c"]
    pool.release("x/")
    assert pool.free() == ["a"]
    # the sizing of docker/README.md: 8 cores / 32 GB -> 4 quiet seats; 32 / 128 GB -> 16; memory binds first
    gib = 2**30
    assert seats.seats_that_fit(8, 32 * gib, 2) == 4
    assert seats.seats_that_fit(32, 128 * gib, 2) == 16
    assert seats.seats_that_fit(32, 128 * gib, 0.5) == 50
    assert seats.seats_that_fit(2, 8 * gib, 0.5) == 2
    assert seats.seats_that_fit(2, 1 * gib, 2) == 1


def test_jupyterlab_settings_live_in_the_work_volume(monkeypatch, tmp_path):
    """The course's own JupyterLab reads its user settings and workspaces where the config points: the volume."""
    import subprocess
    cfg = load(monkeypatch, tmp_path)
    env = dict(cfg.DockerSpawner.environment)
    jupyter = _classroom.ROOT / ".venv" / "bin" / "jupyter"
    out = subprocess.run([str(jupyter), "lab", "path"], env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), **env},
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert f"User Settings directory: {env['JUPYTERLAB_SETTINGS_DIR']}" in out.stdout, out.stdout
    assert f"Workspaces directory: {env['JUPYTERLAB_WORKSPACES_DIR']}" in out.stdout, out.stdout


def test_teachers_open_servers_only_with_subdomains(monkeypatch, tmp_path):
    cfg = load(monkeypatch, tmp_path)
    (role,) = [r for r in cfg.JupyterHub.load_roles if r["name"] == "teacher"]
    assert "access:servers" not in role["scopes"] and role["users"] == ["teacher"]
    assert "admin_users" not in cfg.Authenticator
    cfg = load(monkeypatch, tmp_path, WHYGPU_SUBDOMAIN_HOST="https://hub.example.org")
    assert cfg.JupyterHub.subdomain_host == "https://hub.example.org"
    assert cfg.Authenticator.admin_users == {"teacher"}
    assert not [r for r in cfg.JupyterHub.load_roles if r["name"] == "teacher"]


# --- issue 37 §7–8: what Docker enforces cannot run here (no engine that works for it); these check the
# config and the start hook's refusals, docker/README.md "Security" has the manual check on a real host.
def test_attack7_refuses_a_network_with_a_route_out(monkeypatch, tmp_path):
    """Seats on a network that is not --internal reach the internet, the LAN and 169.254.169.254."""
    cfg = load(monkeypatch, tmp_path)
    with pytest.raises(web.HTTPError) as e:
        asyncio.run(cfg.Spawner.pre_spawn_hook(FakeSpawner("ada", "whygpu:cpu", [], internal=False)))
    assert e.value.status_code == 503 and "--internal" in e.value.log_message
    asyncio.run(cfg.Spawner.pre_spawn_hook(FakeSpawner("ada", "whygpu:cpu", [])))  # internal: starts


def test_attack8_each_seat_has_a_disk_limit(monkeypatch, tmp_path):
    cfg = load(monkeypatch, tmp_path)
    _, _, host = start(cfg, "ada", "whygpu:cpu", [])
    assert host["storage_opt"] == {"size": "10G"}
    cfg = load(monkeypatch, tmp_path, WHYGPU_SEAT_DISK="25G")
    assert start(cfg, "ada", "whygpu:cpu", [])[2]["storage_opt"] == {"size": "25G"}


@pytest.mark.parametrize("info", [
    {"Driver": "overlay2", "DriverStatus": [["Backing Filesystem", "extfs"]]},
    {"Driver": "vfs", "DriverStatus": []},
], ids=["overlay2 on ext4", "vfs"])
def test_attack8_refuses_a_driver_that_cannot_limit_disk(monkeypatch, tmp_path, info):
    cfg = load(monkeypatch, tmp_path)
    with pytest.raises(web.HTTPError) as e:
        asyncio.run(cfg.Spawner.pre_spawn_hook(FakeSpawner("ada", "whygpu:cpu", [], info=info)))
    assert e.value.status_code == 503 and "WHYGPU_SEAT_DISK=off" in e.value.log_message
    cfg = load(monkeypatch, tmp_path, WHYGPU_SEAT_DISK="off")  # the teacher's choice: no limit
    s, _, host = start(cfg, "ada", "whygpu:cpu", [])
    assert "storage_opt" not in host


def test_attack8_refuses_hub_state_on_dockers_filesystem(monkeypatch, tmp_path):
    cfg = load(monkeypatch, tmp_path)
    shared = dict(XFS, DockerRootDir=str(tmp_path))  # the hub's state is under tmp_path: the same filesystem
    with pytest.raises(web.HTTPError) as e:
        asyncio.run(cfg.Spawner.pre_spawn_hook(FakeSpawner("ada", "whygpu:cpu", [], info=shared)))
    assert e.value.status_code == 503 and "WHYGPU_SHARED_DISK" in e.value.log_message
    cfg = load(monkeypatch, tmp_path, WHYGPU_SHARED_DISK="yes")
    asyncio.run(cfg.Spawner.pre_spawn_hook(FakeSpawner("ada", "whygpu:cpu", [], info=shared)))
