"""Time ``--budget K`` (the best table of K configs) against HiGHS on the same model.

    python bench/bench_budget.py                      # 300 shapes x 800 configs, K=8
    python bench/bench_budget.py --size 200x500 --budget 4 --objective worst

It makes the results of ``bench_cover.make_frame`` (the same performance model, seed
and failures as ``bench/bench_cover.py``; configs whose shared memory is too large fail
everywhere, so fewer than the asked configs ever run), measures them with the
project's ``measure``, then, in this order:

- ``kprofile.core.portfolio.budget``: the whole search (coverage, swaps, Lagrangian
  pruning, HiGHS), timed from the measured results;
- HiGHS directly (``scipy.optimize.milp``, ``mip_rel_gap=0``) on the plain model built
  from the same shapes x configs log-ratio matrix: binary ``y_c``, ``x_sc`` for every
  pair that ran, ``sum_c x_sc = 1``, ``x_sc <= y_c``, ``sum y_c <= K``, minimize
  ``sum log r_sc x_sc`` (``--objective worst``: the bisection needs no direct twin, so
  only ``budget`` is timed).

It prints the geomean of both tables, whether each was proven optimal, and the wall
and CPU seconds (this process) of each; the target is at most 2 (budget / direct).
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from typing import TypeVar

import numpy as np
from bench_cover import METRIC, PARAMS, make_frame
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp

from kprofile.core.measure import Measured, measure
from kprofile.core.metric import Metric
from kprofile.core.portfolio import budget, cost_matrix
from kprofile.inputs.spec import expand_specs


def measured_results(shapes: int, configs: int, seed: int) -> Measured:
    frame = make_frame(shapes, configs, seed)
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
    args = parser.parse_args()
    n, k = (int(x) for x in args.size.split("x"))
    measured = measured_results(n, k, args.seed)
    _, configs, costs = cost_matrix(measured)
    print(
        f"{costs.shape[0]} shapes x {len(configs)} configs that ran "
        f"({np.isfinite(costs).mean():.1%} of pairs), --budget {args.budget} "
        f"--objective {args.objective}"
    )
    metric = Metric(METRIC, False)
    portfolio, wall, cpu = timed(
        lambda: budget(
            measured,
            metric,
            size=args.budget,
            objective=args.objective,
            time_limit=args.time_limit,
        )
    )
    print(
        f"  budget   {portfolio.objective} {portfolio.value:.6f} "
        f"{portfolio.status:<10} wall {wall:7.1f} s  cpu {cpu:7.1f} s"
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
    same = abs(geomean - portfolio.value) <= 1e-6 * geomean
    print(
        f"same optimum: {'yes' if same else 'NO'}; ratio budget / direct: "
        f"wall {wall / wall0:.2f}, cpu {cpu / cpu0:.2f} (target <= 2)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
