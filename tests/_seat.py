"""Per-seat sizing, measured: peak memory and CPU time of what a learner's lesson runs.

`Seat` samples every process below a root (the pytest process: the course kernel nbclient starts, its
launcher, GoNB, gopls, each cell's program and the Go compiler) four times a second and keeps the peak of
their summed resident memory, and the peaks of the kernel's own parts (gopls, GoNB, cell programs,
compiler). CPU time is what the kernel's whole tree used, from getrusage(RUSAGE_CHILDREN): the kernel's
launcher reaps everything below it, so every descendant's CPU time is counted once it has ended.
Resident memory is summed per process, so pages they share count more than once: an upper bound.

The results go to tests/artifacts/seat-sizing.json (merged, one entry per lesson or server) and
tests/artifacts/seat-sizing.md, the table docker/README.md's per-seat sizing is taken from.
"""
import json
import os
import resource
import threading
import time

PAGE = os.sysconf("SC_PAGE_SIZE")


def _tree(root):
    kids = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            s = open(f"/proc/{name}/stat").read()
            rss = int(open(f"/proc/{name}/statm").read().split()[1]) * PAGE
        except (OSError, ValueError, IndexError):
            continue
        comm = s[s.index("(") + 1:s.rindex(")")]
        ppid = int(s[s.rindex(")") + 2:].split()[1])
        kids.setdefault(ppid, []).append((int(name), comm, rss))
    out, todo = [], [root]
    while todo:
        for pid, comm, rss in kids.get(todo.pop(), []):
            out.append((pid, comm, rss))
            todo.append(pid)
    return out


def part(comm):
    """Which part of a seat a process is, by its command name."""
    if comm == "gopls":
        return "gopls"
    if comm == "gonb":
        return "gonb"
    if comm.startswith("gonb_"):
        return "cells"  # GoNB names each cell's binary gonb_<id>
    if comm in ("go", "compile", "link", "asm", "cgo", "vet", "goimports"):
        return "go build"
    if comm.startswith("jupyter") or comm.startswith("python"):
        return "jupyter"
    return "other"


class Seat:
    """Samples a process tree's memory while in a `with` block; CPU from RUSAGE_CHILDREN (see the module)."""

    def __init__(self, root=None, every=0.25, children_cpu=True):
        self.root = root or os.getpid()
        self.every = every
        self.children_cpu = children_cpu
        self.peak = 0
        self.parts = {}
        self._stop = threading.Event()

    def sample(self):
        procs = _tree(self.root)
        if self.root != os.getpid():
            try:
                rss = int(open(f"/proc/{self.root}/statm").read().split()[1]) * PAGE
                procs.append((self.root, open(f"/proc/{self.root}/comm").read().strip(), rss))
            except OSError:
                pass
        total, by = 0, {}
        for _, comm, rss in procs:
            total += rss
            by[part(comm)] = by.get(part(comm), 0) + rss
        self.peak = max(self.peak, total)
        for k, v in by.items():
            self.parts[k] = max(self.parts.get(k, 0), v)

    def _run(self):
        while not self._stop.wait(self.every):
            self.sample()

    def __enter__(self):
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        self._cpu0, self._t0 = r.ru_utime + r.ru_stime, time.monotonic()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.wall = time.monotonic() - self._t0
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.cpu = (r.ru_utime + r.ru_stime - self._cpu0) if self.children_cpu else None
        return False

    def row(self):
        mib = lambda b: round(b / 2**20)  # noqa: E731
        return {"peak_rss_mib": mib(self.peak), "parts_peak_rss_mib": {k: mib(v) for k, v in sorted(self.parts.items())},
                "cpu_s": None if self.cpu is None else round(self.cpu, 1), "wall_s": round(self.wall, 1)}


def record(artifacts, name, row):
    """Merge one row into seat-sizing.json and rewrite seat-sizing.md."""
    path = artifacts / "seat-sizing.json"
    try:
        table = json.loads(path.read_text())
    except (OSError, ValueError):
        table = {}
    table[name] = dict(row, measured=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), cores=os.cpu_count())
    path.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    lines = ["| what | peak RSS (MiB, sum of processes) | of which gopls / GoNB / cells / go build / Jupyter | CPU s | wall s |",
             "|---|---|---|---|---|"]
    for k, r in sorted(table.items()):
        p = r.get("parts_peak_rss_mib", {})
        parts = " / ".join(str(p.get(x, 0)) for x in ("gopls", "gonb", "cells", "go build", "jupyter"))
        wall = f"{r['wall_s']} (one alone: {r['alone_wall_s']})" if r.get("alone_wall_s") is not None else r["wall_s"]
        lines.append(f"| {k} | {r['peak_rss_mib']} | {parts} | {r.get('cpu_s') if r.get('cpu_s') is not None else '—'} | {wall} |")
    (artifacts / "seat-sizing.md").write_text(
        "Measured by `make test` (tests/_seat.py) on a machine with %d cores; peaks are sums of resident "
        "memory (shared pages counted per process: an upper bound).\n\n" % os.cpu_count() + "\n".join(lines) + "\n")
