"""The per-shape view and ``-d`` against today's default view of the same input,
side by side in one run (each case in turns, the order rotated each turn, as
``bench_floor.py`` runs them).

    python bench/bench_views.py                  # both inputs, 3 turns
    python bench/bench_views.py --cases shapes --repeat 5
    python bench/bench_views.py --old 30ca17a    # the code to compare with

"Today's default view" is the code at ``--old`` (a git revision of this repository,
by default the one before the per-shape view and ``-d``'s comparison of configs),
exported with ``git archive`` into a temporary folder and run from there; nothing in
kprofile itself knows of it.

- ``fullgrid``: kbench's full mesh of ``bench_floor.py`` (294,912 configs of 10
  tuning parameters x 4 shapes through ``$M``, 1,179,648 rows), written twice with
  different timings (a baseline and a new run).
- ``shapes``: 1,000 shapes (``$M``) of 24 configs each (``bench_plot.py``), twice.

Each line: the best wall time over the best of the old default view of the same
input (one file for the per-shape view, both files for ``-d``), the ratios turn by
turn (their median is the figure to quote on a shared machine), the median ratio of
CPU times, and the peak RSS against the old run's. Target: 1.2x.
"""

from __future__ import annotations

import argparse
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
from bench_floor import ROOT, _frame, byte_compiled, full_grid, report, turns, write
from bench_plot import many_shapes

OLD = "30ca17a"  # main before the per-shape view and -d's comparison of configs
SOURCE = (
    "import sys; sys.path[:0] = [{!r}, {!r}]; "
    "from kprofile.cli import main; sys.exit(main())"
)
TARGET = "1.2x"


def old_code(revision: str, folder: Path) -> list[str]:
    """The command that runs kprofile as it was at ``revision``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision, "kprofile", "hooks"],
        capture_output=True,
        check=True,
    )
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(folder)], check=True)
    code = SOURCE.format(str(folder), str(folder / "hooks"))
    return [sys.executable, "-c", code]


def two_runs(frame: pd.DataFrame, folder: Path, name: str) -> tuple[str, str]:
    """``frame`` as a baseline, and the same configs timed again (other noise)."""
    again = _frame(frame["spec"].to_numpy(dtype=object), seed=7)
    return (
        str(write(folder / f"{name}_a.pkl", frame)),
        str(write(folder / f"{name}_b.pkl", again)),
    )


def case(old: list[str], new: list[str], runs: tuple[str, str], title: str,
         repeat: int) -> None:  # fmt: skip
    first, second = runs
    targets = {"per-shape view": TARGET, "-d": TARGET}
    one = turns([*old, first], {"per-shape view": [*new, first]}, repeat)
    report(f"{title}: one file", "default view, before", one, targets)
    both = turns([*old, first, second], {"-d": [*new, "-d", first, second]}, repeat)
    report(f"{title}: two runs", "default view, before", both, targets)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cases", nargs="+", choices=["fullgrid", "shapes"],
                        default=["fullgrid", "shapes"])  # fmt: skip
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--old", default=OLD, help="the revision to compare with")
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="one tiny run of the shapes case (the bench smoke test)",
    )
    args = parser.parse_args()
    kprofile = shutil.which("kprofile")
    if kprofile is None:
        raise SystemExit("kprofile is not on PATH (pip install -e '.[analysis]')")
    byte_compiled()
    print(f"{platform.node()}: Python {sys.version.split()[0]}, "
          f"{platform.machine()}; kprofile {kprofile}; before: {args.old}")  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        (tmp / "old").mkdir()
        old = [*old_code(args.old, tmp / "old"), "-q"]
        new = [kprofile, "-q"]
        if args.smoke:
            case(old, new, two_runs(many_shapes(3), tmp, "smoke"), "3 shapes", 1)
            return 0
        if "fullgrid" in args.cases:
            runs = two_runs(full_grid(), tmp, "fullgrid")
            case(old, new, runs, "full grid: 1,179,648 rows", args.repeat)
        if "shapes" in args.cases:
            runs = two_runs(many_shapes(1000), tmp, "shapes")
            case(old, new, runs, "1,000 shapes of 24 configs", args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
