"""Several learners at once: three copies of a lesson run at the same time through one JupyterLab server.

The server is the one `make lab` starts (jupyter lab, token auth, the course kernel); each copy gets its
own session and kernel through the server's REST API and kernel websocket, as three browser tabs would.
Two lessons: 00 (the set-up check) and 11 (the capstone: the cheapest lesson that times real work — a
training step, the matmul ceiling, a tuning sweep — at its defaults). Every cell must succeed in every
copy. The wall time of the three together is reported next to the time of one alone (for 11, its own
notebook run earlier in the same session when there was one — conftest runs this file last —, else a
run alone here); nothing asserts on time (a loaded machine is slower, not wrong, and the lessons' timed
results say they were disturbed). The server's own memory and the seats' peaks go to
tests/artifacts/seat-sizing.json (tests/_seat.py).
"""
import json
import os
import re
import shutil
import socket
import subprocess
import threading
import time
import uuid

import nbformat
import requests
import websocket

from _seat import Seat, record
from conftest import KERNEL, ROOT, artifacts, cell_text, has_chart  # noqa: F401

LESSONS = [ROOT / "notebooks" / "00-setup-check.ipynb", ROOT / "notebooks" / "11-capstone.ipynb"]
COPIES = 3


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_copy(base, token, name):
    """Execute every code cell of notebook `name` in a new session; returns the list of problems."""
    auth = {"Authorization": f"token {token}"}
    r = requests.post(f"{base}/api/sessions", headers=auth, timeout=60,
                      json={"path": name, "type": "notebook", "name": name, "kernel": {"name": KERNEL}})
    r.raise_for_status()
    sess = r.json()
    kid, sid = sess["kernel"]["id"], uuid.uuid4().hex
    ws = websocket.create_connection(
        f"{base.replace('http', 'ws')}/api/kernels/{kid}/channels?session_id={sid}", header=[f"Authorization: token {token}"],
        timeout=600)
    problems = []
    try:
        nb = nbformat.read(str(ROOT / "build" / "_load" / name), as_version=4)
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "code" or not cell.source.strip():
                continue
            mid = uuid.uuid4().hex
            ws.send(json.dumps({
                "header": {"msg_id": mid, "msg_type": "execute_request", "session": sid, "username": "learner",
                           "version": "5.3", "date": ""},
                "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
                "content": {"code": cell.source, "silent": False, "store_history": True, "user_expressions": {},
                            "allow_stdin": False, "stop_on_error": True}}))
            idle = reply = None
            outputs = []  # as nbformat keeps them, for the cell's own expectations
            while idle is None or reply is None:
                m = json.loads(ws.recv())
                if m.get("parent_header", {}).get("msg_id") != mid:
                    continue
                t, c = m["msg_type"], m["content"]
                if t == "execute_reply":
                    reply = c["status"]
                elif t == "status" and c.get("execution_state") == "idle":
                    idle = True
                elif t == "error":
                    problems.append(f"{name} cell {i}: {c.get('ename')}: {c.get('evalue')}")
                elif t == "stream" and c.get("name") == "stderr" and re.search(r"panic:|error|failed", c["text"], re.I):
                    problems.append(f"{name} cell {i}: stderr: {c['text'][:500]}")
                if t == "stream":
                    outputs.append({"output_type": "stream", "text": c["text"]})
                elif t in ("display_data", "execute_result", "update_display_data"):
                    outputs.append({"output_type": t, "data": c.get("data", {})})
            if reply != "ok":
                problems.append(f"{name} cell {i}: execute_reply {reply}")
            problems += expectation_problems(name, i, cell, outputs)
    finally:
        ws.close()
        requests.delete(f"{base}/api/sessions/{sess['id']}", headers=auth, timeout=60)
        requests.delete(f"{base}/api/kernels/{kid}", headers=auth, timeout=60)
    return problems


def expectation_problems(name, i, cell, outputs):
    """The cell's own expectations (its metadata, as tests/test_notebooks.py checks them) in this copy:
    they must hold under the load of three learners, or they depend on timing."""
    done, problems = {"outputs": outputs}, []
    for exp in cell.metadata.get("whygpu", {}).get("expect", []):
        if exp == "chart" and not has_chart(done):
            problems.append(f"{name} cell {i}: expected a chart")
        elif exp.startswith("re:"):
            m = re.search(exp[3:], cell_text(done))
            if not m:
                problems.append(f"{name} cell {i}: expected output matching {exp[3:]!r}, got:\n{cell_text(done)[:800]}")
            elif m.groups() and not float(m.group(1)) > 0:
                problems.append(f"{name} cell {i}: expected a positive number in {m.group(0)!r}")
    return problems


def run_together(base, token, names):
    results = {}
    threads = [threading.Thread(target=lambda n=n: results.__setitem__(n, run_copy(base, token, n))) for n in names]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.monotonic() - t0, [p for n in names for p in results.get(n, [f"{n}: no result"])]


def alone_elsewhere(lesson):
    """The lesson's wall time alone from its notebook run in this session (tests/test_notebooks.py), or None."""
    try:
        import test_notebooks
    except ImportError:
        return None
    return test_notebooks.TIMINGS.get(lesson.name)


def test_three_learners_at_once(tmp_path, artifacts):  # noqa: F811
    work = ROOT / "build" / "_load"  # inside the checkout: the kernel's Go workspace is the course's
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for lesson in LESSONS:
        for i in range(COPIES + 1):
            shutil.copy(lesson, work / f"learner{i}-{lesson.name}")
    port, token = free_port(), uuid.uuid4().hex
    log = open(tmp_path / "lab.log", "w+")
    server = subprocess.Popen(
        [str(ROOT / ".venv/bin/jupyter"), "lab", "--ip=127.0.0.1", f"--port={port}", "--no-browser",
         f"--ServerApp.token={token}", f"--ServerApp.root_dir={work}"] + (["--allow-root"] if os.getuid() == 0 else []),
        cwd=work, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                if requests.get(f"{base}/api/status", headers={"Authorization": f"token {token}"}, timeout=5).ok:
                    break
            except requests.ConnectionError:
                pass
            assert server.poll() is None, open(tmp_path / "lab.log").read()
            time.sleep(0.5)
        with Seat(root=server.pid, children_cpu=False) as idle_server:
            time.sleep(1)
        record(artifacts, "JupyterLab server alone (idle)", idle_server.row())
        for lesson in LESSONS:
            names = [f"learner{i}-{lesson.name}" for i in range(COPIES + 1)]
            alone, how = alone_elsewhere(lesson), "its notebook run in this session"
            if alone is None:
                alone, problems = run_together(base, token, names[:1])
                how = "through this server"
                assert not problems, "\n".join(problems)
            with Seat(root=server.pid, children_cpu=False) as seats:
                together, problems = run_together(base, token, names[1:])
            assert not problems, "\n".join(problems)
            row = seats.row()
            row.update(alone_wall_s=round(alone, 1), together_wall_s=round(together, 1), copies=COPIES, lesson=lesson.stem)
            record(artifacts, f"{COPIES} learners at once ({lesson.stem}, one JupyterLab)", row)
            load = os.getloadavg()
            print(f"\n{lesson.stem}: one learner {alone:.1f} s ({how}); {COPIES} at once {together:.1f} s "
                  f"(peak {row['peak_rss_mib']} MiB for the server and {COPIES} kernels; load average "
                  f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores)")
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(work, ignore_errors=True)
