#!/usr/bin/env python3
"""Stand-in for base-notebook's start-notebook.py: `jupyter lab` (DOCKER_STACKS_JUPYTER_CMD) with the
arguments given, or jupyterhub-singleuser when started by a hub (JUPYTERHUB_API_TOKEN)."""
import os
import sys

if "JUPYTERHUB_API_TOKEN" in os.environ:
    command = ["jupyterhub-singleuser"]
else:
    command = ["jupyter", os.environ.get("DOCKER_STACKS_JUPYTER_CMD", "lab")]
command += sys.argv[1:]
print("Executing: " + " ".join(command), flush=True)
os.execvp(command[0], command)
