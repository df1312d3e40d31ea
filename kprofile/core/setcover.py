"""Set cover over bit masks: an exact branch and bound with a node budget, and greedy.

A ``Problem`` has rows 0..n-1 (shapes) and candidates 0..k-1 (configs); candidate j
covers row i when ``ratios[i, j]`` is finite, and then costs ``ratios[i, j] - 1`` there.
``Problem.solve`` finds the fewest candidates covering every row:

1. The exact search is a depth-first branch and bound (branch on the uncovered row with
   the fewest options; prune with a lower bound from rows that share no candidate),
   seeded with the greedy answer or the given baseline, whichever is smaller. Phase 1
   proves the minimum size; phase 2 picks, among covers of that size, the lowest total
   loss (each row takes its lowest ratio; ties: the lowest candidate indices). Both
   phases share ``exact_limit`` search nodes. If phase 1 does not finish within the
   budget the answer is the seed (improved by whatever the search found) and the method
   is ``"greedy"``. If only phase 2 runs out, the size is still proven minimal
   (``"exact"``) and the loss is the best found.
2. Greedy: repeatedly take the candidate covering the most uncovered rows (ties: the
   lower loss on those rows, then the lower index), then drop candidates that became
   redundant.

numpy only; the caller turns its tables into a ``Problem``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

Method = Literal["exact", "greedy"]


class _BudgetExhausted(Exception):
    pass


@dataclass(frozen=True)
class Problem:
    """A set cover over rows 0..n-1 with candidates 0..k-1 (bit masks).

    ``ids``: the caller's id of each candidate (what ``solve`` returns).
    ``masks[j]``: bit mask of the rows candidate j covers.
    ``ratios``: n x k array, the ratio of candidate j on row i, inf where it does not cover.
    """

    ids: tuple[int, ...]
    masks: tuple[int, ...]
    ratios: np.ndarray

    @staticmethod
    def from_ratios(ids: Sequence[int], ratios: np.ndarray) -> Problem:
        """The problem whose candidate j (id ``ids[j]``) covers the rows where column j is finite."""
        masks = tuple(
            sum(1 << int(i) for i in np.flatnonzero(np.isfinite(ratios[:, j])))
            for j in range(len(ids))
        )
        return Problem(ids=tuple(ids), masks=masks, ratios=ratios)

    @property
    def full(self) -> int:
        return (1 << self.ratios.shape[0]) - 1

    def loss(self, picked: Sequence[int]) -> float:
        """Total loss of a set of candidate indices (each row takes its lowest ratio)."""
        if not picked:
            return 0.0
        return float((self.ratios[:, list(picked)].min(axis=1) - 1.0).sum())

    def solve(
        self, *, baseline: list[int], exact_limit: int
    ) -> tuple[list[int], Method]:
        """Ids of the cover's candidates (increasing index), and how it was found.

        ``baseline``: ids of a known cover (e.g. every row's best candidate); the search
        starts from it when it is smaller than the greedy cover.
        """
        if self.ratios.shape[0] == 0:
            return [], "exact"
        self.check_coverable()
        index = {c: j for j, c in enumerate(self.ids)}
        base = sorted(index[c] for c in baseline)
        if self._covered(base) != self.full:
            raise ValueError("the baseline does not cover every row")
        best = self.greedy()
        if len(base) < len(best):
            best = base
        search = _Search(self, budget=exact_limit)
        best, proven = search.minimum_size(best)
        if proven:
            best = search.lowest_loss(best)
        return [self.ids[j] for j in sorted(best)], ("exact" if proven else "greedy")

    def _covered(self, picked: Sequence[int]) -> int:
        mask = 0
        for j in picked:
            mask |= self.masks[j]
        return mask

    def check_coverable(self) -> None:
        """Raise ValueError if some row has no candidate at all (no cover exists)."""
        missing = self.full & ~self._covered(range(len(self.masks)))
        if missing:
            raise ValueError(
                f"row {_bits(missing)[0]} has no candidate: no cover exists"
            )

    def greedy(self) -> list[int]:
        """Candidate indices of the greedy cover, increasing."""
        self.check_coverable()
        covers = np.isfinite(self.ratios)
        loss = np.where(covers, self.ratios - 1.0, 0.0)
        open_ = np.ones(covers.shape[0], dtype=bool)
        picked: list[int] = []
        order = np.arange(covers.shape[1])
        while open_.any():
            gain = covers[open_].sum(axis=0)
            cost = loss[open_].sum(axis=0)
            j = int(np.lexsort((order, cost, -gain))[0])
            picked.append(j)
            open_ &= ~covers[:, j]
        return self._drop_redundant(picked)

    def _drop_redundant(self, picked: list[int]) -> list[int]:
        kept = list(picked)
        for j in reversed(picked):
            others = 0
            for i in kept:
                if i != j:
                    others |= self.masks[i]
            if others == self.full:
                kept.remove(j)
        return sorted(kept)


class _Search:
    """Depth-first branch and bound over a ``Problem``, sharing one node budget."""

    def __init__(self, problem: Problem, *, budget: int) -> None:
        self.p = problem
        self.budget = budget
        self.nodes = 0
        n = problem.ratios.shape[0]
        self.options = [
            sum(1 << j for j, m in enumerate(problem.masks) if m >> i & 1)
            for i in range(n)
        ]

    def minimum_size(self, incumbent: list[int]) -> tuple[list[int], bool]:
        """Smallest cover (candidate indices) and whether it is proven minimal."""
        keep = _undominated(self.p, by_loss=False)
        best = list(incumbent)

        def leaf(chosen: list[int]) -> None:
            nonlocal best
            if len(chosen) < len(best):
                best = sorted(chosen)

        def prune(chosen: list[int], bound: int, banned: int) -> bool:
            return len(chosen) + bound >= len(best)

        done = self._run(
            keep,
            leaf,
            prune,
            order=lambda i, opts: sorted(opts, key=lambda j: (-self._gain(j), j)),
        )
        return best, done

    def lowest_loss(self, incumbent: list[int]) -> list[int]:
        """Among covers of the incumbent's (minimal) size, the one with the lowest total loss."""
        keep = _undominated(self.p, by_loss=True)
        size = len(incumbent)
        best, best_key = list(incumbent), (self.p.loss(incumbent), sorted(incumbent))
        ratios = self.p.ratios

        def leaf(chosen: list[int]) -> None:
            nonlocal best, best_key
            key = (self.p.loss(chosen), sorted(chosen))
            if key[0] < best_key[0] - 1e-12 or (
                key[0] <= best_key[0] + 1e-12 and key[1] < best_key[1]
            ):
                best, best_key = sorted(chosen), key

        def prune(chosen: list[int], bound: int, banned: int) -> bool:
            if len(chosen) + bound > size:
                return True
            # Each row ends with a ratio no lower than its best among still-allowed candidates.
            allowed = _bits(keep & ~banned)
            floor = float((ratios[:, allowed].min(axis=1) - 1.0).sum())
            return floor > best_key[0] + 1e-12

        def order(i: int, opts: list[int]) -> list[int]:
            return sorted(opts, key=lambda j: (ratios[i, j], -self._gain(j), j))

        self._run(keep, leaf, prune, order=order)
        return best

    # The search proper ----------------------------------------------------------

    def _gain(self, j: int) -> int:
        return self.p.masks[j].bit_count()

    def _run(
        self,
        keep: int,
        leaf: Callable[[list[int]], None],
        prune: Callable[[list[int], int, int], bool],
        *,
        order: Callable[[int, list[int]], list[int]],
    ) -> bool:
        """Explore every cover; False if the node budget ran out first."""
        full = self.p.full
        options = [o & keep for o in self.options]

        def visit(covered: int, chosen: list[int], banned: int) -> None:
            self.nodes += 1
            if self.nodes > self.budget:
                raise _BudgetExhausted
            if covered == full:
                leaf(chosen)
                return
            open_ = [(options[i] & ~banned, i) for i in _bits(full & ~covered)]
            bound = _disjoint_bound(open_)
            if bound is None or prune(chosen, bound, banned):
                return
            _, row = min(open_, key=lambda t: (t[0].bit_count(), t[1]))
            for j in order(row, list(_bits(options[row] & ~banned))):
                visit(covered | self.p.masks[j], [*chosen, j], banned)
                banned |= 1 << j

        try:
            visit(0, [], 0)
        except _BudgetExhausted:
            return False
        return True


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _disjoint_bound(open_: list[tuple[int, int]]) -> int | None:
    """Lower bound on candidates still needed: open rows that share no candidate. None: infeasible."""
    seen, count = 0, 0
    for opts, _ in sorted(open_, key=lambda t: (t[0].bit_count(), t[1])):
        if opts == 0:
            return None
        if not opts & seen:
            count += 1
        seen |= opts
    return count


def _undominated(p: Problem, *, by_loss: bool) -> int:
    """Bit mask of candidates that no other candidate makes unnecessary.

    Candidate j is dominated by i when i covers every row j covers (and, ``by_loss``,
    with a ratio no worse on each row and a lower index). Swapping j for i in any cover
    then never raises its loss and, for ``by_loss``, never raises its sorted indices, so
    the tie rule (lowest indices among equal loss) still finds the same cover.
    """
    k = len(p.masks)
    keep = (1 << k) - 1
    by_size = sorted(range(k), key=lambda j: (-p.masks[j].bit_count(), j))
    for pos, j in enumerate(by_size):
        # Only a candidate at least as large can cover everything j covers.
        same = [i for i in by_size[pos + 1 :] if p.masks[i] == p.masks[j]]
        for i in [*by_size[:pos], *same]:
            if not keep >> i & 1 or p.masks[j] & ~p.masks[i]:
                continue
            if _dominates(p, i, j, by_loss=by_loss):
                keep &= ~(1 << j)
                break
    return keep


def _dominates(p: Problem, i: int, j: int, *, by_loss: bool) -> bool:
    if not by_loss:
        return p.masks[i] != p.masks[j] or i < j
    # A dominator with a higher index could replace j by an equal-loss cover with
    # higher indices, which would break the tie rule: only a lower index may dominate.
    return i < j and bool((p.ratios[:, i] <= p.ratios[:, j]).all())
