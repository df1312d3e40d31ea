"""The two MILPs behind ``kprofile.core.cover_solver``, solved by HiGHS through scipy.

``covers`` is an n x k boolean matrix: candidate j covers row i. Both models are
returned as an ``Outcome``: the chosen candidate indices (None when HiGHS found no
solution in time), whether HiGHS proved them optimal, and its proven lower bound on
the objective. HiGHS runs with presolve on and ``mip_rel_gap=0``; scipy exposes no
thread or seed option, and HiGHS's branch and bound is deterministic for one input.
``highs_options`` and ``Clock`` are the time-limit plumbing every HiGHS model of
kprofile shares (``--cover`` and ``--budget``). Each solve runs in a child process
(``kprofile.core.child``), so that Ctrl-C stops it at once rather than when HiGHS
returns.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from kprofile.core.child import in_child

if TYPE_CHECKING:  # the options' TypedDict exists only in scipy-stubs
    from scipy.optimize import LinearConstraint
    from scipy.optimize._milp import _OptionsMILP

#: scipy's status for "optimal solution found".
_OPTIMAL = 0


@dataclass(frozen=True)
class Outcome:
    picked: tuple[int, ...] | None
    proven: bool
    bound: float


NOT_RUN = Outcome(picked=None, proven=False, bound=-math.inf)


class Clock:
    """Seconds left of a time limit (None: no limit) started when it is made."""

    def __init__(self, limit: float | None) -> None:
        self.limit = limit
        self.start = time.perf_counter()

    def left(self, cap: float | None = None) -> float | None:
        """What is left, at most ``cap``; None when neither limits it."""
        left = (
            None
            if self.limit is None
            else self.limit - (time.perf_counter() - self.start)
        )
        if cap is None:
            return left
        return cap if left is None else min(left, cap)

    def out(self) -> bool:
        """The limit has passed."""
        left = self.left()
        return left is not None and left <= 0


def min_size(covers: np.ndarray, *, time_limit: float | None) -> Outcome:
    """Fewest candidates covering every row: min sum x_j, each row covered >= 1."""
    if time_limit is not None and time_limit <= 0:
        return NOT_RUN
    from scipy import sparse  # scipy only when a solve runs (start-up of other modes)
    from scipy.optimize import Bounds, LinearConstraint, milp

    n, k = covers.shape
    rows = LinearConstraint(sparse.csr_array(covers.astype(np.float64)), lb=1.0)
    result = in_child(
        milp,
        np.ones(k),
        integrality=np.ones(k, dtype=np.int64),
        bounds=Bounds(0.0, 1.0),
        constraints=[rows],
        options=highs_options(time_limit),
    )
    # The objective is a whole number: a gap below one proves the count.
    return outcome(result, k, tolerance=0.5)


def min_loss(
    covers: np.ndarray,
    losses: np.ndarray,
    ranks: np.ndarray,
    *,
    size: int,
    time_limit: float | None,
) -> Outcome:
    """Among covers of exactly ``size`` candidates: lowest total loss, then rank sum.

    ``losses``: n x k whole numbers (read where ``covers``); each row takes the loss of
    one chosen candidate covering it (assignment y_ij <= x_j, sum_j y_ij = 1), which at
    the optimum is its lowest. ``ranks``: k distinct whole numbers; their sum over the
    chosen candidates enters with a weight whose total stays below one loss unit, so it
    only decides between tables of equal loss.
    """
    if time_limit is not None and time_limit <= 0:
        return NOT_RUN
    from scipy.optimize import Bounds, milp  # scipy only when a solve runs

    k = covers.shape[1]
    epsilon = 1.0 / (1.0 + float(np.sort(ranks)[::-1][:size].sum()))
    cost, constraints = _loss_model(covers, losses, ranks, size, epsilon)
    m = len(cost) - k
    result = in_child(
        milp,
        cost,
        integrality=np.concatenate(
            [np.ones(k, dtype=np.int64), np.zeros(m, dtype=np.int64)]
        ),
        bounds=Bounds(0.0, 1.0),
        constraints=constraints,
        options=highs_options(time_limit),
    )
    # Tables differ by epsilon (one rank) or more: a smaller gap proves both.
    return outcome(result, k, tolerance=epsilon / 2)


def _loss_model(
    covers: np.ndarray, losses: np.ndarray, ranks: np.ndarray, size: int, epsilon: float
) -> tuple[np.ndarray, list[LinearConstraint]]:
    """``min_loss``'s objective and constraints over x (k candidates), then y (one
    per covering pair): exactly ``size`` candidates, each row assigned once, y_ij <=
    x_j."""
    from scipy import sparse  # scipy only when a solve runs
    from scipy.optimize import LinearConstraint

    n, k = covers.shape
    row, col = np.nonzero(covers)
    m = len(row)
    cost = np.concatenate([epsilon * ranks.astype(np.float64), losses[row, col]])
    y = k + np.arange(m)
    count = sparse.csr_array(
        (np.ones(k), (np.zeros(k, dtype=np.int64), np.arange(k))), shape=(1, k + m)
    )
    assign = sparse.csr_array((np.ones(m), (row, y)), shape=(n, k + m))
    link = sparse.csr_array(
        (
            np.concatenate([np.ones(m), -np.ones(m)]),
            (np.concatenate([np.arange(m), np.arange(m)]), np.concatenate([y, col])),
        ),
        shape=(m, k + m),
    )
    return cost, [
        LinearConstraint(count, lb=size, ub=size),
        LinearConstraint(assign, lb=1.0, ub=1.0),
        LinearConstraint(link, ub=0.0),
    ]


def highs_options(time_limit: float | None) -> _OptionsMILP:
    """Presolve on, no relative gap (optimal means proven), the time limit if any."""
    options: _OptionsMILP = {"presolve": True, "mip_rel_gap": 0.0}
    if time_limit is not None:
        options["time_limit"] = float(time_limit)
    return options


def outcome(result: Any, k: int, *, tolerance: float) -> Outcome:
    """scipy's result as an ``Outcome``: the first ``k`` variables are the candidates;
    proven when HiGHS says optimal and its objective is within ``tolerance`` of its
    dual bound."""
    bound = result.mip_dual_bound
    bound = -math.inf if bound is None or not math.isfinite(bound) else float(bound)
    if result.x is None:
        return Outcome(picked=None, proven=False, bound=bound)
    picked = tuple(int(j) for j in np.flatnonzero(result.x[:k] > 0.5))
    proven = result.status == _OPTIMAL and float(result.fun) - bound < tolerance
    return Outcome(picked=picked, proven=proven, bound=bound)
