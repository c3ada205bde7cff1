"""Nothing outlives its kernel: gopls and a running cell program end with the course kernel, however it ends.

Real kernels through jupyter_client, as JupyterLab starts them (the course kernel spec: kernels/launcher
runs GoNB). Each test starts a kernel, waits for its gopls, starts a cell that would run for an hour, then
ends the kernel one way and checks that none of the processes below it is left.
"""
import os
import signal
import time

import pytest
from jupyter_client.manager import start_new_kernel

from conftest import KERNEL


def proc_stat(pid):
    """(comm, state, ppid, starttime) of a process, or None when it is gone."""
    try:
        s = open(f"/proc/{pid}/stat").read()
    except OSError:
        return None
    comm = s[s.index("(") + 1:s.rindex(")")]
    f = s[s.rindex(")") + 2:].split()
    return comm, f[0], int(f[1]), int(f[19])


def tree(root):
    """{pid: (comm, starttime)} of every live process below root."""
    kids = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = proc_stat(int(name))
            if st and st[1] != "Z":
                kids.setdefault(st[2], []).append((int(name), st))
    out, todo = {}, [root]
    while todo:
        for pid, st in kids.get(todo.pop(), []):
            out[pid] = (st[0], st[3])
            todo.append(pid)
    return out


def alive(pid, starttime):
    st = proc_stat(pid)
    return bool(st) and st[1] != "Z" and st[3] == starttime


def wait_for(pred, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(0.1)
    pytest.fail(f"timed out after {timeout} s waiting for {what}")


def start_busy_kernel():
    """A kernel with its gopls running and a cell program sleeping for an hour: (km, kc, pid, processes)."""
    km, kc = start_new_kernel(kernel_name=KERNEL, startup_timeout=120)
    pid = km.provisioner.pid
    kc.execute('%%\nfmt.Println("cell program", os.Getpid())\ntime.Sleep(time.Hour)\n')
    cell = None
    deadline = time.monotonic() + 180
    while cell is None and time.monotonic() < deadline:
        msg = kc.get_iopub_msg(timeout=180)
        text = msg["content"].get("text", "")
        if msg["msg_type"] == "stream" and "cell program" in text:
            cell = int(text.split()[-1])
    assert cell, "the cell program never printed its pid"
    procs = wait_for(lambda: (lambda t: t if any(c == "gopls" for c, _ in t.values()) and cell in t else None)(
        tree(pid)), 60, "gopls and the cell program below the kernel")
    return km, kc, pid, procs


def end(km, pid, procs, how):
    if how == "shutdown":
        km.shutdown_kernel(now=False)            # File → Shut Down Kernel
    elif how == "forced restart":
        km.shutdown_kernel(now=True)             # what a forced restart does: SIGKILL to the kernel's group
    elif how == "kill -9 kernel":
        os.kill(pid, signal.SIGKILL)             # a crash or the OOM killer, on the process Jupyter started
    elif how == "kill -9 gonb":
        (gonb,) = [p for p, (c, _) in procs.items() if c == "gonb"]
        os.kill(gonb, signal.SIGKILL)            # the OOM killer's choice may be GoNB itself
    else:
        raise ValueError(how)


@pytest.mark.parametrize("how", ["shutdown", "forced restart", "kill -9 kernel", "kill -9 gonb"])
def test_nothing_outlives_the_kernel(how):
    km, kc, pid, procs = start_busy_kernel()
    try:
        end(km, pid, procs, how)
        left = lambda: {p: c for p, (c, t) in procs.items() if alive(p, t)}  # noqa: E731
        deadline = time.monotonic() + 20
        while left() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not left(), f"after {how}, still running: {left()} (of {procs})"
    finally:
        kc.stop_channels()
        if km.has_kernel:
            km.shutdown_kernel(now=True)
        for p, (c, t) in procs.items():  # never leave a stray process to the next test
            if alive(p, t):
                os.kill(p, signal.SIGKILL)
