"""The fewest candidates covering every row, then the lowest loss: exact, by HiGHS.

A ``CoverProblem`` has rows 0..n-1 (shapes) and candidates 0..k-1 (configs, in order of
preference); candidate j covers row i when ``ratios[i, j]`` is finite, and loses
``ratios[i, j] - 1`` there. ``solve_cover`` returns the chosen candidates:

1. Size: the fewest candidates covering every row, a set cover MILP (``cover_milp``),
   proven when HiGHS reports optimality within the time limit.
2. Loss, once the size is proven: among covers of that size, the lowest total loss
   (each row takes its lowest ratio among the chosen), then the lowest sum of candidate
   positions (the earliest candidates), in one MILP. Losses are compared in whole
   millionths per row (``LOSS_SCALE``): the total is a whole number HiGHS can prove.
   Before it, candidates that an earlier candidate makes unnecessary (covers every row
   they cover, each with no higher loss) are dropped: exact for this order.

Without a proof, the answer is the best table found: HiGHS's, or greedy's when HiGHS has
none, improved by swaps (``cover_search``). Time limits are in seconds, None = none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kprofile.core.cover_milp import Clock, min_loss, min_size
from kprofile.core.cover_search import disjoint_bound, greedy, improve, table_key

#: Losses are compared in whole millionths per row: round((ratio - 1) * LOSS_SCALE).
LOSS_SCALE = 1_000_000


@dataclass(frozen=True)
class CoverProblem:
    """A set cover: ``ratios`` is n x k, inf where candidate j does not cover row i."""

    ratios: np.ndarray

    @property
    def covers(self) -> np.ndarray:
        return np.isfinite(self.ratios)

    def loss_units(self) -> np.ndarray:
        """Loss of each (row, candidate) in whole millionths; inf if not covering."""
        with np.errstate(invalid="ignore"):
            units = np.rint((self.ratios - 1.0) * LOSS_SCALE)
        return np.where(self.covers, units, np.inf)

    def check_coverable(self) -> None:
        """Raise ValueError if some row has no candidate at all (no cover exists)."""
        missing = np.flatnonzero(~self.covers.any(axis=1))
        if len(missing):
            raise ValueError(f"row {missing[0]} has no candidate: no cover exists")


@dataclass(frozen=True)
class CoverSolution:
    """Chosen candidate indices (increasing) and what was proven about them.

    ``lower_bound``: a proven lower bound on the size of any cover (== the size when
    ``size_proven``). ``loss_proven``: the loss (and the tie rule) is proven optimal
    among covers of this size; never without ``size_proven``.
    """

    picked: tuple[int, ...]
    size_proven: bool
    lower_bound: int
    loss_proven: bool


def solve_cover(
    problem: CoverProblem,
    *,
    time_limit: float | None,
    loss_time_limit: float | None = None,
    known: Sequence[int] = (),
) -> CoverSolution:
    """The smallest cover, then the lowest loss; see the module docstring.

    ``time_limit``: seconds for both MILPs together. ``loss_time_limit``: at most this
    much of it for the loss. ``known``: indices of a cover to fall back on (with greedy)
    when the size is not proven and HiGHS has nothing smaller.
    """
    if problem.ratios.shape[0] == 0:
        return CoverSolution((), size_proven=True, lower_bound=0, loss_proven=True)
    problem.check_coverable()
    clock = Clock(time_limit)
    units = problem.loss_units()
    size = min_size(problem.covers, time_limit=clock.left())
    if not (size.proven and _is_cover(problem, size.picked)):
        found = [greedy(units), list(known), list(size.picked or ())]
        valid = [p for p in found if _is_cover(problem, p)]
        best = improve(units, min(valid, key=lambda p: table_key(units, p)))
        bound = disjoint_bound(problem.covers)
        if np.isfinite(size.bound):
            bound = max(bound, int(np.ceil(size.bound - 1e-6)))
        return CoverSolution(
            tuple(best),
            size_proven=False,
            lower_bound=min(bound, len(best)),
            loss_proven=False,
        )
    assert size.picked is not None
    searched = improve(units, list(size.picked))
    return _lowest_loss(problem, units, searched, clock.left(loss_time_limit))


def _lowest_loss(
    problem: CoverProblem,
    units: np.ndarray,
    searched: list[int],
    time_limit: float | None,
) -> CoverSolution:
    keep = np.flatnonzero(undominated(units))
    loss = min_loss(
        problem.covers[:, keep],
        np.where(problem.covers[:, keep], units[:, keep], 0.0),
        keep,
        size=len(searched),
        time_limit=time_limit,
    )
    found = None if loss.picked is None else sorted(int(keep[j]) for j in loss.picked)
    if found is None or len(found) != len(searched) or not _is_cover(problem, found):
        return CoverSolution(tuple(searched), True, len(searched), False)
    # A proof is believed only if no table found otherwise beats it (size, loss and
    # position sum); between equals the lower positions win, as in table_key.
    key, other = table_key(units, found), table_key(units, searched)
    proven = loss.proven and key[:3] <= other[:3]
    best = found if key <= other else searched
    return CoverSolution(tuple(best), True, len(best), proven)


def undominated(units: np.ndarray) -> np.ndarray:
    """Candidates no earlier candidate makes unnecessary for the loss and the tie rule.

    Candidate j is dropped when an earlier kept candidate i covers every row j covers
    with no higher loss on each: swapping j for i in any cover keeps it a cover, never
    raises its loss and lowers its position sum, so no best table contains j.
    """
    covers = np.isfinite(units)
    size = covers.sum(axis=0)
    counts = covers.T.astype(np.float64) @ covers.astype(np.float64)
    superset = counts >= size[:, None] - 0.5  # [j, i]: i covers every row of j
    keep = np.ones(units.shape[1], dtype=bool)
    for j in range(units.shape[1]):
        earlier = np.flatnonzero(superset[j, :j] & keep[:j])
        if len(earlier):
            rows = covers[:, j]
            keep[j] = (
                not (units[rows][:, earlier] <= units[rows, j][:, None])
                .all(axis=0)
                .any()
            )
    return keep


def _is_cover(problem: CoverProblem, picked: Sequence[int] | None) -> bool:
    if picked is None:
        return False
    return bool(problem.covers[:, list(picked)].any(axis=1).all())
