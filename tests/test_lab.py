"""`make lab`, the README's first command: JupyterLab on 127.0.0.1 with token auth, in notebooks/,
defaulting to the course kernel."""
import json
import os
import re
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

from conftest import KERNEL, ROOT


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, b""


def test_make_lab_serves_the_course_with_token_auth(tmp_path):
    port = free_port()
    log = open(tmp_path / "lab.log", "w+")
    proc = subprocess.Popen(["make", "-s", "lab", f"PORT={port}"], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        token = None
        for _ in range(120):
            log.seek(0)
            m = re.search(rf"http://127\.0\.0\.1:{port}/lab\?token=([0-9a-f]+)", log.read())
            if m:
                token = m.group(1)
                break
            assert proc.poll() is None, open(tmp_path / "lab.log").read()
            time.sleep(0.5)
        assert token, open(tmp_path / "lab.log").read()
        base = f"http://127.0.0.1:{port}"
        assert get(f"{base}/api/contents")[0] == 403, "the API must need the token"
        status, body = get(f"{base}/api/kernelspecs?token={token}")
        assert status == 200 and json.loads(body)["default"] == KERNEL
        status, body = get(f"{base}/api/contents?token={token}")
        names = {c["name"] for c in json.loads(body)["content"]}
        assert "00-setup-check.ipynb" in names, names
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
