"""Structure lint for notebooks: course kernel, outputs stripped, no absolute paths of a machine."""
import re

import pytest

from conftest import KERNEL, NOTEBOOKS, read

ABSOLUTE = re.compile(r"(/home/|/Users/|/root/|/work/|/tmp/|C:\\\\)")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_kernel_metadata(path):
    nb = read(path)
    assert nb.metadata.get("kernelspec", {}).get("name") == KERNEL, f"{path.name}: kernelspec must be {KERNEL!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_outputs_stripped(path):
    nb = read(path)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            assert not cell.get("outputs"), f"{path.name} cell {i}: outputs must be stripped"
            assert cell.get("execution_count") is None, f"{path.name} cell {i}: execution_count must be empty"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_no_absolute_paths(path):
    nb = read(path)
    for i, cell in enumerate(nb.cells):
        m = ABSOLUTE.search(cell.source)
        assert not m, f"{path.name} cell {i}: absolute path {m.group(0)!r} of an author's machine"


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ has no notebooks"
