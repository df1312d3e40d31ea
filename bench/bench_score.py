"""Time scoring a dispatch table on 1,000,000 result rows against the default view.

    python bench/bench_score.py                       # 8 groups x 250 M x 500 configs
    python bench/bench_score.py --groups 2 --points 100 --configs 250 --repeat 3
    python bench/bench_score.py --smoke               # one tiny run (the tests')
    python bench/bench_score.py --growth 5000,10000,20000,40000   # the size sweep

It writes one kbench-format pickle (``bench_ranges.sweep_frame``: every config at every
M of every (N, K) group, runtime shape parameters in the spec, seeded noise, a few
failed runs) and a ranged table for it (one entry per 8 consecutive M values of each
group, ``M``/``M_END`` as ``--ranges`` writes them, the last range open to the last
point + 1, configs cycling through the grid), then runs, as subprocesses with output
to /dev/null and interleaved, ``--repeat`` times each:

- ``kprofile FILE`` (the default view);
- the score: ``kprofile FILE --score TABLE`` once the CLI has ``--score``; until then
  this script's own ``--score-only FILE TABLE``, which does what that command will do
  below its report: load with the project's loader, combine, measure, and
  ``kprofile.core.score.score_table``.

It prints the median wall and CPU time (user + system) of each and their ratios; the
target is at most 1.5. On a shared machine the CPU ratio is the steadier figure.

``--growth N1,N2,...``: how ``--score`` grows with the table and the results, N
entries on N shapes (the issue's case: 40,000 on 40,000 once took 68 s, shapes x
entries compared). For each N, a kbench pickle of N shapes (M = 16, 32, ...) x 2
configs and two tables of N entries: exact keys (``M``, ``N``, ``K``) and ranges
(``[M, M_END)`` per shape). It prints the best of ``--repeat`` (3) wall and CPU
times of the real ``kprofile FILE --score TABLE`` and, measured in this process,
the dispatch alone (``kprofile.core.dispatch``) and the table's reading
(``load_manifest``), with the time per entry, which stays flat when the growth is
linear. The target is under 5 s at 40,000.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import pickle
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml
from bench_ranges import GRID, compare, sweep_frame, timed

from kprofile.core.combine import combine
from kprofile.core.dispatch import dispatch
from kprofile.core.measure import Measured, measure
from kprofile.core.metric import resolve_metric
from kprofile.core.score import score_table
from kprofile.inputs.load import load_inputs
from tuning_codegen.manifest import load_manifest

RANGE = 8  # M points per table entry


def table_yaml(groups: int, points: int, configs: int) -> str:
    """A ranged table over the sweep's groups: ``M`` in steps of ``RANGE`` points."""
    values = [dict(zip(GRID, v)) for v in itertools.product(*GRID.values())]
    values = values[:configs]
    entries = []
    for g in range(groups):
        n, k = 4096 * (g + 1), 2048 * (g % 2 + 1)
        for start in range(0, points, RANGE):
            stop = min(points, start + RANGE)
            entries.append(
                {
                    "N": n,
                    "K": k,
                    "M": 16 * (start + 1),
                    "M_END": 16 * stop + 1 if stop == points else 16 * (stop + 1),
                    **values[(g * 7 + start) % len(values)],
                }
            )
    return yaml.safe_dump({"params": entries}, sort_keys=False)


def growth_files(folder: Path, size: int) -> tuple[Path, dict[str, Path]]:
    """``size`` shapes x 2 configs as a kbench pickle, and its exact and ranged
    tables of ``size`` entries (each shape its best config, BM=64 or BM=128 by
    turns)."""
    frame = sweep_frame(1, size, 2)
    results = folder / f"shapes{size}.pkl"
    payload = {"merged_df": frame, "name": "bench_matmul", "file": "b.mojo"}
    results.write_bytes(pickle.dumps(payload, protocol=5))
    values = [dict(zip(GRID, v)) for v in itertools.product(*GRID.values())][:2]
    tables = {}
    for kind in ("exact", "ranges"):
        lines = ["params:"]
        for i in range(size):
            m = 16 * (i + 1)
            keys = f"M: {m}, M_END: {m + 16}" if kind == "ranges" else f"M: {m}"
            config = ", ".join(f"{k}: {v}" for k, v in values[i % 2].items())
            lines.append(f"- {{{keys}, N: 4096, K: 2048, {config}}}")
        tables[kind] = folder / f"{kind}{size}.yaml"
        tables[kind].write_text("\n".join(lines) + "\n")
    return results, tables


def measured_of(results: Path) -> Measured:
    inputs, _ = load_inputs([str(results)])
    combined = combine(inputs, ())
    return measure(
        combined.frame,
        shape_cols=combined.shape_cols,
        param_cols=combined.param_cols,
        metric=resolve_metric([combined.frame], "met"),
    )


def best_of(repeat: int, work: Any) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def growth(sizes: list[int], repeat: int, kprofile: str) -> None:
    """The size sweep (module docstring)."""
    print(f"--score of N entries on N shapes; best of {repeat} runs")
    print(f"{'N':>7} {'table':>7} {'command wall':>13} {'cpu':>7} {'dispatch':>9} "
          f"{'read table':>11} {'dispatch us/entry':>18}")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="kprofile-growth-") as tmp:
        for size in sizes:
            results, tables = growth_files(Path(tmp), size)
            measured = measured_of(results)
            for kind, table in tables.items():
                print(
                    growth_row(size, kind, results, table, measured, repeat, kprofile)
                )


def growth_row(
    size: int,
    kind: str,
    results: Path,
    table: Path,
    measured: Measured,
    repeat: int,
    kprofile: str,
) -> str:
    runs = [
        timed([kprofile, str(results), "--score", str(table)]) for _ in range(repeat)
    ]
    wall, cpu = min(w for w, _ in runs), min(c for _, c in runs)
    read = best_of(repeat, functools.partial(load_manifest, table))
    manifest = load_manifest(table)
    cols = list(measured.shapes.columns)
    found = best_of(
        repeat, functools.partial(dispatch, manifest, measured.shapes, cols)
    )
    per = 1e6 * found / size  # dispatch time per entry
    return (
        f"{size:>7,} {kind:>7} {wall:>11.2f} s {cpu:>5.2f} s {found:>7.3f} s "
        f"{read:>9.2f} s {per:>18.1f}"
    )


def score_only(results: str, table: str) -> int:
    """What ``kprofile RESULTS --score TABLE`` computes, without its report."""
    inputs, invalid = load_inputs([results])
    if invalid:
        sys.exit(f"cannot load {results}")
    combined = combine(inputs, ())
    metric = resolve_metric([combined.frame], "met")
    measured = measure(
        combined.frame,
        shape_cols=combined.shape_cols,
        param_cols=combined.param_cols,
        metric=metric,
    )
    scored = score_table(load_manifest(table), measured, metric)
    print(scored.score.geomean, scored.score.scored, scored.score.no_entry)
    return 0


def has_score(kprofile: str) -> bool:
    done = subprocess.run([kprofile, "--help"], capture_output=True, text=True)
    return "--score" in done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--groups", type=int, default=8)
    parser.add_argument("--points", type=int, default=250)
    parser.add_argument("--configs", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--score-only", nargs=2, metavar=("FILE", "TABLE"))
    parser.add_argument("--growth", metavar="N1,N2,...", help="the size sweep")
    parser.add_argument("--smoke", action="store_true", help="one tiny run (tests)")
    args = parser.parse_args()
    if args.smoke:
        args.groups, args.points, args.configs, args.repeat = 1, 16, 10, 1
    if args.score_only:
        return score_only(*args.score_only)
    kprofile = shutil.which("kprofile") or sys.exit("kprofile is not on PATH")
    if args.growth or args.smoke:
        sizes = [int(n) for n in (args.growth or "50,100").split(",")]
        growth(sizes, 3 if args.growth and args.repeat == 5 else args.repeat, kprofile)
        if args.growth:
            return 0
    tmp = Path(tempfile.mkdtemp(prefix="kprofile-score-"))
    try:
        frame = sweep_frame(args.groups, args.points, args.configs)
        path = tmp / "sweep.pkl"
        payload = {"merged_df": frame, "name": "bench_matmul", "file": "b.mojo"}
        path.write_bytes(pickle.dumps(payload, protocol=5))
        table = tmp / "table.yaml"
        table.write_text(table_yaml(args.groups, args.points, args.configs))
        print(
            f"{len(frame):,} rows: {args.groups} groups x {args.points} M x "
            f"{args.configs} configs ({path.stat().st_size / 2**20:.1f} MiB pickle); "
            f"table of {len(yaml.safe_load(table.read_text())['params'])} entries"
        )
        if has_score(kprofile):
            score = [kprofile, str(path), "--score", str(table)]
            label = "kprofile FILE --score TABLE"
        else:
            score = [sys.executable, __file__, "--score-only", str(path), str(table)]
            label = "score (core, no CLI yet)"
        commands = {"kprofile FILE": [kprofile, str(path)], label: score}
        results = compare(commands, args.repeat)
        print(f"median of {args.repeat} runs each, interleaved:")
        for name, (wall, cpu) in results.items():
            print(f"  {name:<30} wall {wall:5.2f} s   cpu {cpu:5.2f} s")
        (wall0, cpu0), (wall1, cpu1) = results.values()
        ratios = f"wall {wall1 / wall0:.2f}, cpu {cpu1 / cpu0:.2f}"
        print(f"ratio score / default: {ratios} (target <= 1.5)")
    finally:
        shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
