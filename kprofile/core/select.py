"""Choosing rows: the best one of a file, and the "common config" of the rows
``--top``, ``--top-fraction`` or ``--within`` keep of every group (each tuning
parameter's most frequent value among them; the rows are ``core.ranked``'s).

``tests/select_oracle.py`` spells the same rules one file at a time, directly, as the
reference kprofile.py does: the tests check this module and ``core.ranked`` against it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from kprofile.core.columns import (
    Grouping,
    first_minimum,
)
from kprofile.core.metric import (
    Metric,
    best_position,
    metric_values,
    ratio_to,
    valid_mask,
)
from kprofile.core.ranked import GroupRows, Ranked, group_subsets
from kprofile.core.values import plain
from kprofile.inputs.load import Results


@dataclass(frozen=True)
class Best:
    """The best row of one file (or group): position in its frame and the row itself."""

    results: Results
    position: int | None  # None when no run succeeded
    value: float

    @property
    def row(self) -> pd.Series | None:
        return None if self.position is None else self.results.frame.iloc[self.position]

    def config(self) -> dict[str, Any]:
        """The best row's parameters (every parameter column), as Python values
        (column by column: a row of mixed types would cost a common dtype)."""
        if self.position is None:
            return {}
        frame = self.results.frame
        return {p: plain(frame[p].iloc[self.position]) for p in self.results.params}


def best_row(results: Results, metric: Metric) -> Best:
    """The best valid row of ``results`` (ties: first in input order)."""
    values = metric_values(results.frame, metric)
    position = best_position(values, metric)
    return Best(
        results, position, math.nan if position is None else float(values[position])
    )


@dataclass(frozen=True)
class ParamMode:
    """One parameter's most frequent value in a subset, and that value's share."""

    name: str
    value: Any
    count: int
    share: float


@dataclass(frozen=True, eq=False)
class CommonConfig:
    """``--top``/``--top-fraction``/``--within``: the subset, each tuning parameter's
    mode, and the config they make. ``measured`` is the position of that config in
    the file (best run if several), None when it was never benchmarked; its ``ratio``
    is NaN if that run failed."""

    results: Results
    subset: np.ndarray  # positions in results.frame, best first
    valid_count: int
    modes: tuple[ParamMode, ...]
    config: dict[str, Any]
    measured: int | None
    ratio: float


def common_configs(ranked: Ranked, *, kind: str, amount: float) -> list[CommonConfig]:
    """The common config of every group of ``ranked.grouping`` at once, each as it
    is for the group split off (``tests/select_oracle.py`` finds it so, one group at
    a time); positions (``subset``, ``measured``) in the whole file, whose
    ``Results`` each holds.

    Each parameter's codes are the file's (the loader's); a group's mode is its most
    frequent code in the group's subset (the first in rank order on a tie, as
    pandas' ``factorize`` numbers a subset's values), and the measured config the
    rows of the group whose codes are the modes' (a missing mode: a missing value).
    """
    grouping = ranked.grouping
    subsets = group_subsets(ranked, kind, amount)
    frame, params = grouping.results.frame, grouping.results.params
    codes = {p: grouping.results.value_codes(p) for p in params}  # missing: -1
    modes = {p: _group_modes(codes[p], frame[p], subsets, grouping) for p in params}
    measured = _group_measured(ranked, codes, modes, subsets)
    ratios = ratio_to(ranked.values[measured], ranked.best, ranked.metric)
    firsts = grouping.order[grouping.starts]
    first = {p: [plain(v) for v in frame[p].iloc[firsts].tolist()] for p in params}
    out = []
    for g in range(len(grouping)):
        found = tuple(modes[p].of(p, g) for p in grouping.varying_in(g))
        config = {p: first[p][g] for p in grouping.constant_in(g)}
        config.update({m.name: m.value for m in found if m.value is not None})
        at = int(measured[g])
        out.append(
            CommonConfig(
                grouping.results,
                subsets.of(g),
                int(ranked.unranked.counts[g]),
                found,
                config,
                None if at < 0 else at,
                math.nan if at < 0 else float(ratios[g]),
            )
        )
    return out


@dataclass(frozen=True, eq=False)
class _GroupModes:
    """One parameter's mode in the subset of every group: its value (None when no
    row of the subset sets it), count, share and code (-1: missing)."""

    values: list[Any]
    counts: np.ndarray
    shares: np.ndarray
    codes: np.ndarray

    def of(self, name: str, g: int) -> ParamMode:
        return ParamMode(
            name, self.values[g], int(self.counts[g]), float(self.shares[g])
        )


def _group_modes(
    codes: np.ndarray, column: pd.Series, subsets: GroupRows, grouping: Grouping
) -> _GroupModes:
    """``_mode`` of ``column`` in every group's subset, from the column's ``codes``."""
    sizes = subsets.counts
    counts = sizes.copy()  # no row of the subset sets it: the subset's size
    shares = np.where(sizes > 0, 1.0, np.nan)
    winners = np.full(len(sizes), -1)
    taken = codes[subsets.rows]
    present = np.flatnonzero(taken >= 0)  # entries of subsets.rows
    if len(present):
        groups = grouping.group_ids[subsets.rows[present]]
        pairs = pd.factorize(groups * (int(taken.max()) + 1) + taken[present])[0]
        seen = np.maximum.accumulate(pairs)
        first = np.flatnonzero(pairs > np.r_[-1, seen[:-1]])  # in pair order
        tally = np.bincount(pairs)
        owner = groups[first]  # group by group, as pairs first appear
        starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
        best = first_minimum(-tally, starts)  # the first of the most frequent
        winner = owner[starts]
        winners[winner] = subsets.rows[present[first[best]]]
        counts[winner] = tally[best]
        shares[winner] = tally[best] / sizes[winner]
    has = winners >= 0
    values: list[Any] = [None] * len(sizes)
    for g, value in zip(
        np.flatnonzero(has).tolist(), column.iloc[winners[has]].tolist()
    ):
        values[g] = plain(value)
    return _GroupModes(values, counts, shares, np.where(has, codes[winners], -1))


def _group_measured(
    ranked: Ranked,
    codes: dict[str, np.ndarray],
    modes: dict[str, _GroupModes],
    subsets: GroupRows,
) -> np.ndarray:
    """``_find_measured`` for every group: the row of the group whose parameters
    are the modes (the best that ran, else the first), -1 when there is none or
    the subset is empty."""
    grouping = ranked.grouping
    ids, order, starts = grouping.group_ids, grouping.order, grouping.starts
    match = np.ones(len(ids), dtype=bool)
    varies = np.zeros(len(grouping), dtype=bool)
    for p, found in modes.items():
        steady = grouping.constant[p]
        varies |= ~steady
        match &= steady[ids] | (codes[p] == found.codes[ids])
    hit = match[order]
    del match
    keys = ranked.values[order]  # made in place: 8 bytes a row each, at 5M rows
    ran = hit & valid_mask(keys)
    if ranked.metric.higher_is_better:
        np.negative(keys, out=keys)
    keys[~ran] = np.inf
    best = order[first_minimum(keys, starts)]
    del keys
    first = order[first_minimum(~hit, starts)]
    found_rows = np.where(np.add.reduceat(ran, starts) > 0, best, first)
    none = (np.add.reduceat(hit, starts) == 0) | (varies & (subsets.counts == 0))
    return np.where(none, -1, found_rows)
