"""Cell latency through the real course kernel: the Python side of `whygpu bench -cells` (cmd/whygpu/bench_cells.go).

What a learner waits for after editing a cell, measured the way Jupyter sees it: from the execute request to
the kernel going idle, through jupyter_client and the installed course kernel (GoNB: goimports, go build,
run). One kernel, the lesson's import cell first (as in a notebook), one warm-up of each kind, then the
kinds interleaved, `--edits` times each:

  edited      a cell importing a lesson package (lessons/race) and pkg/view/display whose source changes on every
              run (a new constant), so GoNB rebuilds and relinks it: the fixed cost of every edit
  rerun       the same edited cell run again unchanged: go build finds its binary up to date
  trivial     fmt.Println of a changing number, the standard library only

With --baseline-goflags or --baseline-unset, a second kernel runs beside the first: the same spec with
GOFLAGS replaced or variables removed from its env (a copy of the spec in a temporary JUPYTER_PATH entry), its cells interleaved with the first kernel's, so the
before → after of a flag change is measured under the same load.

Prints one JSON object on stdout: per kernel ("course", and "baseline" when asked) its GOFLAGS, the
samples in seconds per kind, and the CPU seconds the kernel's process tree used for each (go build, the
linker and the cell's program: what the cell costs whatever else runs; on an idle machine the wall time
cannot be below it divided by the cores the build keeps busy); the load averages before and after; the Python/jupyter_client versions.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import jupyter_client
import psutil
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import start_new_kernel

IMPORTS = """import (
\t"github.com/gpu-course/whygpu/lessons/race"
\t"github.com/gpu-course/whygpu/pkg/view/display"
)
"""

KINDS = {
    # race.Deck (the lesson's recall deck, which every lesson has) is a package-level value: referencing it keeps the import (goimports drops
    # unused ones) without timing anything the lesson computes.
    "edited": lambda i: '%%%%\ndisplay.Markdown(fmt.Sprintf("edit %d: %%s", race.Deck.Lesson))\n' % i,
    "rerun": None,  # the edited cell again, unchanged: go build finds its binary up to date
    "trivial": lambda i: '%%%%\nfmt.Println("trivial", %d)\n' % i,
}


def tree_cpu(pid):
    """CPU seconds of the kernel's process tree so far: each live process's own time and that of the
    children it has waited for (go build, the linker, the cell's program), gopls included."""
    total = 0.0
    try:
        procs = [psutil.Process(pid)]
        procs += procs[0].children(recursive=True)
    except psutil.Error:
        return total
    for p in procs:
        try:
            t = p.cpu_times()
            total += t.user + t.system + t.children_user + t.children_system
        except psutil.Error:
            pass
    return total


def messages(kc, msg_id, timeout):
    """The iopub messages of one execute request (msg_id), until the kernel is idle after it (also
    used by tests/test_kernel.py)."""
    while True:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return
        yield msg


def run(kc, code, timeout, pid=None):
    """Executes code; returns (seconds from request to idle, status, error text, CPU seconds of the
    kernel's process tree meanwhile)."""
    cpu0 = tree_cpu(pid) if pid else 0.0
    t0 = time.perf_counter()
    msg_id = kc.execute(code)
    errors = []
    for msg in messages(kc, msg_id, timeout):
        t = msg["msg_type"]
        if t == "error":
            errors.append(msg["content"].get("evalue", ""))
        if t == "stream" and msg["content"].get("name") == "stderr":
            errors.append(msg["content"].get("text", ""))
    dt = time.perf_counter() - t0
    reply = kc.get_shell_msg(timeout=timeout)
    cpu = tree_cpu(pid) - cpu0 if pid else 0.0
    return dt, reply["content"]["status"], "\n".join(errors), cpu


def baseline_spec(kernel, goflags, unset, tmp):
    """A copy of the kernel's spec with GOFLAGS replaced (None: kept) and the variables in unset removed
    from its env, under tmp/kernels/<kernel>-baseline."""
    spec = KernelSpecManager().get_kernel_spec(kernel)
    name = kernel + "-baseline"
    dst = os.path.join(tmp, "kernels", name)
    shutil.copytree(spec.resource_dir, dst)
    with open(os.path.join(dst, "kernel.json")) as f:
        js = json.load(f)
    if goflags is not None:
        js["env"]["GOFLAGS"] = goflags
    for var in unset:
        js["env"].pop(var, None)
    js["display_name"] += " (baseline)"
    with open(os.path.join(dst, "kernel.json"), "w") as f:
        json.dump(js, f)
    os.environ["JUPYTER_PATH"] = tmp + os.pathsep + os.environ.get("JUPYTER_PATH", "")
    return name


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kernel", default="whygpu")
    ap.add_argument("--edits", type=int, default=10)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--baseline-goflags", default=None,
                    help="also run a kernel whose GOFLAGS are these (e.g. the old '-buildvcs=false'), interleaved")
    ap.add_argument("--baseline-unset", action="append", default=[],
                    help="also run a kernel without this variable of the spec's env (e.g. GONB_BUILD_GOGC), interleaved; repeatable")
    args = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="bench_cells_")
    names = {"course": args.kernel}
    if args.baseline_goflags is not None or args.baseline_unset:
        names["baseline"] = baseline_spec(args.kernel, args.baseline_goflags, args.baseline_unset, tmp)
    ksm = KernelSpecManager()
    load_before = os.getloadavg()
    out = {"kernel": args.kernel, "cores": os.cpu_count(), "edits": args.edits,
           "python": sys.version.split()[0], "jupyter_client": jupyter_client.__version__, "kernels": {}}
    kernels = {}
    try:
        for role, name in names.items():
            km, kc = start_new_kernel(kernel_name=name, startup_timeout=120,
                                      stderr=subprocess.DEVNULL)  # GoNB logs every step there
            kernels[role] = (km, kc)
            env = ksm.get_kernel_spec(name).env
            out["kernels"][role] = {"goflags": env.get("GOFLAGS", ""),
                                    "gonb_env": {k: v for k, v in env.items() if k.startswith("GONB_")},
                                    "samples": {k: [] for k in KINDS}, "cpu": {k: [] for k in KINDS}, "warmup": {}}

        def cell(role, kind, i):
            km, kc = kernels[role]
            code = (KINDS[kind] or KINDS["edited"])(i)
            dt, status, err, cpu = run(kc, code, args.timeout, km.provisioner.pid)
            if status != "ok":
                raise SystemExit(f"bench_cells: the {kind} cell failed in the {role} kernel ({status}): {err}")
            return dt, cpu

        for role in kernels:
            out["kernels"][role]["warmup"]["imports"] = run_imports(kernels[role][1], args.timeout, role)
            for k in KINDS:  # one warm-up each: the dependencies' build cache, the page cache
                out["kernels"][role]["warmup"][k] = cell(role, k, -1)[0]
        for i in range(args.edits):
            for role in kernels:
                for k in KINDS:
                    dt, cpu = cell(role, k, i)
                    out["kernels"][role]["samples"][k].append(dt)
                    out["kernels"][role]["cpu"][k].append(cpu)
    finally:
        for km, kc in kernels.values():
            kc.stop_channels()
            km.shutdown_kernel(now=True)
        shutil.rmtree(tmp, ignore_errors=True)
    out["load_before"] = list(load_before)
    out["load_after"] = list(os.getloadavg())
    json.dump(out, sys.stdout)
    print()


def run_imports(kc, timeout, role):
    dt, status, err, _ = run(kc, IMPORTS, timeout)
    if status != "ok":
        raise SystemExit(f"bench_cells: the import cell failed in the {role} kernel ({status}): {err}")
    return dt


if __name__ == "__main__":
    main()
