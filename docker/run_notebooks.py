"""Execute course notebooks headless with the course kernel and the checks of tests/test_notebooks.py.

Used by docker/smoke.sh (in the image, also in the one CI builds: make test-image), so a teacher's smoke test and CI
judge a notebook the same way: no error output, every "whygpu": {"expect": [...]} met. Also reports the
time of the first code cell (GoNB compiling and running it), which the warmed Go build cache keeps short.

usage: python docker/run_notebooks.py [--max-first-cell SECONDS] [--out DIR] NOTEBOOK...
"""
import argparse
import datetime
import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import nbformat  # noqa: E402

import test_notebooks  # noqa: E402  (tests/test_notebooks.py: the checks CI applies to every notebook)


def cell_seconds(cell):
    ex = cell.get("metadata", {}).get("execution", {})
    start, end = ex.get("iopub.execute_input"), ex.get("shell.execute_reply")
    if not (start and end):
        return None
    parse = lambda s: datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))  # noqa: E731
    return (parse(end) - parse(start)).total_seconds()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-first-cell", type=float, default=0, help="fail when the first code cell takes longer")
    ap.add_argument("--out", default="", help="where to write the executed notebooks (default: a temp dir)")
    ap.add_argument("notebooks", nargs="+")
    args = ap.parse_args()
    out = pathlib.Path(args.out or tempfile.mkdtemp(prefix="whygpu-smoke-"))
    out.mkdir(parents=True, exist_ok=True)
    failed = 0
    for nb_path in map(pathlib.Path, args.notebooks):
        try:
            test_notebooks.test_notebook_runs_clean(nb_path.resolve(), out)
        except AssertionError as e:
            failed += 1
            print(f"FAIL {nb_path.name}: {e}", flush=True)
            continue
        nb = nbformat.read(str(out / nb_path.name), as_version=4)
        first = next((c for c in nb.cells if c.cell_type == "code"), None)
        secs = cell_seconds(first) if first is not None else None
        total = test_notebooks.TIMINGS.get(nb_path.name, 0)
        print(f"ok   {nb_path.name}: {total:.1f}s in all, first code cell {secs if secs is None else round(secs, 1)}s",
              flush=True)
        if args.max_first_cell and secs is not None and secs > args.max_first_cell:
            failed += 1
            print(f"FAIL {nb_path.name}: the first code cell took {secs:.1f}s (limit {args.max_first_cell:.0f}s): "
                  "is the Go build cache warm?", flush=True)
    print(f"{len(args.notebooks) - failed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
