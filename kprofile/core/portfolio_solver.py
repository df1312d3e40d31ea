"""The best table of at most K candidates for ``--budget``: exact, by HiGHS.

Input: ``costs``, a rows (shapes) x candidates (configs) matrix of log ratios (0 = the
row's best), ``inf`` where the candidate never ran successfully at the row and so
cannot serve it. A table serves each row with its cheapest candidate and must serve
every row (a shape the table cannot run is not a table); the objective is

- ``geomean``: the lowest sum of the rows' costs (the lowest geometric mean ratio);
- ``worst``: the lowest largest cost (worst ratio), then among those tables the lowest
  sum (the tie rule, proven separately: ``tie_proven``).

``solve_budget`` runs, under one clock (``time_limit`` seconds, None = no limit):

1. **Coverage.** If no table of ``size`` candidates serves every row there is no
   answer: greedy set cover first, then ``cover_milp.min_size`` proves the fewest
   candidates any complete table needs (``needed``) and the answer is infeasible.
2. **Sum.** A greedy table improved by swaps gives an upper bound; a Lagrangian
   relaxation gives a lower bound and prunes the (row, candidate) pairs no table as
   good can use (``portfolio_search.prune``: exact); HiGHS solves the pruned model
   (``portfolio_milp.min_total``). Proven when the best table found is within
   ``PROOF_TOLERANCE`` of the best proven lower bound (Lagrangian or HiGHS).
3. **Worst.** The worst ratio of an optimal table is one of the matrix's values: a
   bisection over them, each step a set cover ("can ``size`` candidates serve every
   row within this cost?"), answered by greedy (yes), pairwise disjoint rows (no:
   ``cover_search.disjoint_bound``) or ``cover_milp.min_size`` (proven either way).
   Then step 2 on the costs within that worst value, for the tie rule.

When time runs out, the best complete table found stands (HiGHS's, or the swaps'),
with its proven lower bound; ``proven`` says whether the objective is optimal.
Finally candidates that serve no row (each row takes its cheapest chosen candidate,
the earliest on a tie) are dropped: a table may have fewer than ``size``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from kprofile.core.cover_milp import Clock, min_size
from kprofile.core.cover_search import disjoint_bound
from kprofile.core.cover_search import greedy as greedy_cover
from kprofile.core.portfolio_milp import PROOF_TOLERANCE, min_total
from kprofile.core.portfolio_search import (
    Objective,
    greedy,
    improve,
    lagrangian,
    prune,
    served,
    table_key,
)


@dataclass(frozen=True)
class BudgetSolution:
    """What ``solve_budget`` found.

    ``picked``: the table's candidates (ascending; ``()`` when none was found).
    ``objective``: its sum or worst cost (inf when none). ``bound``: a proven lower
    bound on that objective over every complete table of at most ``size``.
    ``proven``: ``objective`` is optimal (within ``PROOF_TOLERANCE``); ``tie_proven``:
    for ``worst``, the sum is also the lowest among tables with that worst cost
    (always ``proven`` for ``geomean``). ``feasible``: some complete table of at most
    ``size`` exists (None: not decided in time). ``needed``: a proven lower bound on
    the candidates a complete table needs (the exact count when infeasible and
    proven).
    """

    picked: tuple[int, ...]
    objective: float
    bound: float
    proven: bool
    tie_proven: bool
    feasible: bool | None
    needed: int


def solve_budget(
    costs: np.ndarray,
    size: int,
    objective: Objective,
    *,
    time_limit: float | None,
) -> BudgetSolution:
    """The best complete table of at most ``size`` candidates (module docstring)."""
    if size < 1:
        raise ValueError("size must be at least 1")
    if costs.shape[0] == 0:
        return BudgetSolution((), 0.0, 0.0, True, True, True, 0)
    if not np.isfinite(costs).any(axis=1).all():
        raise ValueError("every row needs a candidate that can serve it")
    clock = Clock(time_limit)
    start, feasible, needed = _coverage(costs, size, clock)
    if start is None:
        return BudgetSolution((), math.inf, math.inf, False, False, feasible, needed)
    search = _lowest_sum if objective == "geomean" else _lowest_worst
    return _trimmed(search(costs, start, size, clock), costs, needed, objective)


def _coverage(
    costs: np.ndarray, size: int, clock: Clock
) -> tuple[list[int] | None, bool | None, int]:
    """A complete table of at most ``size`` to start from (None if there is none or
    none was found in time), whether one exists, and the proven fewest needed."""
    ran = np.isfinite(costs)
    units = np.where(ran, 0.0, np.inf)
    cover = greedy_cover(units)
    needed = disjoint_bound(ran)
    if len(cover) <= size:
        return cover, True, needed
    exact = min_size(ran, time_limit=clock.left())
    if np.isfinite(exact.bound):
        needed = max(needed, int(math.ceil(exact.bound - 1e-6)))
    picked = list(exact.picked or ())
    if picked and _complete(costs, picked) and len(picked) <= size:
        return picked, True, needed
    if needed > size:
        return None, False, needed
    return None, None, needed


def _complete(costs: np.ndarray, picked: Sequence[int]) -> bool:
    return bool(np.isfinite(served(costs, picked)).all())


@dataclass(frozen=True)
class _Found:
    picked: list[int]
    bound: float
    proven: bool
    tie_proven: bool


def _lowest_sum(costs: np.ndarray, start: list[int], size: int, clock: Clock) -> _Found:
    """Step 2: the lowest sum, from the complete table ``start``."""
    tables = [start, greedy(costs, size, "geomean")]
    best = _best_of(costs, [improve(costs, t, size, "geomean") for t in tables])
    upper = float(served(costs, best).sum())
    relaxed = lagrangian(costs, size, upper)
    bound = relaxed.bound
    if upper - bound > PROOF_TOLERANCE and not clock.out():
        keep = prune(costs, relaxed, upper)
        solved = min_total(costs, keep, size, time_limit=clock.left())
        bound = max(bound, solved.bound)
        if solved.picked is not None and _complete(costs, solved.picked):
            best = _best_of(costs, [best, list(solved.picked)])
    total = float(served(costs, best).sum())
    proven = total - bound <= PROOF_TOLERANCE
    return _Found(best, min(bound, total), proven, proven)


def _best_of(costs: np.ndarray, tables: Sequence[Sequence[int]]) -> list[int]:
    complete = [list(t) for t in tables if _complete(costs, t)]
    return min(complete, key=lambda t: table_key(costs, t, "geomean"))


def _lowest_worst(
    costs: np.ndarray, start: list[int], size: int, clock: Clock
) -> _Found:
    """Step 3: bisection over the matrix's values, then the lowest sum within."""
    values = np.unique(costs[np.isfinite(costs)])
    tables = [start, greedy(costs, size, "worst")]
    table = min(
        (improve(costs, t, size, "worst") for t in tables if _complete(costs, t)),
        key=lambda t: table_key(costs, t, "worst"),
    )
    lo, hi = _feasible_floor(costs, values, size), _index(values, table, costs)
    while lo < hi and not clock.out():
        mid = (lo + hi) // 2
        answer = _fits(costs <= values[mid], size, clock)
        if answer is None:
            break
        if answer is False:
            lo = mid + 1
        else:
            table = answer
            hi = min(mid, _index(values, table, costs))
    within = np.where(costs <= values[hi], costs, np.inf)
    tie = _lowest_sum(within, table, size, clock)
    return _Found(tie.picked, float(values[min(lo, hi)]), lo >= hi, tie.proven)


def _index(values: np.ndarray, table: Sequence[int], costs: np.ndarray) -> int:
    """The position in ``values`` of ``table``'s worst cost."""
    return int(np.searchsorted(values, served(costs, table).max()))


def _feasible_floor(costs: np.ndarray, values: np.ndarray, size: int) -> int:
    """The first value at which pairwise disjoint rows no longer prove that ``size``
    candidates cannot serve every row (below it, none can: exact and cheap)."""
    lo, hi = 0, len(values) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if disjoint_bound(costs <= values[mid]) > size:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _fits(
    covers: np.ndarray, size: int, clock: Clock
) -> list[int] | Literal[False] | None:
    """Can ``size`` candidates serve every row of ``covers``? A table if yes, False
    if proven not, None if not decided in time."""
    if not covers.any(axis=1).all():
        return False
    units = np.where(covers, 0.0, np.inf)
    cover = greedy_cover(units)
    if len(cover) <= size:
        return cover
    if disjoint_bound(covers) > size:
        return False
    exact = min_size(covers, time_limit=clock.left())
    picked = list(exact.picked or ())
    if picked and len(picked) <= size and bool(covers[:, picked].any(axis=1).all()):
        return picked
    if exact.proven or math.ceil(exact.bound - 1e-6) > size:
        return False
    return None


def _trimmed(
    found: _Found, costs: np.ndarray, needed: int, objective: Objective
) -> BudgetSolution:
    """The solution with the candidates that serve no row dropped."""
    picked = sorted(found.picked)
    used = sorted({picked[j] for j in np.argmin(costs[:, picked], axis=1).tolist()})
    row = served(costs, used)
    value = float(row.sum() if objective == "geomean" else row.max())
    return BudgetSolution(
        picked=tuple(used),
        objective=value,
        bound=found.bound,
        proven=found.proven,
        tie_proven=found.proven and found.tie_proven,
        feasible=True,
        needed=needed,
    )
