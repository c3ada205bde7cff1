"""One GPU per learner: the GPU bookkeeping of docker/jupyterhub/jupyterhub_config.py (plain Python, no
JupyterHub or Docker imports, so docker/tests/test_gpu_pool.py tests it directly).

Docker's `--gpus 1` (a device request with count=1) does not choose a free GPU: every container gets the
first one. So the hub gives each GPU server one explicit device id, one that no other server holds. What is
held comes from two places: this hub's own assignments (servers starting now) and the labels of the
containers Docker is running (servers started before a hub restart).
"""
import shutil
import subprocess

LABEL = "org.gpu-course.whygpu.gpu"


def parse_gpu_list(text):
    """'0,1, 2' or 'GPU-uuid1,GPU-uuid2' -> ['0', '1', '2'] / ['GPU-uuid1', 'GPU-uuid2']."""
    return [g.strip() for g in (text or "").split(",") if g.strip()]


def discover_gpus():
    """The UUIDs of this machine's NVIDIA GPUs (nvidia-smi), or [] without one."""
    if not shutil.which("nvidia-smi"):
        return []
    out = subprocess.run(["nvidia-smi", "--query-gpu=uuid", "--format=csv,noheader"], capture_output=True,
                         text=True, timeout=30)
    return parse_gpu_list(out.stdout.replace("\n", ",")) if out.returncode == 0 else []


class GPUPool:
    """Which learner's server holds which GPU. Keys are 'user/server' names."""

    def __init__(self, gpus):
        self.gpus = list(gpus)
        self.assigned = {}  # key -> gpu

    def acquire(self, key, in_use=()):
        """The GPU for `key`: the one it holds already, else the first one nobody holds; None when all are taken.

        in_use: GPUs that running containers hold (from their labels), this server's own container excluded.
        """
        if key in self.assigned:
            return self.assigned[key]
        taken = set(in_use) | set(self.assigned.values())
        for gpu in self.gpus:
            if gpu not in taken:
                self.assigned[key] = gpu
                return gpu
        return None

    def release(self, key):
        self.assigned.pop(key, None)

    def free(self, in_use=()):
        taken = set(in_use) | set(self.assigned.values())
        return [g for g in self.gpus if g not in taken]
