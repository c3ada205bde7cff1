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
