"""JupyterHub for a small classroom on one Linux machine with Docker (DockerSpawner).

Each learner gets their own container of the course image, their own work volume (whygpu-work-<name>,
mounted on ~/work, kept across image updates) and, when they choose the GPU image, their own GPU: the hub
hands out explicit GPU ids (gpu_pool.py), never the `count=1` that would put every learner on GPU 0.

Run on the host, from the repository root (docker/README.md, "A classroom on one machine"):

    python3 -m venv /opt/whygpu-hub
    /opt/whygpu-hub/bin/pip install -r docker/jupyterhub/requirements-hub.txt
    npm install -g configurable-http-proxy@5.3.0
    WHYGPU_CLASS_PASSWORD='a long shared password' WHYGPU_TEACHERS=teacher \\
      WHYGPU_TEACHER_PASSWORD='another long password' /opt/whygpu-hub/bin/jupyterhub -f docker/jupyterhub/jupyterhub_config.py

Settings, all from the environment:
    WHYGPU_CLASS_PASSWORD  the shared password (required): learners log in with any name of WHYGPU_CLASS_USERS
    WHYGPU_CLASS_USERS     comma-separated learner names (empty: any name)
    WHYGPU_TEACHERS        comma-separated admin names
    WHYGPU_TEACHER_PASSWORD  the admins' own password (required with WHYGPU_TEACHERS; not the class one)
    WHYGPU_CPU_IMAGE       default whygpu:cpu      WHYGPU_GPU_IMAGE   default whygpu:cuda
    WHYGPU_GPUS            GPU ids or UUIDs to hand out, e.g. "0,1,2,3" (default: all that nvidia-smi lists)
    WHYGPU_HUB_URL         where learners connect, default http://:8000 (use https with WHYGPU_SSL_CERT/KEY)
    WHYGPU_HUB_CONNECT_IP  the host's address on Docker's bridge, default 172.17.0.1
"""
import os
import sys

from tornado import web

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from class_auth import configure as configure_login  # noqa: E402
from gpu_pool import LABEL, GPUPool, discover_gpus, parse_gpu_list  # noqa: E402

c = get_config()  # noqa: F821  (provided by JupyterHub when it loads this file)

CPU_IMAGE = os.environ.get("WHYGPU_CPU_IMAGE", "whygpu:cpu")
GPU_IMAGE = os.environ.get("WHYGPU_GPU_IMAGE", "whygpu:cuda")
GPUS = parse_gpu_list(os.environ.get("WHYGPU_GPUS", "")) or discover_gpus()
POOL = GPUPool(GPUS)

# Resources per seat (docker/README.md, "Sizing"): the CPU lessons fit 2 cores and 4 GB; a GPU seat needs
# more host memory for the CUDA libraries and host-side buffers.
SEAT = {CPU_IMAGE: {"mem": "4G", "cpus": 2.0}, GPU_IMAGE: {"mem": "8G", "cpus": 4.0}}

# --- the hub ----------------------------------------------------------------------------------------
c.JupyterHub.bind_url = os.environ.get("WHYGPU_HUB_URL", "http://:8000")
if os.environ.get("WHYGPU_SSL_CERT"):
    c.JupyterHub.ssl_cert = os.environ["WHYGPU_SSL_CERT"]
    c.JupyterHub.ssl_key = os.environ["WHYGPU_SSL_KEY"]
# the containers reach the hub's API on the host's address on Docker's bridge network
c.JupyterHub.hub_ip = os.environ.get("WHYGPU_HUB_CONNECT_IP", "172.17.0.1")
c.JupyterHub.hub_connect_ip = c.JupyterHub.hub_ip
c.JupyterHub.db_url = "sqlite:///" + os.path.abspath("jupyterhub.sqlite")
c.JupyterHub.cleanup_servers = False  # a hub restart leaves the learners' servers running

# --- who logs in: the class password, and a password of their own for teachers (class_auth.py) ---------
configure_login(c, os.environ, "jupyterhub_config.py")


# --- the learners' containers -----------------------------------------------------------------------
def _key(spawner):
    return f"{spawner.user.name}/{spawner.name}"


async def _gpu_for(spawner):
    """The GPU this server gets (once per start), or None on the CPU image."""
    if spawner.image != GPU_IMAGE:
        return None
    gpu = getattr(spawner, "_whygpu_gpu", None)
    if gpu:
        return gpu
    running = await spawner.docker("containers", all=True, filters={"label": LABEL})
    in_use = {ct["Labels"][LABEL] for ct in running if ct.get("Names") != ["/" + spawner.container_name]}
    gpu = POOL.acquire(_key(spawner), in_use)
    if gpu is None:
        raise web.HTTPError(503, f"All {len(GPUS)} GPUs of this machine are in use; start the CPU course "
                                 "instead, or try again when a GPU is free.")
    spawner._whygpu_gpu = gpu
    spawner.log.info("whygpu: %s gets GPU %s", _key(spawner), gpu)
    return gpu


async def create_kwargs(spawner):
    gpu = await _gpu_for(spawner)
    return {"labels": {LABEL: gpu}} if gpu else {}


async def host_config(spawner):
    seat = SEAT.get(spawner.image, SEAT[CPU_IMAGE])
    cfg = {"mem_limit": seat["mem"], "nano_cpus": int(seat["cpus"] * 1e9)}
    gpu = await _gpu_for(spawner)
    if gpu:
        cfg["device_requests"] = [{"driver": "nvidia", "device_ids": [gpu], "capabilities": [["gpu"]]}]
    return cfg


def forget_gpu(spawner):
    POOL.release(_key(spawner))
    spawner._whygpu_gpu = None


c.JupyterHub.spawner_class = "docker"
c.DockerSpawner.image = CPU_IMAGE
c.DockerSpawner.allowed_images = (
    {"CPU course": CPU_IMAGE, "GPU course (one NVIDIA GPU of your own)": GPU_IMAGE} if GPUS
    else {"CPU course": CPU_IMAGE})
c.DockerSpawner.pull_policy = "never"  # the images are built on this machine (docker/README.md)
c.DockerSpawner.remove = True  # a fresh container (and GPU choice) at every start; work lives in the volume
c.DockerSpawner.use_internal_ip = True
c.DockerSpawner.volumes = {"whygpu-work-{username}": "/home/jovyan/work"}
c.DockerSpawner.extra_create_kwargs = create_kwargs
c.DockerSpawner.extra_host_config = host_config
c.Spawner.pre_spawn_hook = forget_gpu   # a new start chooses again
c.Spawner.post_stop_hook = forget_gpu
c.Spawner.default_url = "/lab/tree/work"
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 120

# --- idle culling: stop servers nobody used for an hour, so GPUs and memory come back ---------------
c.JupyterHub.load_roles = [{
    "name": "jupyterhub-idle-culler-role",
    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    "services": ["jupyterhub-idle-culler-service"],
}]
c.JupyterHub.services = [{
    "name": "jupyterhub-idle-culler-service",
    "command": [sys.executable, "-m", "jupyterhub_idle_culler", "--timeout=3600", "--cull-every=300"],
}]
