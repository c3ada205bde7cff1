"""Autocomplete through the Jupyter protocol, as JupyterLab asks for it.

Starts the course kernel, runs a first cell that imports pkg/display, then sends `complete_request`
for `display.Ma` until one answers with `Markdown`. Used by tests/test_kernel.py and runnable by hand
(`.venv/bin/python tests/autocomplete_probe.py`) to print the timeline.
"""
import time

from jupyter_client.manager import start_new_kernel

KERNEL = "whygpu"
FIRST_CELL = 'import "github.com/gpu-course/whygpu/pkg/display"\n\n%%\ndisplay.Markdown("first cell")\n'
PARTIAL = 'import "github.com/gpu-course/whygpu/pkg/display"\n\n%%\ndisplay.Ma'


def execute(kc, code, timeout=300):
    msg_id = kc.execute(code)
    while True:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    return kc.get_shell_msg(timeout=timeout)["content"]["status"]


def complete(kc, code, timeout=60):
    msg_id = kc.complete(code, len(code))
    while True:
        reply = kc.get_shell_msg(timeout=timeout)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply["content"]


def first_completion(deadline_s=120, kernel=KERNEL, partial=PARTIAL, wait_s=0):
    """Timeline of the first working completion: seconds from kernel start and from the first cell.

    Returns a dict with kernel_ready_s, first_cell_s (when the first cell finished), answered_s (when a
    reply offered Markdown), attempts (each attempt's status and seconds), and matches of the answer.
    """
    t0 = time.monotonic()
    km, kc = start_new_kernel(kernel_name=kernel)
    out = {"kernel_ready_s": time.monotonic() - t0, "attempts": []}
    try:
        cell_start = time.monotonic()
        out["first_cell_status"] = execute(kc, FIRST_CELL)
        out["first_cell_started_s"] = cell_start - t0
        out["first_cell_s"] = time.monotonic() - t0
        time.sleep(wait_s)
        while time.monotonic() - t0 < deadline_s:
            a = time.monotonic()
            reply = complete(kc, partial)
            b = time.monotonic()
            ok = "Markdown" in reply.get("matches", [])
            out["attempts"].append((reply.get("status"), round(a - t0, 1), round(b - a, 1), ok))
            if ok:
                out["answered_s"] = b - t0
                out["matches"] = reply["matches"]
                break
            time.sleep(0.5)
    finally:
        kc.stop_channels()
        # A graceful shutdown: GoNB then stops its gopls (killing the kernel outright leaves gopls running).
        km.shutdown_kernel()
    return out


if __name__ == "__main__":
    import json
    import sys

    print(json.dumps(first_completion(kernel=sys.argv[1] if len(sys.argv) > 1 else KERNEL), indent=1))
