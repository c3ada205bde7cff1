#!/usr/bin/env python3
"""Stand-in for base-notebook's /etc/jupyter/docker_healthcheck.py, the same rule: find the running
server's jpserver-*.json in NB_USER's Jupyter runtime dir and GET its url + "api"; fail if that fails."""
import json
import os
import subprocess
from pathlib import Path

import requests

out = subprocess.run(["jupyter", "--runtime-dir"], check=True, capture_output=True, text=True,
                     env=dict(os.environ) | {"HOME": "/home/" + os.environ["NB_USER"]})
json_file = next(Path(out.stdout.rstrip()).glob("*server-*.json"))
url = json.loads(json_file.read_bytes())["url"] + "api"
r = requests.get(url, proxies={"http": "", "https": ""}, verify=False)
r.raise_for_status()
print(r.content)
