"""kprofile against the physical floor: each case as a ratio to ``pickle.load`` of the
same file (or, for start-up, to a bare ``python -c "import pandas, numpy"``), the two
run in turns so that both see the same load on the machine.

    python bench/bench_floor.py                       # every case, 3 turns each
    python bench/bench_floor.py --cases fullgrid sweep --repeat 5
    python bench/bench_floor.py --sizes 100000 1000000   # a shorter sweep

Cases (``--cases``):

- ``startup``: a genuine 132-row kbench file (``fixtures/realkbench/A/out.pkl``)
  against the bare import of pandas and numpy;
- ``fullgrid``: kbench's full mesh, every row a distinct config (294,912 configs of
  10 tuning parameters x 4 shapes through ``$M``, 1,179,648 rows), ``-p M`` and
  ``-p M --top 0.05``;
- ``sweep``: a random grid with repeats (``bench_kprofile.make_frame``) at each of
  ``--sizes`` rows (default 100,000, 1,000,000, 5,000,000): the default view and
  ``--top 0.05``, with peak RSS against ``pickle.load``'s;
- ``distinct``: 1,000,000 rows whose parameter ``X`` has a distinct value per row
  (ints, then strings) against 1,000,000 rows with 7 values;
- ``gzip``: the full grid as ``DataFrame.to_pickle`` writes a ``.pkl.gz``: peak RSS
  of ``kprofile -p M`` against ``pandas.read_pickle``'s.

Every file is written with kbench's recipe for its columns (``name`` and ``spec``
``astype("string")``, ``file`` a ``pathlib.Path``, ``pickle.HIGHEST_PROTOCOL``).
Each figure is the best wall time of ``--repeat`` turns, with the spread of the
ratios turn by turn (lowest-highest, and their median: on a shared machine the
median of the side-by-side ratios is the figure to quote) and the peak RSS of each
process. kprofile's modules are byte-compiled first (``byte_compiled``).
"""

from __future__ import annotations

import argparse
import compileall
import gzip
import importlib.util
import itertools
import pickle
import platform
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from statistics import median
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from bench_kprofile import WRAPPER, make_frame

from kprofile.inputs.ahead import cores

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "fixtures" / "realkbench" / "A" / "out.pkl"
LOAD = "import pickle, sys; pickle.load(open(sys.argv[1], 'rb'))"
READ = "import pandas, sys; pandas.read_pickle(sys.argv[1])"
IMPORT = "import pandas, numpy"
GRID: dict[str, list[Any]] = {
    "BM": [64, 128, 256, 512],
    "BN": [64, 128, 256, 512],
    "BK": [32, 64, 128],
    "STAGES": [2, 3, 4, 5, 6, 7],
    "CLUSTER_M": [1, 2, 4, 8],
    "CLUSTER_N": [1, 2, 4, 8],
    "SWAP_AB": [True, False],
    "SCHEDULE": ["default", "ws", "ws_pingpong", "ws_cooperative"],
    "RASTER": ["along_m", "along_n"],
    "SPLIT_K": [1, 2, 4, 8],
}  # 294,912 configs
SHAPES = ((256, 20480, 5376), (4096, 4096, 4096), (8, 7168, 2048), (128, 512, 192))


class Run(NamedTuple):
    wall: float  # s
    cpu: float  # s, user + system
    rss: float  # MiB, peak


def run(command: list[str]) -> Run:
    """Wall and CPU time and peak RSS of one run in a fresh wrapper process."""
    out = subprocess.run(
        [sys.executable, "-c", WRAPPER, *command],
        capture_output=True,
        text=True,
        check=True,
    )
    wall, cpu, rss_kib, code = out.stdout.split()
    if code != "0":
        raise SystemExit(f"failed ({code}): {' '.join(command)}")
    return Run(float(wall), float(cpu), int(rss_kib) / 1024)


Turns = tuple[list[Run], dict[str, list[Run]]]


def turns(base: list[str], commands: dict[str, list[str]], repeat: int) -> Turns:
    """``base`` and each command in turn, ``repeat`` times: each turn of each, in an
    order rotated by one each turn. A process is given the pages the one before it
    freed cheaply, and fresh ones dearly (on a virtual machine the host backs them
    again): in a fixed order the command run after the floor, which frees less than
    the others take, would always pay for the difference."""
    floors: list[Run] = []
    found: dict[str, list[Run]] = {k: [] for k in commands}
    labels: list[str | None] = [None, *commands]  # None: the floor
    for turn in range(repeat):
        shift = turn % len(labels)
        for label in labels[shift:] + labels[:shift]:
            if label is None:
                floors.append(run(base))
            else:
                found[label].append(run(commands[label]))
    return floors, found


def report(title: str, floor_label: str, measured: Turns, targets: dict) -> None:
    """Each command's best wall over the floor's best, the spread of the ratios
    turn by turn and their median, the median ratio of CPU times (what the load of
    other work on the machine changes least), and its peak RSS over the floor's."""
    floors, found = measured
    wall, rss = min(f.wall for f in floors), max(f.rss for f in floors)
    print(f"\n{title}")
    print(f"  {floor_label:<28}{wall:>7.2f} s{rss:>8.0f} MiB")
    for label, runs in found.items():
        best = min(r.wall for r in runs)
        each = sorted(r.wall / f.wall for r, f in zip(runs, floors))
        cpu = median(r.cpu / f.cpu for r, f in zip(runs, floors))
        peak = max(r.rss for r in runs)
        target = f"   target {targets[label]}" if label in targets else ""
        print(
            f"  {label:<22}{best:>6.2f} s {best / wall:>5.2f}x"
            f" (turns {each[0]:.2f}-{each[-1]:.2f}, median {median(each):.2f};"
            f" cpu {cpu:.2f}x)  peak {peak:>5.0f} MiB {peak / rss:.2f}x{target}"
        )


def byte_compiled() -> None:
    """kprofile's modules compiled first, as an install compiles them: an editable
    install under PYTHONDONTWRITEBYTECODE would compile every module at each start
    (about 0.15 s on this machine), which no user's start-up pays twice."""
    for package in ("kprofile", "tuning_codegen"):
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.origin is not None:
            compileall.compile_dir(Path(spec.origin).parent, quiet=1)


def kbench_payload(frame: pd.DataFrame) -> dict:
    frame["name"] = frame["name"].astype("string")
    frame["spec"] = frame["spec"].astype("string")
    return {"merged_df": frame, "name": "bench_matmul", "file": Path("bench.mojo")}


def write(path: Path, frame: pd.DataFrame) -> Path:
    with open(path, "wb") as out:
        pickle.dump(kbench_payload(frame), out, protocol=pickle.HIGHEST_PROTOCOL)
    return path


def full_grid() -> pd.DataFrame:
    """Every config of GRID at each of SHAPES, in kbench's order (shapes outer)."""
    picks = np.array(list(itertools.product(*(range(len(v)) for v in GRID.values()))))
    tuning = pd.Series("", index=range(len(picks)))
    for j, (name, values) in enumerate(GRID.items()):
        texts = np.array([str(v) for v in values], dtype=object)[picks[:, j]]
        tuning = tuning + f"/{name}=" + pd.Series(texts)
    spec = pd.concat(
        [f"bench_matmul/$M={m}/$N={n}/$K={k}" + tuning for m, n, k in SHAPES],
        ignore_index=True,
    )
    return _frame(spec.to_numpy(dtype=object))


def _frame(spec: np.ndarray, seed: int = 0) -> pd.DataFrame:
    met = np.exp(np.random.default_rng(seed).normal(-1.0, 0.3, len(spec)))
    return pd.DataFrame(
        {
            "mesh_idx": np.arange(len(spec)),
            "name": "bench_matmul",
            "met (ms)": met,
            "iters": np.full(len(spec), 100),
            "spec": spec,
            "kbench_filter": "",
        }
    )


def distinct(rows: int, kind: str) -> pd.DataFrame:
    """``rows`` rows whose ``X`` is distinct per row (``int``, ``str``) or one of 7."""
    rng = np.random.default_rng(1)
    values = {
        "int": pd.Series(np.arange(rows)).astype(str),
        "str": "v" + pd.Series(np.arange(rows)).astype(str),
        "few": pd.Series(rng.integers(0, 7, rows)).astype(str),
    }[kind]
    bm = pd.Series(rng.choice([64, 128, 256], rows)).astype(str)
    spec = "bench_matmul/BM=" + bm + "/X=" + values + "/$M=256/$N=4096/$K=4096"
    return _frame(spec.to_numpy(dtype=object))


def case_startup(kp: list[str], tmp: Path, args: argparse.Namespace) -> None:
    found = turns(
        [sys.executable, "-c", IMPORT],
        {"kprofile (132 rows)": [*kp, str(SMALL)]},
        args.repeat * 3,
    )
    targets = {"kprofile (132 rows)": "1.15x"}
    report(
        "start-up: a genuine kbench file",
        'python -c "import pandas, numpy"',
        found,
        targets,
    )


def case_fullgrid(kp: list[str], tmp: Path, args: argparse.Namespace) -> None:
    path = write(tmp / "fullgrid.pkl", full_grid())
    views = {"-p M": ["-p", "M"], "-p M --top 0.05": ["-p", "M", "--top", "0.05"]}
    found = _views(kp, path, views, args.repeat)
    targets = {"-p M": "2.5x", "-p M --top 0.05": "3x"}
    report(
        "full grid: 1,179,648 rows, every one a distinct config",
        "pickle.load",
        found,
        targets,
    )


def case_sweep(kp: list[str], tmp: Path, args: argparse.Namespace) -> None:
    for rows in args.sizes:
        path = write(tmp / f"sweep_{rows}.pkl", make_frame(rows))
        views = {"default view": [], "--top 0.05": ["--top", "0.05"]}
        found = _views(kp, path, views, args.repeat)
        targets = {"--top 0.05": "4x, peak 1.5x"} if rows >= 5_000_000 else {}
        report(
            f"random grid with repeats: {rows:,} rows", "pickle.load", found, targets
        )


def case_distinct(kp: list[str], tmp: Path, args: argparse.Namespace) -> None:
    few = write(tmp / "few.pkl", distinct(args.distinct_rows, "few"))
    commands = {
        f"distinct {kind} per row": [
            *kp,
            str(write(tmp / f"{kind}.pkl", distinct(args.distinct_rows, kind))),
        ]
        for kind in ("int", "str")
    }
    found = turns([*kp, str(few)], commands, args.repeat)
    targets = {label: "3x" for label in commands}
    title = f"{args.distinct_rows:,} rows: a distinct value per row against 7 values"
    report(title, "kprofile, 7 values", found, targets)


def case_gzip(kp: list[str], tmp: Path, args: argparse.Namespace) -> None:
    path = tmp / "fullgrid.pkl.gz"
    with gzip.open(path, "wb") as out:  # what DataFrame.to_pickle(path) writes
        pickle.dump(kbench_payload(full_grid()), out, protocol=pickle.HIGHEST_PROTOCOL)
    found = turns(
        [sys.executable, "-c", READ, str(path)],
        {"-p M": [*kp, str(path), "-p", "M"]},
        args.repeat,
    )
    report("full grid, gzip-compressed", "pandas.read_pickle", found, {})


def _views(
    kp: list[str], path: Path, views: dict[str, list[str]], repeat: int
) -> Turns:
    commands = {label: [*kp, str(path), *extra] for label, extra in views.items()}
    return turns([sys.executable, "-c", LOAD, str(path)], commands, repeat)


CASES: dict[str, Callable[[list[str], Path, argparse.Namespace], None]] = {
    "startup": case_startup,
    "fullgrid": case_fullgrid,
    "sweep": case_sweep,
    "distinct": case_distinct,
    "gzip": case_gzip,
}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES))
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[100_000, 1_000_000, 5_000_000]
    )
    parser.add_argument("--distinct-rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="one tiny run of the sweep and distinct cases (the bench smoke test)",
    )
    args = parser.parse_args()
    if args.smoke:
        args.cases, args.sizes, args.distinct_rows, args.repeat = (
            ["sweep", "distinct"], [2_000], 2_000, 1
        )  # fmt: skip
    kprofile = shutil.which("kprofile") or sys.exit("kprofile is not on PATH")
    byte_compiled()
    print(
        f"{platform.node()}: {platform.processor() or platform.machine()}, "
        f"Python {platform.python_version()}, pandas {pd.__version__}, "
        f"numpy {np.__version__}; best of {args.repeat} turns, ratios side by side; "
        f"{cores()} cores for a long spec column's chunks (pickle.load uses one)"
    )
    tmp = Path(tempfile.mkdtemp(prefix="kprofile-floor-"))
    try:
        for name in args.cases:
            CASES[name]([kprofile], tmp, args)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
