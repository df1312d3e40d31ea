"""Every group's rank order at once, and the rows ``--top``, ``--top-fraction`` and
``--within`` keep of each.

For the ``-p`` groups of a file (``core.columns.Grouping``), what ``rank_order`` and
the rules of ``--top``, ``--top-fraction`` and ``--within`` (spelled one file at a
time in ``tests/select_oracle.py``) give for each group split off, in a few passes
over the whole file: one stable sort by metric, then one by group, so that each
group's rows that ran come out best first, ties in input order. ``--top`` and
``--within`` keep rows by a bound on their value, which needs no order: they keep
first and sort only what they kept (5% of a file, not all of it). 10,000 groups cost
about as much as one file of the same rows. Rows are the file's positions (in
``grouping.results.frame``), never a group's own.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from kprofile.core.columns import Grouping
from kprofile.core.metric import (
    Metric,
    metric_values,
    ratio_to,
    valid_mask,
    within_band,
)


@dataclass(frozen=True, eq=False)
class GroupRows:
    """Some rows of every group, group by group: group ``g``'s are
    ``rows[starts[g]:starts[g] + counts[g]]``."""

    rows: np.ndarray
    starts: np.ndarray
    counts: np.ndarray

    def of(self, g: int) -> np.ndarray:
        start = self.starts[g]
        return self.rows[start : start + self.counts[g]]

    @classmethod
    def gather(cls, rows: np.ndarray, groups: np.ndarray, total: int) -> GroupRows:
        """``rows`` (already group by group), of groups ``groups``, of ``total``."""
        counts = np.bincount(groups, minlength=total)
        return cls(rows, np.cumsum(counts) - counts, counts)


@dataclass(frozen=True, eq=False)
class Ranked:
    """A file's groups, each ranked by ``metric``: ``ran`` the rows that ran, best
    first (sorted when first asked for); ``unranked`` the same rows in input order;
    ``failed`` the others, in input order; ``best`` each group's best value (NaN
    when none ran); ``values`` the metric of every row of the file."""

    grouping: Grouping
    metric: Metric
    values: np.ndarray
    unranked: GroupRows
    failed: GroupRows
    best: np.ndarray

    @functools.cached_property
    def ran(self) -> GroupRows:
        """Every group's rows that ran, best first, ties in input order."""
        return self.best_first(None)

    def best_first(self, keep: np.ndarray | None) -> GroupRows:
        """The rows of ``unranked`` that ``keep`` marks (all if None), each group's
        best first, ties in input order: only they are sorted."""
        ran = self.unranked.rows if keep is None else self.unranked.rows[keep]
        keys = self.values[ran]
        if self.metric.higher_is_better:
            np.negative(keys, out=keys)
        ran = ran[stable_argsort(keys)]
        del keys  # each array of rows is 8 bytes a row: no more of them alive
        ids, total = self.grouping.group_ids, len(self.best)
        if total > 1:  # group ids in their narrowest type: numpy's radix sort, O(n)
            narrow = ids[ran].astype(np.min_scalar_type(total), copy=False)
            ran = ran[np.argsort(narrow, kind="stable")]
        return GroupRows.gather(ran, ids[ran], total)

    def ratios(self, rows: np.ndarray) -> np.ndarray:
        """The ratio of each of ``rows`` to the best of its group (NaN if failed)."""
        best = self.best[self.grouping.group_ids[rows]]
        return ratio_to(self.values[rows], best, self.metric)


def stable_argsort(keys: np.ndarray) -> np.ndarray:
    """``np.argsort(keys, kind="stable")`` of float keys without NaN, in the time
    of an unstable sort: introsort, then each run of equal keys put back in the
    order it had (ties are few in measurements; only they are sorted again)."""
    order = np.argsort(keys, kind="quicksort")
    if len(order) < 2:
        return order
    ranked = keys[order]
    tied = ranked[1:] == ranked[:-1]
    if not tied.any():
        return order
    in_run = np.zeros(len(order), dtype=bool)
    in_run[:-1] = tied
    in_run[1:] |= tied
    starts = in_run.copy()
    starts[1:] &= ~tied  # the first of each run of equal keys
    where = np.flatnonzero(in_run)
    runs = np.cumsum(starts)[where]
    order[where] = order[where][np.lexsort((order[where], runs))]
    return order


def rank_groups(grouping: Grouping, metric: Metric) -> Ranked:
    """Every group of ``grouping`` ranked as ``rank_order`` ranks it alone (the
    sort made when the full order is first asked for: ``--top`` and ``--within``
    sort only the rows they keep)."""
    values = metric_values(grouping.results.frame, metric)
    valid = valid_mask(values)
    ids, total = grouping.group_ids, len(grouping)
    ran = grouping.order[valid[grouping.order]]  # group by group, input order
    unranked = GroupRows.gather(ran, ids[ran], total)
    failed = grouping.order[~valid[grouping.order]]
    best = np.full(total, np.nan)
    has = unranked.counts > 0
    if len(ran):  # the least (most, higher is better) of each group that ran
        extreme = np.maximum if metric.higher_is_better else np.minimum
        best[has] = extreme.reduceat(values[ran], unranked.starts[has])
    return Ranked(
        grouping,
        metric,
        values,
        unranked,
        GroupRows.gather(failed, ids[failed], total),
        best,
    )


def _top(ranked: Ranked, amount: float) -> GroupRows:
    """``--top``: below ``(X + min / max) * max`` (mirrored for higher is
    better), with each group's own min and max, the edge computed as there."""
    ran = ranked.unranked
    values = ranked.values[ran.rows]
    ids = ranked.grouping.group_ids[ran.rows]
    if ranked.metric.higher_is_better:  # the best is each group's max
        high = ranked.best
        return ranked.best_first(values > (high - amount * high)[ids])
    low, high = ranked.best, np.full(len(ranked.best), np.nan)  # best: the min
    has = ran.counts > 0
    if len(values):
        high[has] = np.maximum.reduceat(values, ran.starts[has])
    return ranked.best_first(values < ((amount + low / high) * high)[ids])


def _top_fraction(ranked: Ranked, amount: float) -> GroupRows:
    """``--top-fraction``: each group's best ``floor(X x rows that ran)``, at
    least one."""
    ran = ranked.ran
    keep = np.maximum(1, np.floor(amount * ran.counts + 1e-9))
    ids = ranked.grouping.group_ids[ran.rows]
    place = np.arange(len(ran.rows)) - ran.starts[ids]
    rows = ran.rows[place < keep[ids]]
    return GroupRows.gather(rows, ranked.grouping.group_ids[rows], len(ranked.best))


def _within(ranked: Ranked, amount: float) -> GroupRows:
    """``--within``: ratio to the group's best at most ``1 + X``."""
    rows = ranked.unranked.rows
    return ranked.best_first(within_band(ranked.ratios(rows), amount))


GROUP_SELECTIONS: dict[str, Callable[[Ranked, float], GroupRows]] = {
    "top": _top,
    "top-fraction": _top_fraction,
    "within": _within,
}


def group_subsets(ranked: Ranked, kind: str, amount: float) -> GroupRows:
    """The rows ``kind`` (``--top``, ``--top-fraction`` or ``--within``) keeps of
    each group with ``amount``, best first."""
    with np.errstate(all="ignore"):  # an edge beyond the largest float is inf
        return GROUP_SELECTIONS[kind](ranked, amount)
