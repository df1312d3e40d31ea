"""Time ``kprofile --budget K`` (the best table of K configs) against HiGHS on the same
model.

    python bench/bench_budget.py                      # 300 shapes x 800 configs, K=8
    python bench/bench_budget.py --size 200x500 --budget 4 --objective worst
    python bench/bench_budget.py --smoke               # one tiny run (the tests')

It writes the results of ``bench_cover.make_frame`` as one kbench pickle (the same
performance model, seed and failures as ``bench/bench_cover.py``; configs whose shared
memory is too large fail everywhere, so fewer than the asked configs ever run), then,
in this order:

- the real command, ``kprofile FILE --budget K --objective O --time-limit T --format
  json``, in a subprocess: start-up, decoding the pickle, measuring and the whole
  search (coverage, swaps, Lagrangian pruning, HiGHS), timed end to end (wall, and the
  child's CPU);
- HiGHS directly (``scipy.optimize.milp``, ``mip_rel_gap=0``) on the plain model built
  from the same shapes x configs log-ratio matrix (the pickle's rows measured with the
  project's ``measure``): binary ``y_c``, ``x_sc`` for every
  pair that ran, ``sum_c x_sc = 1``, ``x_sc <= y_c``, ``sum y_c <= K``, minimize
  ``sum log r_sc x_sc`` (``--objective worst``: the bisection needs no direct twin, so
  only ``budget`` is timed).

It prints the geomean of both tables, whether each was proven optimal, and the wall
and CPU seconds of each; the target is at most 2 (kprofile / direct).
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd
from bench_cover import METRIC, PARAMS, make_frame
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp

from kprofile.core.measure import Measured, measure
from kprofile.core.metric import Metric
from kprofile.core.portfolio import cost_matrix
from kprofile.inputs.spec import expand_specs


def measured_results(frame: pd.DataFrame) -> Measured:
    frame = frame.copy()
    decoded = expand_specs(frame["spec"].to_numpy(dtype=object))
    for name in decoded.names:
        frame[name] = decoded.columns[name]
    return measure(
        frame,
        shape_cols=["M", "N", "K"],
        param_cols=list(PARAMS),
        metric=Metric(METRIC, False),
    )


def direct(costs: np.ndarray, size: int, time_limit: float) -> tuple[float, bool]:
    """The plain p-median MILP on every pair that ran: its sum and whether proven."""
    n, k = costs.shape
    row, col = np.nonzero(np.isfinite(costs))
    m = len(row)
    x = k + np.arange(m)
    assign = sparse.csr_array((np.ones(m), (row, x)), shape=(n, k + m))
    link = sparse.csr_array(
        (
            np.concatenate([np.ones(m), -np.ones(m)]),
            (np.concatenate([np.arange(m)] * 2), np.concatenate([x, col])),
        ),
        shape=(m, k + m),
    )
    count = sparse.csr_array(
        (np.ones(k), (np.zeros(k, dtype=np.int64), np.arange(k))), shape=(1, k + m)
    )
    result = milp(
        np.concatenate([np.zeros(k), costs[row, col]]),
        integrality=np.concatenate([np.ones(k), np.zeros(m)]).astype(np.int64),
        bounds=Bounds(0, 1),
        constraints=[
            LinearConstraint(assign, 1, 1),
            LinearConstraint(link, ub=0),
            LinearConstraint(count, ub=size),
        ],
        options={"mip_rel_gap": 0, "time_limit": time_limit},
    )
    total = math.inf if result.fun is None else float(result.fun)
    return total, result.status == 0


def run_kprofile(
    path: Path, args: argparse.Namespace
) -> tuple[dict[str, Any], float, float]:
    """``kprofile FILE --budget K``: its budget facts, wall and CPU seconds."""
    kprofile = shutil.which("kprofile") or sys.exit("kprofile is not on PATH")
    command = [
        kprofile, str(path), "--budget", str(args.budget), "--objective",
        args.objective, "--time-limit", str(args.time_limit), "--format", "json",
    ]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    facts: dict[str, Any] = json.loads(done.stdout)["sections"][0]["facts"]
    return facts, wall, cpu


T = TypeVar("T")


def timed(call: Callable[[], T]) -> tuple[T, float, float]:
    """The call's result, wall and CPU seconds (this process, HiGHS included)."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = call()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", default="300x800")
    parser.add_argument("--budget", type=int, default=8)
    parser.add_argument("--objective", choices=["geomean", "worst"], default="geomean")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--time-limit", type=float, default=1800.0)
    parser.add_argument("--smoke", action="store_true", help="one tiny run (tests)")
    args = parser.parse_args()
    if args.smoke:
        args.size, args.budget, args.time_limit = "12x40", 2, 60.0
    n, k = (int(x) for x in args.size.split("x"))
    frame = make_frame(n, k, args.seed)
    _, configs, costs = cost_matrix(measured_results(frame))
    print(
        f"{costs.shape[0]} shapes x {len(configs)} configs that ran "
        f"({np.isfinite(costs).mean():.1%} of pairs), --budget {args.budget} "
        f"--objective {args.objective}"
    )
    tmp = Path(tempfile.mkdtemp(prefix="kprofile-budget-"))
    try:
        path = tmp / "results.pkl"
        payload = {"merged_df": frame, "name": "bench_matmul", "file": "b.mojo"}
        path.write_bytes(pickle.dumps(payload, protocol=5))
        facts, wall, cpu = run_kprofile(path, args)
    finally:
        shutil.rmtree(tmp)
    value = float(facts[f"{args.objective} ratio"])
    status = str(facts["status"]).partition(" ")[0]
    print(
        f"  kprofile {args.objective} {value:.6f} {status:<10} "
        f"wall {wall:7.1f} s  cpu {cpu:7.1f} s"
    )
    if args.objective == "worst":
        return 0
    (total, proven), wall0, cpu0 = timed(
        lambda: direct(costs, args.budget, args.time_limit)
    )
    geomean = math.exp(total / costs.shape[0])
    state = "optimal" if proven else "time limit"
    print(
        f"  direct   geomean {geomean:.6f} {state:<10} "
        f"wall {wall0:7.1f} s  cpu {cpu0:7.1f} s"
    )
    same = abs(geomean - value) <= 1e-6 * geomean
    print(
        f"same optimum: {'yes' if same else 'NO'}; ratio kprofile / direct: "
        f"wall {wall / wall0:.2f}, cpu {cpu / cpu0:.2f} (target <= 2)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
