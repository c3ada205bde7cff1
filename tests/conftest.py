"""Shared helpers for the notebook tests: run notebooks through real Jupyter with the course kernel."""
import os
import pathlib
import re

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
KERNEL = "whygpu"
ARTIFACTS = ROOT / "tests" / "artifacts"


def read(path):
    return nbformat.read(str(path), as_version=4)


def error_outputs(cell):
    """Error outputs of an executed code cell: Jupyter errors, and stderr that reports a failure."""
    bad = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            bad.append(f"{out.get('ename')}: {out.get('evalue')}")
        elif out.get("output_type") == "stream" and out.get("name") == "stderr":
            text = out.get("text", "")
            if re.search(r"panic:|error|failed|cannot", text, re.I):
                bad.append(text[:2000])
        elif out.get("output_type") in ("display_data", "execute_result"):
            html = out.get("data", {}).get("text/html", "")
            if "whygpu-error" in html or "gonb-err" in html:
                bad.append(re.sub(r"<[^>]+>", "", html)[:2000])
    return bad


def cell_text(cell):
    """All text a cell printed: streams, plain text and HTML (tags stripped)."""
    parts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            parts.append(out.get("text", ""))
        data = out.get("data", {})
        parts.append(data.get("text/plain", ""))
        parts.append(re.sub(r"<[^>]+>", " ", data.get("text/html", "")))
    return "\n".join(parts)


BADGE = 'class="whygpu-badge"'
UNSTATED = 'data-origin="unstated"'
DISPLAY_TABLE = '<table class="whygpu-table"><thead>'  # display.Table and ResultsTable


def badge_problems(cell):
    """Charts and tables of an executed cell shown without their origin badge (as `whygpu run` checks:
    cmd/whygpu/run.go BadgeProblems): a chart image with no badge before it in the cell, a display table
    without its badge, a badge saying "origin not stated"."""
    bad, badged = [], False
    for out in cell.get("outputs", []):
        data = out.get("data", {})
        html = "".join(data.get("text/html", ""))
        badged = badged or BADGE in html
        if UNSTATED in html:
            bad.append("a table or chart whose origin is not stated")
        if DISPLAY_TABLE in html and BADGE not in html:
            bad.append("a table without its origin badge")
        if (data.get("image/svg+xml") or data.get("image/png")) and not badged:
            bad.append("a chart without its origin badge above it")
    return bad


def has_chart(cell):
    for out in cell.get("outputs", []):
        data = out.get("data", {})
        svg = "".join(data.get("image/svg+xml", ""))
        png = "".join(data.get("image/png", ""))
        if len(svg) > 2000 or len(png) > 2000:
            return True
    return False


def execute(path, timeout=600):
    """Execute a notebook with the course kernel; error outputs are kept for the caller to check."""
    nb = read(path)
    client = NotebookClient(
        nb, kernel_name=KERNEL, timeout=timeout, allow_errors=True,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    return nb


@pytest.fixture(scope="session")
def artifacts():
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


def pytest_collection_modifyitems(config, items):
    """The classroom load test runs last: by then each lesson's notebook run has its time alone."""
    items.sort(key=lambda item: item.path.name == "test_classroom_load.py")  # stable: the rest keep their order
