"""JupyterHub for a small classroom on one Linux machine with Docker (DockerSpawner).

Each learner has their own account (course_login.py: sign-up approved by a teacher, their own password,
lockout after failed logins), their own container of the course image on a network where seats cannot
reach each other, their own cores (cpuset) and, when they choose the GPU image, their own GPU (seats.py);
their work lives in their own volume (whygpu-work-<name>, on ~/work, kept across image updates).

Run on the host (docker/README.md, "A classroom on one machine" has every step):

    python3 -m venv /opt/whygpu-hub
    /opt/whygpu-hub/bin/pip install -r docker/jupyterhub/requirements-hub.txt
    npm install -g configurable-http-proxy@5.3.0
    docker network create --internal -o com.docker.network.bridge.enable_icc=false \\
      -o com.docker.network.bridge.name=whygpu-seats \\
      --subnet 172.30.24.0/24 --gateway 172.30.24.1 whygpu-seats
    WHYGPU_TEACHERS=teacher WHYGPU_TEACHER_PASSWORD_FILE=/root/whygpu-teacher-password \\
      WHYGPU_SSL_CERT=/etc/ssl/hub.crt WHYGPU_SSL_KEY=/etc/ssl/hub.key \\
      /opt/whygpu-hub/bin/jupyterhub -f docker/jupyterhub/jupyterhub_config.py

Settings, all from the environment:
    WHYGPU_TEACHERS, WHYGPU_TEACHER_PASSWORD_FILE   the admins and their first password (required), and the
                         login limits: course_login.py lists them
    WHYGPU_HUB_STATE     the hub's own directory (database, cookie secret, pid files), outside the
                         checkout; default /var/lib/whygpu-hub, made mode 0700
    WHYGPU_SSL_CERT, WHYGPU_SSL_KEY   the hub's TLS certificate and key: learners connect with https
    WHYGPU_HUB_URL       where the hub listens; default https://:8000 with a certificate, else
                         http://127.0.0.1:8000 (loopback only, for a TLS proxy on this machine)
    WHYGPU_PUBLIC_URL    the https URL learners use when a TLS proxy on this machine forwards to the hub
    WHYGPU_ALLOW_HTTP    "yes": listen on a non-loopback address without TLS (passwords travel in clear)
    WHYGPU_SUBDOMAIN_HOST  e.g. https://hub.school.example: each server on its own subdomain (wildcard DNS
                         and certificate); only then may teachers open learners' servers
    WHYGPU_TEACHER_ACCESS  "yes": teachers may open learners' servers even without subdomains
    WHYGPU_NETWORK       the seats' Docker network, default whygpu-seats: --internal (no route out of it)
                         and inter-container traffic off; the hub refuses to start a seat on anything else
    WHYGPU_SEAT_DISK     each seat's writable layer, default 10G (Docker's storage-opt size: overlay2 on
                         xfs mounted with pquota, btrfs or zfs); "off" where the storage driver cannot
    WHYGPU_SHARED_DISK   "yes": accept the hub's state on the filesystem of Docker's data (a learner who
                         fills it stops the hub too); otherwise seats start only when they differ
    WHYGPU_HUB_CONNECT_IP  the host's address on that network, default 172.30.24.1
    WHYGPU_CPU_IMAGE     default whygpu:cpu      WHYGPU_GPU_IMAGE   default whygpu:cuda
    WHYGPU_GPUS          GPU ids or UUIDs to hand out, e.g. "0,1,2,3" (default: all that nvidia-smi lists)
    WHYGPU_SEAT_CPUS     the cores seats are cut from, e.g. "2-31" (default: all the hub may use)
    WHYGPU_CPU_SHARING   "pinned" (default: cores of one's own) or "shared" (a CPU-time quota only)
    WHYGPU_MAX_SEATS     servers running at once (default: what fits, docker/README.md "Sizing per seat")
"""
import ipaddress
import os
import sys
from urllib.parse import urlparse

from tornado import web

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKOUT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from course_login import configure as configure_login  # noqa: E402
import seats  # noqa: E402

c = get_config()  # noqa: F821  (provided by JupyterHub when it loads this file)
env = os.environ


def refuse(why):
    sys.exit(f"jupyterhub_config.py: {why}")


CPU_IMAGE = env.get("WHYGPU_CPU_IMAGE", "whygpu:cpu")
GPU_IMAGE = env.get("WHYGPU_GPU_IMAGE", "whygpu:cuda")
GPUS = seats.parse_list(env.get("WHYGPU_GPUS", "")) or seats.discover_gpus()
try:
    SEAT_CPUS = seats.parse_cpuset(env.get("WHYGPU_SEAT_CPUS", "")) or seats.host_cpus()
except ValueError as e:
    refuse(f"WHYGPU_SEAT_CPUS: {e}")
PINNED = env.get("WHYGPU_CPU_SHARING", "pinned") == "pinned"
if env.get("WHYGPU_CPU_SHARING", "pinned") not in ("pinned", "shared"):
    refuse("WHYGPU_CPU_SHARING is 'pinned' (cores of one's own) or 'shared' (a CPU-time quota)")
GPU_POOL, CPU_POOL = seats.Pool(GPUS), seats.Pool(SEAT_CPUS)

# Resources per seat (docker/README.md, "Sizing per seat"): the CPU lessons fit 2 cores and 4 GB; a GPU seat
# needs more host memory for the CUDA libraries and host-side buffers. No swap (memswap = mem), a pids cap
# (chosen, not measured: far above a lesson's processes and threads, low enough to stop a fork loop).
SEAT = {CPU_IMAGE: {"mem": "4G", "cpus": 2}, GPU_IMAGE: {"mem": "8G", "cpus": 4}}
PIDS_LIMIT = 2048
# Disk per seat: the container's writable layer (what a learner writes outside ~/work). ~/work itself is a
# volume, outside that limit: docker/README.md, "Security", says how to bound it.
SEAT_DISK = env.get("WHYGPU_SEAT_DISK", "10G")
SHARED_DISK = env.get("WHYGPU_SHARED_DISK") == "yes"

# --- the hub's own state: outside the checkout, so `docker build .` can never copy it into the image ---
STATE = os.path.abspath(env.get("WHYGPU_HUB_STATE", "/var/lib/whygpu-hub"))
if os.path.commonpath([STATE, CHECKOUT]) == CHECKOUT:
    refuse(f"WHYGPU_HUB_STATE={STATE} is inside the checkout {CHECKOUT}: the image build would copy the "
           "hub's database and cookie secret; use a directory outside it, e.g. /var/lib/whygpu-hub")
os.makedirs(STATE, mode=0o700, exist_ok=True)
os.chmod(STATE, 0o700)
c.JupyterHub.db_url = "sqlite:///" + os.path.join(STATE, "jupyterhub.sqlite")
c.JupyterHub.cookie_secret_file = os.path.join(STATE, "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = os.path.join(STATE, "jupyterhub.pid")
c.ConfigurableHTTPProxy.pid_file = os.path.join(STATE, "jupyterhub-proxy.pid")
c.JupyterHub.internal_certs_location = os.path.join(STATE, "internal-ssl")

# --- where it listens: TLS, or loopback only (behind a TLS proxy), unless the teacher says otherwise ---
CERT, KEY = env.get("WHYGPU_SSL_CERT", ""), env.get("WHYGPU_SSL_KEY", "")
if bool(CERT) != bool(KEY):
    refuse("set both WHYGPU_SSL_CERT and WHYGPU_SSL_KEY (the certificate and its key), or neither")
for f in (CERT, KEY):
    if f and not os.path.isfile(f):
        refuse(f"{f}: no such file (WHYGPU_SSL_CERT / WHYGPU_SSL_KEY)")
BIND = env.get("WHYGPU_HUB_URL") or ("https://:8000" if CERT else "http://127.0.0.1:8000")


def is_loopback(host):
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # "" (every interface) or a name


bind = urlparse(BIND)
if bind.scheme == "https" and not CERT:
    refuse(f"WHYGPU_HUB_URL={BIND} is https: set WHYGPU_SSL_CERT and WHYGPU_SSL_KEY")
if bind.scheme == "http" and CERT:
    refuse(f"WHYGPU_HUB_URL={BIND} is http although a certificate is set: use https://")
if bind.scheme == "http" and not is_loopback(bind.hostname or "") and env.get("WHYGPU_ALLOW_HTTP") != "yes":
    refuse(f"WHYGPU_HUB_URL={BIND} listens beyond this machine without TLS: passwords and cookies would "
           "travel in clear. Set WHYGPU_SSL_CERT/WHYGPU_SSL_KEY, or listen on 127.0.0.1 behind a TLS proxy "
           "(WHYGPU_PUBLIC_URL), or set WHYGPU_ALLOW_HTTP=yes to accept that risk")
c.JupyterHub.bind_url = BIND
if CERT:
    c.JupyterHub.ssl_cert, c.JupyterHub.ssl_key = CERT, KEY
if env.get("WHYGPU_PUBLIC_URL"):
    if not env["WHYGPU_PUBLIC_URL"].startswith("https://"):
        refuse("WHYGPU_PUBLIC_URL is the https:// address learners use")
    c.JupyterHub.public_url = env["WHYGPU_PUBLIC_URL"]  # https: the hub's cookies are Secure

# --- who logs in (course_login.py), and whether teachers may open learners' servers ----------------------
SUBDOMAIN = env.get("WHYGPU_SUBDOMAIN_HOST", "")
if SUBDOMAIN:
    if not SUBDOMAIN.startswith("https://"):
        refuse("WHYGPU_SUBDOMAIN_HOST is an https:// address with a wildcard certificate")
    c.JupyterHub.subdomain_host = SUBDOMAIN
configure_login(c, env, "jupyterhub_config.py", subdomains=bool(SUBDOMAIN))
if env.get("WHYGPU_PUBLIC_URL") and not env.get("WHYGPU_PROXY_HOPS"):
    c.CourseAuthenticator.proxy_hops = 2  # the TLS proxy appends the learner's address, the hub's proxy its own

# --- how many seats at once: what fits (cores and memory), starts a few at a time ----------------------
FIT = seats.seats_that_fit(len(SEAT_CPUS), seats.host_memory(), SEAT[CPU_IMAGE]["cpus"] if PINNED else 0.5)
c.JupyterHub.active_server_limit = int(env.get("WHYGPU_MAX_SEATS") or FIT)
c.JupyterHub.concurrent_spawn_limit = min(c.JupyterHub.active_server_limit, 10)

# --- the seats' network: the containers reach the hub's API on the host's address there ---------------
NETWORK = env.get("WHYGPU_NETWORK", "whygpu-seats")
c.JupyterHub.hub_ip = env.get("WHYGPU_HUB_CONNECT_IP", "172.30.24.1")
c.JupyterHub.hub_connect_ip = c.JupyterHub.hub_ip
c.JupyterHub.cleanup_servers = False  # a hub restart leaves the learners' servers running


# --- the learners' containers -----------------------------------------------------------------------
def _key(spawner):
    return f"{spawner.user.name}/{spawner.name}"


async def _held(spawner, label):
    """The label values of the live containers holding devices, this seat's own container excluded."""
    live = await spawner.docker("containers", all=True, filters={"label": label, "status": seats.LIVE})
    return [ct["Labels"][label] for ct in live if ct.get("Names") != ["/" + spawner.container_name]]


async def _gpu_for(spawner):
    """The GPU this server gets (once per start), or None on the CPU image."""
    if spawner.image != GPU_IMAGE:
        return None
    if getattr(spawner, "_whygpu_gpu", None):
        return spawner._whygpu_gpu
    got = GPU_POOL.acquire(_key(spawner), 1, await _held(spawner, seats.GPU_LABEL))
    if got is None:
        raise web.HTTPError(503, f"All {len(GPUS)} GPUs of this machine are in use; start the CPU course "
                                 "instead, or try again when a GPU is free.")
    spawner._whygpu_gpu = got[0]
    spawner.log.info("whygpu: %s gets GPU %s", _key(spawner), got[0])
    return got[0]


async def _cpus_for(spawner):
    """The cores this server gets (once per start), as Docker's cpuset string; None when sharing."""
    if not PINNED:
        return None
    if getattr(spawner, "_whygpu_cpus", None):
        return spawner._whygpu_cpus
    n = SEAT.get(spawner.image, SEAT[CPU_IMAGE])["cpus"]
    held = [cpu for text in await _held(spawner, seats.CPU_LABEL) for cpu in seats.parse_cpuset(text)]
    got = CPU_POOL.acquire(_key(spawner), n, held)
    if got is None:
        raise web.HTTPError(503, f"Every core of this machine is taken by a running course ({n} of its own "
                                 "per seat); try again when someone stops, or ask the teacher.")
    spawner._whygpu_cpus = seats.format_cpuset(got)
    spawner.log.info("whygpu: %s gets cores %s", _key(spawner), spawner._whygpu_cpus)
    return spawner._whygpu_cpus


async def _devices(spawner):
    """(GPU, cores) of this start; when one is missing, nothing stays held for it."""
    try:
        return await _gpu_for(spawner), await _cpus_for(spawner)
    except web.HTTPError:
        forget_devices(spawner)
        raise


async def create_kwargs(spawner):
    labels = {}
    gpu, cpus = await _devices(spawner)
    if gpu:
        labels[seats.GPU_LABEL] = gpu
    if cpus:
        labels[seats.CPU_LABEL] = cpus
    return {"labels": labels} if labels else {}


async def host_config(spawner):
    seat = SEAT.get(spawner.image, SEAT[CPU_IMAGE])
    cfg = {
        "mem_limit": seat["mem"], "memswap_limit": seat["mem"],  # no swap: a seat over its memory is stopped
        "pids_limit": PIDS_LIMIT,
        "cap_drop": ["ALL"], "security_opt": ["no-new-privileges:true"],
    }
    if SEAT_DISK != "off":
        cfg["storage_opt"] = {"size": SEAT_DISK}  # past it, writes fail with "No space left on device"
    gpu, cpus = await _devices(spawner)
    if cpus:
        cfg["cpuset_cpus"] = cpus  # cores of its own: XLA and Go see (and use) only these
    else:
        cfg["nano_cpus"] = int(seat["cpus"] * 1e9)
    if gpu:
        cfg["device_requests"] = [{"driver": "nvidia", "device_ids": [gpu], "capabilities": [["gpu"]]}]
    return cfg


async def before_start(spawner):
    """A new start chooses its devices again, on an internal network where seats cannot reach each other,
    with a disk limit (docker/README.md, "Security")."""
    forget_devices(spawner)
    try:
        net = await spawner.docker("inspect_network", NETWORK)
    except Exception as e:  # docker.errors.NotFound and the like: say how to make it
        raise web.HTTPError(503, f"the seats' network {NETWORK} is missing ({e}): create it as docker/README.md "
                                 "says (docker network create -o com.docker.network.bridge.enable_icc=false ...)")
    icc = (net.get("Options") or {}).get("com.docker.network.bridge.enable_icc")
    if icc != "false":
        raise web.HTTPError(503, f"the seats' network {NETWORK} lets containers reach each other: recreate it "
                                 "with -o com.docker.network.bridge.enable_icc=false (docker/README.md)")
    if net.get("Internal") is not True:
        raise web.HTTPError(503, f"the seats' network {NETWORK} routes out (the internet, the LAN, a cloud VM's "
                                 "metadata service at 169.254.169.254): recreate it with --internal (docker/README.md)")
    await _check_disks(spawner)


async def _check_disks(spawner):
    """A seat starts only with a disk limit Docker enforces, and with the hub's state on another filesystem
    than Docker's data (unless the teacher chose otherwise: WHYGPU_SEAT_DISK=off, WHYGPU_SHARED_DISK=yes)."""
    info = await spawner.docker("info")
    if SEAT_DISK != "off":
        driver = info.get("Driver", "")
        backing = dict((k, v) for k, v in (info.get("DriverStatus") or [])).get("Backing Filesystem", "")
        if not (driver in ("btrfs", "zfs") or (driver in ("overlay2", "overlay") and backing == "xfs")):
            raise web.HTTPError(503, f"Docker's storage driver {driver} on {backing or '?'} cannot limit a seat's "
                                     f"disk (WHYGPU_SEAT_DISK={SEAT_DISK}): put Docker's data on xfs mounted with "
                                     "pquota (or btrfs, zfs), or set WHYGPU_SEAT_DISK=off to run without a limit")
    root = info.get("DockerRootDir", "")
    try:
        same = bool(root) and os.stat(root).st_dev == os.stat(STATE).st_dev
    except OSError:
        same = False  # Docker's data is not visible from here (a remote engine): nothing shared
    if same and not SHARED_DISK:
        raise web.HTTPError(503, f"the hub's state ({STATE}) is on the filesystem of Docker's data ({root}): a "
                                 "learner filling it would stop the hub. Move WHYGPU_HUB_STATE to another "
                                 "filesystem, or set WHYGPU_SHARED_DISK=yes to accept that")


def forget_devices(spawner):
    GPU_POOL.release(_key(spawner))
    CPU_POOL.release(_key(spawner))
    spawner._whygpu_gpu = spawner._whygpu_cpus = None


c.JupyterHub.spawner_class = "docker"
c.DockerSpawner.image = CPU_IMAGE
c.DockerSpawner.allowed_images = (
    {"CPU course": CPU_IMAGE, "GPU course (one NVIDIA GPU of your own)": GPU_IMAGE} if GPUS
    else {"CPU course": CPU_IMAGE})
c.DockerSpawner.pull_policy = "never"  # the images are built on this machine (docker/README.md)
c.DockerSpawner.remove = True  # a fresh container (and device choice) at every start; work lives in the volume
c.DockerSpawner.network_name = NETWORK
c.DockerSpawner.use_internal_ip = True
c.DockerSpawner.volumes = {"whygpu-work-{username}": "/home/jovyan/work"}
# JupyterLab's settings and workspaces in the work volume: they survive a restart (a fresh container)
c.DockerSpawner.environment = {
    "JUPYTERLAB_SETTINGS_DIR": "/home/jovyan/work/.jupyterlab/user-settings",
    "JUPYTERLAB_WORKSPACES_DIR": "/home/jovyan/work/.jupyterlab/workspaces",
}
c.DockerSpawner.extra_create_kwargs = create_kwargs
c.DockerSpawner.extra_host_config = host_config
c.Spawner.pre_spawn_hook = before_start
c.Spawner.post_stop_hook = forget_devices  # the container is removed at stop: its GPU and cores are free
c.Spawner.default_url = "/lab/tree/work"
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 120

# --- idle culling: stop servers nobody used for an hour, so GPUs, cores and memory come back -----------
c.JupyterHub.load_roles.append({
    "name": "jupyterhub-idle-culler-role",
    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    "services": ["jupyterhub-idle-culler-service"],
})
c.JupyterHub.services = [{
    "name": "jupyterhub-idle-culler-service",
    "command": [sys.executable, "-m", "jupyterhub_idle_culler", "--timeout=3600", "--cull-every=300"],
}]
