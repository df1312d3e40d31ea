"""What running HiGHS in a child process (``kprofile.core.child``, so that Ctrl-C stops
``--cover`` at once) costs: the same small set cover MILP solved directly and in a
child, and the bare fork-and-answer round trip, with 32 MB resident in the parent.

    python bench/bench_child.py
    python bench/bench_child.py --smoke     # one run of each (the tests')
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp

from kprofile.core.child import in_child


def _problem() -> tuple[tuple[Any, ...], dict[str, Any]]:
    rng = np.random.default_rng(0)
    covers = rng.random((60, 120)) < 0.1
    covers[np.arange(60), rng.integers(0, 120, 60)] = True
    rows = LinearConstraint(sparse.csr_array(covers.astype(float)), lb=1.0)
    kwargs = {
        "integrality": np.ones(120),
        "bounds": Bounds(0, 1),
        "constraints": [rows],
    }
    return (np.ones(120),), kwargs


def _median(call: Callable[[], object], times: int) -> float:
    spent = []
    for _ in range(times):
        start = time.perf_counter()
        call()
        spent.append(time.perf_counter() - start)
    return statistics.median(spent)


def main() -> None:
    smoke = "--smoke" in sys.argv[1:]  # one run of each (the tests')
    solves, trips = (1, 1) if smoke else (5, 20)
    resident = np.ones((2000, 2000))  # a parent holding a results table
    args, kwargs = _problem()
    direct = _median(lambda: milp(*args, **kwargs), solves)
    child = _median(lambda: in_child(milp, *args, **kwargs), solves)
    trip = _median(lambda: in_child(int), trips)
    print(f"milp direct      {direct * 1000:8.1f} ms (median of {solves})")
    print(f"milp in a child  {child * 1000:8.1f} ms (median of {solves})")
    print(f"fork and answer  {trip * 1000:8.1f} ms (median of {trips})")
    del resident


if __name__ == "__main__":
    main()
