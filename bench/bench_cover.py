"""Time ``kprofile --cover`` end to end against HiGHS called directly on the same file.

    python bench/bench_cover.py                       # 200x500, 300x800, 400x1000
    python bench/bench_cover.py --sizes 300x800 --tol 0.05 --seed 1
    python bench/bench_cover.py --smoke               # one tiny run (the tests')

For each size (shapes x configs) it writes one kbench pickle holding every shape (the
sizes are runtime parameters ``$M/$N/$K`` in the spec, as kbench writes them), then:

- runs the real ``kprofile FILE --cover TOL --format json`` in a subprocess (library
  defaults for the time limits) and reads the table size, the method and the lower
  bound from its output, timing the whole command;
- in the same run, unpickles the same file, builds the coverage matrix itself (shape,
  config -> best time within TOL of the shape's best; failed runs dropped) and calls
  ``scipy.optimize.milp`` on the plain set cover (min sum x, every shape >= 1), timing
  parse + build and the solve;
- prints both counts, both times, a greedy count for scale, and whether they agree
  (yes: same count, both proven; count: same count, kprofile hit its time limit).

The times follow a performance model ``time = base(shape) * (1 + 0.012 * |s - c|^2)``
with 1% noise: ``s`` is a shape's 6-dimensional profile (its log M, N, K, then three
hidden traits), ``c`` a config's preferred profile, so each config is near-best on a
band of neighbouring shapes. About 3% of runs fail (time 0) and configs with too much
shared memory (BM + BN) * BK * STAGES fail everywhere.
"""

from __future__ import annotations

import argparse
import itertools
import json
import pickle
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp

PARAMS = {
    "BM": [64, 128, 256],
    "BN": [64, 128, 256],
    "BK": [32, 64, 128],
    "STAGES": [2, 3, 4, 5, 6, 7],
    "CLUSTER_M": [1, 2, 4],
    "CLUSTER_N": [1, 2],
    "SPLIT_K": [1, 2, 4, 8],
    "SWIZZLE": [1, 2],
}
DIMS = [256, 512, 1024, 2048, 3072, 4096, 5120, 7168, 8192, 14336, 16384, 28672]
METRIC = "met (ms)"


def make_frame(n_shapes: int, n_configs: int, seed: int) -> pd.DataFrame:
    """A kbench merged_df: every shape measured with every config."""
    rng = np.random.default_rng(seed)
    grid = list(itertools.product(*PARAMS.values()))
    picked = rng.choice(len(grid), n_configs, replace=False)
    configs = pd.DataFrame([grid[i] for i in picked], columns=list(PARAMS))
    triples = list(itertools.product(range(1, 16385), DIMS, DIMS))
    chosen = rng.choice(len(triples), n_shapes, replace=False)
    shapes = pd.DataFrame([triples[i] for i in chosen], columns=["M", "N", "K"])
    logs = np.log2(shapes.to_numpy(dtype=float))
    profile = np.column_stack(
        [(logs - logs.mean(0)) / logs.std(0), rng.normal(size=(n_shapes, 3))]
    )
    prefer = rng.normal(size=(n_configs, 6)) * 1.2
    distance = ((profile[:, None, :] - prefer[None]) ** 2).sum(axis=2)
    base = 1e-4 * np.prod(shapes.to_numpy(dtype=float), axis=1) ** (1 / 3)
    met = base[:, None] * (1 + 0.012 * distance)
    met *= rng.lognormal(0.0, 0.01, met.shape)
    met[rng.random(met.shape) < 0.03] = 0.0
    c = configs
    smem = (c["BM"] + c["BN"]) * c["BK"] * c["STAGES"] * 2
    met[:, (smem > 228 * 1024).to_numpy()] = 0.0
    spec = pd.Series("bench_matmul", index=configs.index)
    for name in PARAMS:
        spec = spec + f"/{name}=" + configs[name].astype(str)
    runtime = "/$M=" + shapes["M"].astype(str) + "/$N=" + shapes["N"].astype(str)
    runtime = runtime + "/$K=" + shapes["K"].astype(str)
    specs = np.add.outer(spec.to_numpy(dtype=object), runtime.to_numpy(dtype=object))
    rows = n_shapes * n_configs
    return pd.DataFrame(
        {
            "mesh_idx": np.arange(rows),
            "name": "bench_matmul",
            METRIC: np.round(met.ravel(), 6),
            "iters": 100,
            "spec": specs.T.ravel(),  # shape-major, as ``met``
            "kbench_filter": "",
        }
    )


def coverage(path: Path, tol: float) -> np.ndarray:
    """Shapes x configs: the config's best time within ``tol`` of the shape's best."""
    frame = pickle.loads(path.read_bytes())["merged_df"]
    parts = frame["spec"].str.split("/")
    runtime = parts.map(lambda p: "/".join(x for x in p if x.startswith("$")))
    config = parts.map(lambda p: "/".join(x for x in p[1:] if not x.startswith("$")))
    ok = frame[METRIC] > 0
    runs = pd.DataFrame(
        {"shape": runtime[ok], "config": config[ok], "t": frame[METRIC][ok]}
    )
    per = runs.groupby(["shape", "config"], as_index=False)["t"].min()
    best = per.groupby("shape")["t"].transform("min")
    table = per[per["t"] <= best * (1 + tol)]
    rows = table["shape"].astype("category").cat.codes.to_numpy()
    cols = table["config"].astype("category").cat.codes.to_numpy()
    matrix = np.zeros((rows.max() + 1, cols.max() + 1), dtype=bool)
    matrix[rows, cols] = True
    return matrix


def highs(matrix: np.ndarray, time_limit: float) -> tuple[int, bool]:
    """The plain set cover MILP: its optimal count and whether HiGHS proved it."""
    k = matrix.shape[1]
    result = milp(
        np.ones(k),
        integrality=np.ones(k),
        bounds=Bounds(0, 1),
        constraints=[LinearConstraint(sparse.csr_array(matrix.astype(float)), lb=1)],
        options={"mip_rel_gap": 0, "time_limit": time_limit},
    )
    if result.x is None:
        raise SystemExit(f"HiGHS found no cover within {time_limit} s")
    return round(result.fun), result.status == 0


def greedy(matrix: np.ndarray) -> int:
    open_, count = np.ones(matrix.shape[0], dtype=bool), 0
    while open_.any():
        open_ &= ~matrix[:, int(np.argmax(matrix[open_].sum(axis=0)))]
        count += 1
    return count


def agree(configs: int, count: int, method: str, proven: bool) -> str:
    """yes: same count, both proven; count: same count, not both proven; else NO."""
    if configs != count:
        return "NO"
    return "yes" if proven and method.startswith("exact") else "count"


def run_kprofile(kprofile: str, path: Path, tol: float) -> tuple[dict, float]:
    start = time.perf_counter()
    out = subprocess.run(
        [kprofile, str(path), "--cover", str(tol), "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - start
    return json.loads(out.stdout)["sections"][0]["facts"], wall


def bench(kprofile: str, folder: Path, size: str, args: argparse.Namespace) -> None:
    n, k = (int(x) for x in size.split("x"))
    path = folder / f"cover_{size}.pkl"
    payload = {"merged_df": make_frame(n, k, args.seed), "name": "bench_matmul"}
    path.write_bytes(pickle.dumps({**payload, "file": "bench.mojo"}, protocol=5))
    facts, wall = run_kprofile(kprofile, path, args.tol)
    start = time.perf_counter()
    matrix = coverage(path, args.tol)
    built = time.perf_counter() - start
    count, proven = highs(matrix, args.time_limit)
    direct = time.perf_counter() - start
    method = str(facts["method"])
    # exact, exact* (the loss search hit its limit), or time limit
    short = "time limit" if not method.startswith("exact") else "exact"
    short += "*" if ";" in method else ""
    bound = facts.get("lower bound", facts["configs"])
    print(
        f"{size:>9} {matrix.mean():>8.3f} {greedy(matrix):>6} "
        f"{count:>5}{'' if proven else '?':1} {direct:>8.1f} {built:>7.1f} "
        f"{facts['configs']:>8} {bound:>6} {short:>10} {wall:>8.1f} "
        f"{agree(facts['configs'], count, short, proven):>6}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--sizes", nargs="+", default=["200x500", "300x800", "400x1000"]
    )
    parser.add_argument("--tol", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--time-limit", type=float, default=600.0)
    parser.add_argument("--smoke", action="store_true", help="one tiny run (tests)")
    args = parser.parse_args()
    if args.smoke:
        args.sizes, args.time_limit = ["12x40"], 60.0
    kprofile = shutil.which("kprofile") or sys.exit("kprofile is not on PATH")
    print(f"--cover {args.tol}: kprofile (defaults) vs scipy.optimize.milp direct")
    print(
        f"{'size':>9} {'density':>8} {'greedy':>6} {'HiGHS':>6} {'total s':>8} "
        f"{'parse s':>7} {'kprofile':>8} {'bound':>6} {'method':>10} {'wall s':>8} "
        f"{'agree':>6}"
    )
    folder = Path(tempfile.mkdtemp(prefix="kprofile-cover-"))
    try:
        for size in args.sizes:
            bench(kprofile, folder, size, args)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print("exact*: the size is proven, the loss search hit its time limit")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
