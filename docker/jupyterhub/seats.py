"""What each seat of the one-machine hub holds: its own GPU and its own CPU cores (the bookkeeping of
docker/jupyterhub/jupyterhub_config.py; plain Python, no JupyterHub or Docker imports, so
docker/tests/test_jupyterhub_config.py tests it directly).

Docker's `--gpus 1` (a device request with count=1) does not choose a free GPU: every container gets the
first one. And a CPU quota (`--cpus 2`) caps CPU time but leaves every host core visible, so XLA and the Go
runtime start a thread per host core and the quota throttles them. So the hub gives each seat explicit
devices nobody else holds: one GPU id, and a set of cores for `cpuset_cpus`. What is held comes from two
places: this hub's own assignments (servers starting now) and the labels of the live containers Docker
runs (servers started before a hub restart; an exited container holds nothing).
"""
import os
import shutil
import subprocess

GPU_LABEL = "org.gpu-course.whygpu.gpu"
CPU_LABEL = "org.gpu-course.whygpu.cpus"
# Containers in these states hold their devices; exited and dead ones hold nothing.
LIVE = ["created", "restarting", "running", "paused"]

HOST_RESERVE_GIB = 2.0   # for the host and the hub (docker/README.md, "Sizing per seat")
SEAT_PEAK_GIB = 2.5      # the measured peak of the largest lesson plus its JupyterLab (same section)


def parse_list(text):
    """'0,1, 2' or 'GPU-uuid1,GPU-uuid2' -> ['0', '1', '2'] / ['GPU-uuid1', 'GPU-uuid2']."""
    return [g.strip() for g in (text or "").split(",") if g.strip()]


def parse_cpuset(text):
    """A Linux CPU list ('0-3,8,10-11') -> [0, 1, 2, 3, 8, 10, 11]; ValueError on anything else."""
    out = []
    for part in parse_list(text):
        lo, _, hi = part.partition("-")
        lo, hi = int(lo), int(hi or lo)
        if lo < 0 or hi < lo:
            raise ValueError(f"{part!r} is not a CPU range")
        out.extend(range(lo, hi + 1))
    return sorted(set(out))


def format_cpuset(cpus):
    """[2, 3] -> '2,3' (what Docker's cpuset_cpus takes)."""
    return ",".join(str(c) for c in sorted(cpus))


def discover_gpus():
    """The UUIDs of this machine's NVIDIA GPUs (nvidia-smi), or [] without one."""
    if not shutil.which("nvidia-smi"):
        return []
    out = subprocess.run(["nvidia-smi", "--query-gpu=uuid", "--format=csv,noheader"], capture_output=True,
                         text=True, timeout=30)
    return parse_list(out.stdout.replace("\n", ",")) if out.returncode == 0 else []


def host_cpus():
    """The cores the hub itself may use (its affinity): what seats are cut from."""
    return sorted(os.sched_getaffinity(0))


def host_memory():
    """MemTotal of /proc/meminfo in bytes (0 when unreadable)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def seats_that_fit(cores, mem_bytes, cores_per_seat):
    """How many CPU seats one machine holds, from the measured sizing: each seat cores_per_seat cores and
    SEAT_PEAK_GIB at peak, HOST_RESERVE_GIB kept for the host; at least 1."""
    by_mem = int((mem_bytes / 2**30 - HOST_RESERVE_GIB) // SEAT_PEAK_GIB) if mem_bytes else cores
    by_cpu = int(cores // cores_per_seat)
    return max(1, min(by_mem, by_cpu))


class Pool:
    """Which seat holds which devices (GPU ids, cores). Keys are 'user/server' names."""

    def __init__(self, items):
        self.items = list(items)
        self.assigned = {}  # key -> [items]

    def acquire(self, key, n=1, in_use=()):
        """The n items for `key`: those it holds already, else the first n nobody holds; None when fewer are free.

        in_use: items that live containers hold (from their labels), this seat's own container excluded.
        """
        if key in self.assigned:
            return self.assigned[key]
        free = self.free(in_use)
        if len(free) < n:
            return None
        self.assigned[key] = free[:n]
        return self.assigned[key]

    def release(self, key):
        self.assigned.pop(key, None)

    def free(self, in_use=()):
        taken = set(in_use)
        for held in self.assigned.values():
            taken.update(held)
        return [i for i in self.items if i not in taken]
