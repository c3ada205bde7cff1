"""Autocomplete (Tab) and inspection (Shift-Tab) through the Jupyter protocol, as JupyterLab asks for them.

Starts the course kernel, runs a lesson's usual first cell (it imports pkg/view/display), then, in a later cell
as a learner types it, asks for completions of `display.Ma` until one offers `Markdown` and for the
inspection of `display.Markdown` until it shows the function's documentation. Each request is repeated
(GoNB answers an error while gopls is still busy) until it works or the deadline passes; the timeline says
when each attempt started and how long it took, in seconds from kernel start.

Used by
  * scripts/setup.sh (`--warm`): one kernel, one completion: fills gopls' file cache exactly the way the
    learner's kernels will read it, and says when autocomplete did not work;
  * `whygpu doctor -autocomplete` (`--json`): the timeline, measured now;
  * tests/test_kernel.py (test_autocomplete_after_a_fresh_setup): the regression bound.
Run by hand: `.venv/bin/python kernels/autocomplete_probe.py` (GOPLSCACHE chooses gopls' cache, as in the
kernel).
"""
import argparse
import json
import os
import subprocess
import sys
import time

from jupyter_client.manager import start_new_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import bench_cells  # noqa: E402  (scripts/bench_cells.py: one request's iopub messages)

KERNEL = "whygpu"
FIRST_CELL = 'import "github.com/gpu-course/whygpu/pkg/view/display"\n\n%%\ndisplay.Markdown("first cell")\n'
# A later cell: the import is the first cell's, as every lesson is written.
COMPLETE = "%%\ndisplay.Ma"
INSPECT = '%%\ndisplay.Markdown("x")'
INSPECT_AT = len("%%\ndisplay.Markdown")  # the caret right after the name, as after typing it
# The bound the course promises (kernels/README.md): first useful answer this long after the first cell.
TARGET_S = 10.0


def _execute(kc, code, timeout=300):
    for _ in bench_cells.messages(kc, kc.execute(code), timeout):
        pass
    return kc.get_shell_msg(timeout=timeout)["content"]["status"]


def _reply(kc, msg_id, timeout=60):
    while True:
        reply = kc.get_shell_msg(timeout=timeout)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply["content"]


def _complete_ok(kc):
    reply = _reply(kc, kc.complete(COMPLETE, len(COMPLETE)))
    return reply.get("status"), "Markdown" in reply.get("matches", [])


def _inspect_ok(kc):
    reply = _reply(kc, kc.inspect(INSPECT, INSPECT_AT))
    md = reply.get("data", {}).get("text/markdown", "")
    return reply.get("status"), bool(reply.get("found")) and "func display.Markdown(" in md


REQUESTS = {"complete": _complete_ok, "inspect": _inspect_ok}
# What the set-up's warm-up asks (--warm): one Tab.
WARM = ("complete",)


def timeline(order=("complete", "inspect"), deadline_s=120, kernel=KERNEL, kernel_log=None, then=None):
    """Measures the first working answer of each request in order, in one new kernel.

    Returns a dict: kernel_ready_s, first_cell_status, first_cell_s (when the first cell ended), and per
    request name {"answered_s": seconds after kernel start or None, "after_first_cell_s": ...,
    "attempts": [[status, started_s, took_s, ok], ...]}; plus load (the 1-minute load average before and
    after) and cpus. A request gets until deadline_s after the first cell. The kernel's own log (GoNB's
    stderr) goes to kernel_log, a path, or nowhere. then, if given, is called with the kernel client after
    the requests (the kernel still running); what it returns is kept as out["then"].
    """
    out = {"load_before": os.getloadavg()[0], "cpus": os.cpu_count(), "gopls_cache": os.environ.get("GOPLSCACHE", "")}
    t0 = time.monotonic()
    log = open(kernel_log, "ab") if kernel_log else subprocess.DEVNULL
    km, kc = start_new_kernel(kernel_name=kernel, stderr=log)
    out["kernel_ready_s"] = round(time.monotonic() - t0, 2)
    try:
        out["first_cell_status"] = _execute(kc, FIRST_CELL)
        first = time.monotonic()
        out["first_cell_s"] = round(first - t0, 2)
        for name in order:
            ask = REQUESTS[name]
            r = {"answered_s": None, "after_first_cell_s": None, "attempts": []}
            out[name] = r
            while time.monotonic() - first < deadline_s:
                a = time.monotonic()
                status, ok = ask(kc)
                b = time.monotonic()
                r["attempts"].append([status, round(a - t0, 1), round(b - a, 1), ok])
                if ok:
                    r["answered_s"] = round(b - t0, 2)
                    r["after_first_cell_s"] = round(b - first, 2)
                    break
                time.sleep(0.5)
        if then is not None:
            out["then"] = then(kc)
    finally:
        kc.stop_channels()
        # A graceful shutdown: GoNB then stops its gopls.
        km.shutdown_kernel()
        if kernel_log:
            log.close()
    out["load_after"] = os.getloadavg()[0]
    return out


def describe(t):
    """One line per request: when it first worked, the attempts before, and the machine's load."""
    lines = [f"kernel ready {t['kernel_ready_s']:.1f} s, first cell ended {t['first_cell_s']:.1f} s after kernel start"
             f" ({t['first_cell_status']}); load average {t['load_before']:.1f} → {t['load_after']:.1f} on {t['cpus']} CPUs"]
    for name, what in (("complete", "Tab (display.Ma → Markdown)"), ("inspect", "Shift-Tab (display.Markdown)")):
        r = t.get(name)
        if r is None:
            continue
        failed = [a for a in r["attempts"] if not a[3]]
        tries = f"; {len(failed)} attempt(s) before: " + ", ".join(f"{a[0]} after {a[2]:.1f} s" for a in failed[:6]) if failed else ""
        if not r["attempts"]:
            lines.append(f"{what}: not asked (the deadline had passed)")
        elif r["after_first_cell_s"] is None:
            waited = r["attempts"][-1][1] + r["attempts"][-1][2] - t["first_cell_s"]
            lines.append(f"{what}: NO answer within {waited:.0f} s after the first cell{tries}")
        else:
            lines.append(f"{what}: {r['after_first_cell_s']:.1f} s after the first cell{tries}")
    return lines


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kernel", default=KERNEL)
    p.add_argument("--warm", action="store_true", help="the set-up's warm-up: one completion, one line, exit 1 if none")
    p.add_argument("--json", action="store_true", help="print the timeline as JSON")
    p.add_argument("--deadline", type=float, default=120, help="seconds after the first cell each request may take")
    p.add_argument("--kernel-log", help="append the kernel's own log (GoNB's stderr) to this file")
    a = p.parse_args(argv)
    order = WARM if a.warm else ("complete", "inspect")
    try:
        t = timeline(order=order, deadline_s=a.deadline, kernel=a.kernel, kernel_log=a.kernel_log)
    except Exception as e:  # the kernel did not start or a cell hung: say so, in the caller's format
        if a.json:
            print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
        else:
            print(f"autocomplete probe failed: {type(e).__name__}: {e}")
        return 1
    ok = t["first_cell_status"] == "ok" and all(t[n]["answered_s"] is not None for n in order)
    if a.json:
        print(json.dumps(t))
    else:
        print("\n".join(describe(t)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
