"""What the pictures cost: ``--plot DIR`` and ``--report FILE.html`` against the same
run without pictures, side by side in one run (each case in turns, the order rotated
each turn, as ``bench_floor.py`` runs them).

    python bench/bench_plot.py                 # both inputs, 3 turns
    python bench/bench_plot.py --cases shapes --repeat 5

- ``fullgrid``: kbench's full mesh of ``bench_floor.py`` (294,912 configs of 10 tuning
  parameters x 4 shapes through ``$M``, 1,179,648 rows), ``-p M`` with and without
  pictures: per shape its best configs, its landscape, the heatmap of the two
  parameters ``--importance`` ranks first.
- ``shapes``: 1,000 shapes (``$M``) of 24 configs each, the default view with and
  without pictures (the first 24 shapes drawn one by one, the rest counted).

Each line: the best wall time over the best of the run without pictures, the ratios
turn by turn (their median is the figure to quote on a shared machine), the median
ratio of CPU times, and the peak RSS against the run without pictures.
"""

from __future__ import annotations

import argparse
import itertools
import platform
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from bench_floor import _frame, byte_compiled, full_grid, report, turns, write

SHAPES_GRID = {"BM": [64, 128, 256], "BN": [64, 128, 256, 512], "SWAP_AB": [0, 1]}


def many_shapes(shapes: int) -> pd.DataFrame:
    """``shapes`` values of ``$M``, each with every config of SHAPES_GRID."""
    configs = list(itertools.product(*SHAPES_GRID.values()))
    tuning = ["".join(f"/{n}={v}" for n, v in zip(SHAPES_GRID, c)) for c in configs]
    spec = [
        f"bench_matmul/$M={m}/$N=4096/$K=4096{t}"
        for m in range(1, shapes + 1)
        for t in tuning
    ]
    return _frame(np.array(spec, dtype=object), seed=2)


def case(kp: list[str], base: list[str], title: str, out: Path, repeat: int) -> None:
    commands = {
        "--plot DIR": [*kp, *base, "--plot", str(out / "charts")],
        "--report FILE.html": [*kp, *base, "--report", str(out / "report.html")],
    }
    report(title, "without pictures", turns([*kp, *base], commands, repeat), {})


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cases", nargs="+", choices=["fullgrid", "shapes"],
                        default=["fullgrid", "shapes"])  # fmt: skip
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="one tiny run of the shapes case (the bench smoke test)",
    )
    args = parser.parse_args()  # fmt: skip
    kprofile = shutil.which("kprofile")
    if kprofile is None:
        raise SystemExit("kprofile is not on PATH (pip install -e '.[analysis]')")
    byte_compiled()
    print(f"{platform.node()}: Python {sys.version.split()[0]}, "
          f"{platform.machine()}; kprofile {kprofile}")  # fmt: skip
    kp = [kprofile, "-q"]
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        if args.smoke:
            path = write(tmp / "shapes.pkl", many_shapes(3))
            case(kp, [str(path)], "3 shapes (smoke)", tmp, 1)
            return 0
        if "fullgrid" in args.cases:
            path = write(tmp / "fullgrid.pkl", full_grid())
            case(kp, [str(path), "-p", "M"], "full grid: 1,179,648 rows, -p M", tmp,
                 args.repeat)  # fmt: skip
        if "shapes" in args.cases:
            path = write(tmp / "shapes.pkl", many_shapes(1000))
            case(kp, [str(path)], "1,000 shapes of 24 configs", tmp, args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
