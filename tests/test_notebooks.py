"""Every notebook runs headless through real Jupyter (nbclient) with the real course kernel.

A code cell may declare what it must produce in its metadata, e.g.
    "whygpu": {"expect": ["chart", "re:xla:cpu\\s+([0-9.]+) GFLOP/s"]}
"chart" needs an image/svg+xml or image/png output; "re:<regex>" must match the cell's text, and when the
regex has a group, the number it captures must be positive.
"""
import re
import time

import nbformat
import pytest

from _seat import Seat, record
from conftest import NOTEBOOKS, artifacts, badge_problems, cell_text, error_outputs, execute, has_chart  # noqa: F401

TIMINGS = {}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_clean(path, artifacts):
    t0 = time.monotonic()
    with Seat() as seat:  # the kernel's whole tree: GoNB, gopls, cells, compiler (tests/_seat.py)
        nb = execute(path)
    TIMINGS[path.name] = time.monotonic() - t0
    record(artifacts, "lesson " + path.stem, seat.row())
    nbformat.write(nb, str(artifacts / path.name))
    problems = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for err in error_outputs(cell):
            problems.append(f"cell {i}: error output: {err}")
        for bad in badge_problems(cell):
            problems.append(f"cell {i}: {bad}")
        for again in (a for out in cell.get("outputs", []) for a in repeated_assumptions(output_text(out))):
            problems.append(f"cell {i}: prints the same model text twice in one output (say it once; the badge's fold holds the assumptions): {again!r}")
        for exp in cell.metadata.get("whygpu", {}).get("expect", []):
            if exp == "chart":
                if not has_chart(cell):
                    problems.append(f"cell {i}: expected a chart (image/svg+xml or image/png)")
            elif exp.startswith("re:"):
                m = re.search(exp[3:], cell_text(cell))
                if not m:
                    problems.append(f"cell {i}: expected output matching {exp[3:]!r}, got:\n{cell_text(cell)[:1500]}")
                elif m.groups() and not float(m.group(1)) > 0:
                    problems.append(f"cell {i}: expected a positive number in {m.group(0)!r}")
            else:
                problems.append(f"cell {i}: unknown expectation {exp!r}")
    assert not problems, f"{path.name} ({TIMINGS[path.name]:.0f}s):\n" + "\n".join(problems)
    print(f"{path.name}: {TIMINGS[path.name]:.1f}s")


def repeated_assumptions(text):
    """Long fragments about a model or its assumptions that one output prints more than once (issue 35: the
    model's whole assumption string was printed three times under each batch chart). A fragment is a clause
    between sentence or list punctuation, at least 60 characters long."""
    seen, again = set(), []
    for frag in re.split(r"[\n;.()\[\]]+", text):
        frag = " ".join(frag.split())
        if len(frag) < 60 or not re.search(r"model|assum", frag, re.I):
            continue
        if frag in seen and frag not in again:
            again.append(frag)
        seen.add(frag)
    return again


def output_text(out):
    """One output's text in one form: a stream's text, else its plain text, else its HTML without tags (cell_text
    joins every form, so a display with both a plain and an HTML form would count twice)."""
    if out.get("output_type") == "stream":
        return out.get("text", "")
    data = out.get("data", {})
    text = data.get("text/plain") or re.sub(r"<[^>]+>", " ", data.get("text/html", ""))
    # The origin badges' line is the fold that holds the assumptions (once per origin): not printed prose.
    return "\n".join(line for line in text.splitlines() if not line.startswith("origin: "))
