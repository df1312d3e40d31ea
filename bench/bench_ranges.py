"""Time the real ``kprofile FILE --ranges M`` against the default view.

    python bench/bench_ranges.py                      # 4 groups x 200 M x 500 configs
    python bench/bench_ranges.py --groups 2 --points 100 --configs 250 --repeat 3
    python bench/bench_ranges.py --smoke              # one tiny run (the tests')

It writes one kbench-format pickle (400,000 rows by default: every config at every M
of every (N, K) group, spec strings ``bench_matmul/BM=../BN=../BK=../STAGES=../$M=..
/$N=../$K=..`` as kbench writes them, banded optima, seeded noise, a few failed runs)
into a temporary folder, then runs both commands as subprocesses, output to /dev/null,
and prints the median wall and CPU time (user + system) of ``--repeat`` runs of each,
interleaved, and their ratios. The target is a ratio of at most 2. On a shared machine
the CPU ratio is the steadier figure.
"""

from __future__ import annotations

import argparse
import itertools
import pickle
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

GRID = {
    "BM": [16, 32, 64, 128, 256],
    "BN": [16, 32, 64, 128, 256],
    "BK": [16, 32, 64, 128, 256],
    "STAGES": [2, 3, 4, 5],
}


def sweep_frame(groups: int, points: int, configs: int, seed: int = 0) -> pd.DataFrame:
    """Every config at every M of every group; the best config changes in bands of M."""
    rng = np.random.default_rng(seed)
    grid = list(itertools.product(*GRID.values()))[:configs]
    shapes = [(4096 * (g + 1), 2048 * (g % 2 + 1)) for g in range(groups)]
    m_values = 16 * np.arange(1, points + 1)
    g, m, c = (a.ravel() for a in np.meshgrid(
        np.arange(groups), m_values, np.arange(len(grid)), indexing="ij"
    ))  # fmt: skip
    tiles = np.array([bm * bn for bm, bn, _, _ in grid], dtype=float)
    band = (m // 512 + c) % 7  # which configs suit which band of M
    met = 0.5 + 0.01 * band + 1e-6 * tiles[c] * rng.lognormal(0.0, 0.02, len(c))
    met[rng.choice(len(met), size=len(met) // 1000, replace=False)] = 0.0
    config_text = np.array(
        ["/".join(f"{k}={v}" for k, v in zip(GRID, values)) for values in grid]
    )
    shape_text = np.array([f"/$N={n}/$K={k}" for n, k in shapes])
    spec = (
        "bench_matmul/"
        + pd.Series(config_text[c])
        + "/$M="
        + pd.Series(m).astype(str)
        + pd.Series(shape_text[g])
    )
    return pd.DataFrame(
        {
            "mesh_idx": np.arange(len(met)),
            "name": "gemm/bf16",
            "met (ms)": met,
            "iters": np.full(len(met), 100),
            "spec": spec.to_numpy(dtype=object),
            "kbench_filter": "",
        }
    )


def timed(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, of the child) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(command)}\n{done.stderr!r}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def compare(
    commands: dict[str, list[str]], repeat: int
) -> dict[str, tuple[float, float]]:
    """Median wall and CPU seconds of each command, runs interleaved so that both see
    the same load on a shared machine."""
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, command in commands.items():
            runs[name].append(timed(command))
    return {
        name: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r))
        for name, r in runs.items()
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--groups", type=int, default=4)
    parser.add_argument("--points", type=int, default=200)
    parser.add_argument("--configs", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--smoke", action="store_true", help="one tiny run (tests)")
    args = parser.parse_args()
    if args.smoke:
        args.groups, args.points, args.configs, args.repeat = 1, 12, 10, 1
    kprofile = shutil.which("kprofile") or sys.exit("kprofile is not on PATH")
    tmp = Path(tempfile.mkdtemp(prefix="kprofile-ranges-"))
    try:
        frame = sweep_frame(args.groups, args.points, args.configs)
        path = tmp / "sweep.pkl"
        payload = {"merged_df": frame, "name": "bench_matmul", "file": "b.mojo"}
        path.write_bytes(pickle.dumps(payload, protocol=5))
        print(
            f"{len(frame):,} rows: {args.groups} groups x {args.points} M x "
            f"{args.configs} configs ({path.stat().st_size / 2**20:.1f} MiB pickle)"
        )
        commands = {
            "kprofile FILE": [kprofile, str(path)],
            "kprofile FILE --ranges M": [kprofile, str(path), "--ranges", "M"],
        }
        results = compare(commands, args.repeat)
        print(f"median of {args.repeat} runs each, interleaved:")
        for name, (wall, cpu) in results.items():
            print(f"  {name:<26} wall {wall:5.2f} s   cpu {cpu:5.2f} s")
        (wall0, cpu0), (wall1, cpu1) = results.values()
        ratios = f"wall {wall1 / wall0:.2f}, cpu {cpu1 / cpu0:.2f}"
        print(f"ratio --ranges / default: {ratios} (target <= 2)")
    finally:
        shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
