"""The fewest ranges of consecutive points, each served by one config: exact, on arrays.

The input is one group's ``points x configs`` ratio matrix. Row ``p`` is the p-th swept
value of the range column (ascending), column ``c`` a config (configs numbered by first
appearance in the input), and ``ratio[p, c]`` the config's ratio to the point's best
run (1.0 = the best, worse > 1.0) where the config *serves* the point (it ran there
successfully and is within tolerance), ``inf`` where it does not. Every row needs a
finite entry: points where nothing ran are left out before this module.

A *range* ``[start, stop)`` is a run of consecutive points with one config that serves
each of them. ``partition`` returns the partition of all points into ranges that comes
first in this order:

1. the fewest ranges;
2. then the lowest worst ratio: the largest ratio of a range's config at one of the
   range's points, over all ranges;
3. then the earliest configs, compared range by range from the first point (the
   sequence of configs, lexicographically);
4. then, for the same sequence of configs, ranges that end as late as possible,
   compared range by range from the first point;

except that an *isolated* point, one that no config serves together with a neighbour,
is a range of its own in every partition and always takes its best config (its
lowest ratio, the earliest on a tie). That choice touches no other range, and it
cannot raise the worst ratio, since the best config's ratio is 1.0.

Why the answer is exact (P points; ``runs[s, c]`` is how many consecutive points from
``s`` on config ``c`` serves; ``F[s]`` the fewest ranges covering points ``s..P-1``):

* Sub-run closure: a config that serves every point of a run serves every point of
  each sub-run. Hence (a) ``F`` never increases with ``s``: a cover of ``s-1..P-1``,
  each range cut at ``s``, covers ``s..P-1``. And (b) ``F[s] = 1 + F[s + reach[s]]``
  with ``reach[s] = max_c runs[s, c]``: an optimal cover's first range ``[s, t)`` has
  ``t <= s + reach[s]``, so by (a) ``1 + F[s + reach[s]] <= 1 + F[t] = F[s]``, and
  taking the longest first range achieves it. So extending each range as far as it
  goes gives the fewest ranges, ``K = F[0]`` (``suffix_counts``).
* Worst ratio: a partition has worst ratio ``<= t`` exactly when it is a partition of
  the matrix with the entries above ``t`` removed. The count ``F_t[0]`` of that matrix
  never increases with ``t``, so the lowest worst ratio ``W`` of a ``K``-range
  partition is the smallest entry ``t`` with ``F_t[0] == K``: a binary search over the
  matrix's entries (``lowest_worst``).
* Configs: in the matrix restricted to entries ``<= W``, every ``K``-range partition
  has worst ratio exactly ``W``, and every ``K``-range partition with worst ratio ``W``
  is one of them. Let ``S_k`` be the points where range ``k`` can start in such a
  partition whose first ``k-1`` configs are the ones already chosen. Each ``s`` in
  ``S_k`` has ``F[s] = K-k+1`` (fewer would give fewer than ``K`` ranges in all), so
  range ``k`` must stop at some ``t >= q_k``, the first point with ``F[t] <= K-k``
  (``F`` never increases), and ``t <= s + runs[s, c]``. Config ``c`` can come ``k``-th
  if and only if ``max over s in S_k of s + runs[s, c] >= q_k``: the earliest such
  config is the ``k``-th of the lexicographically first sequence, because every stop
  in ``S_(k+1) = [q_k, that maximum]`` can be completed in ``K-k`` ranges
  (``earliest_configs``). The sets ``S_k`` lie in disjoint level sets of ``F``, so all
  steps together look at each point once.
* Ends: with the configs fixed, ``T_k`` (the starts in ``S_k`` from which configs
  ``k..K`` can still finish) is computed backwards from ``T_(K+1) = {P}``; each range
  then stops at the latest point of ``T_(k+1)`` its config reaches (``latest_stops``).

``tests/kprofile/core/test_ranges.py`` checks all of it against brute force.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

IntArray = np.ndarray
FloatArray = np.ndarray


@dataclass(frozen=True, eq=False)
class Partition:
    """Ranges ``[starts[k], stops[k])`` of point indices, in order, covering every
    point once; ``configs[k]`` is the matrix column serving range ``k`` and
    ``worst[k]`` its largest ratio there. ``ratios[p]`` is the ratio of the config
    that serves point ``p``."""

    starts: IntArray
    stops: IntArray
    configs: IntArray
    worst: FloatArray
    ratios: FloatArray

    def __len__(self) -> int:
        return len(self.starts)


def partition(ratio: FloatArray) -> Partition:
    """The first partition of the points into ranges in the module's order."""
    ratio = np.asarray(ratio, dtype=np.float64)
    if ratio.ndim != 2:
        raise ValueError("expected a points x configs matrix")
    if ratio.shape[0] == 0:
        empty = np.zeros(0, dtype=np.int64)
        return Partition(empty, empty, empty, np.zeros(0), np.zeros(0))
    if not np.isfinite(ratio).any(axis=1).all():
        raise ValueError("every point needs a config that serves it")
    count = int(suffix_counts(run_lengths(np.isfinite(ratio)))[0])
    worst = lowest_worst(ratio, count)
    runs = run_lengths(ratio <= worst)
    counts = suffix_counts(runs)
    assert counts[0] == count  # the threshold keeps the fewest ranges
    configs, windows = earliest_configs(runs, counts)
    starts, stops = latest_stops(runs, configs, windows)
    configs = _best_for_isolated(ratio, starts, stops, configs)
    per_point = np.repeat(configs, stops - starts)
    ratios = ratio[np.arange(ratio.shape[0]), per_point]
    assert np.isfinite(ratios).all() and ratios.max() <= worst
    return Partition(
        starts, stops, configs, np.maximum.reduceat(ratios, starts), ratios
    )


def isolated_points(serves: np.ndarray) -> np.ndarray:
    """Points that no config serves together with the point before or after."""
    shared = (serves[1:] & serves[:-1]).any(axis=1)  # between p and p + 1
    alone = np.ones(serves.shape[0], dtype=bool)
    alone[1:] &= ~shared
    alone[:-1] &= ~shared
    return alone


def _best_for_isolated(
    ratio: FloatArray, starts: IntArray, stops: IntArray, configs: IntArray
) -> IntArray:
    """``configs`` with each isolated point's range given its best config."""
    alone = isolated_points(np.isfinite(ratio))
    single = (stops - starts == 1) & alone[starts]
    out = configs.copy()
    out[single] = np.argmin(ratio[starts[single]], axis=1)
    return out


def run_lengths(serves: np.ndarray) -> IntArray:
    """``runs[s, c]``: how many consecutive points from ``s`` on config ``c`` serves
    (0 where it does not serve ``s``). One extra row of zeros for ``s = P``."""
    points, configs = serves.shape
    rows = np.arange(points)[:, None]
    blocked = np.where(serves, points, rows)  # where each config's run stops
    next_blocked = np.minimum.accumulate(blocked[::-1], axis=0)[::-1]
    runs = np.zeros((points + 1, configs), dtype=np.int64)
    runs[:points] = next_blocked - rows
    return runs


def suffix_counts(runs: IntArray) -> IntArray:
    """``F[s]``: the fewest ranges covering points ``s..P-1`` (``F[P] = 0``), by (b).
    A point no config serves makes every ``F`` up to it infinite (``P + 1``)."""
    reach = runs.max(axis=1)
    points = len(reach) - 1
    counts = np.zeros(points + 1, dtype=np.int64)
    for s in range(points - 1, -1, -1):
        stop = s + int(reach[s])
        counts[s] = points + 1 if stop == s else min(points + 1, 1 + counts[stop])
    return counts


def fewest(serves: np.ndarray) -> int:
    """The fewest ranges covering every point (``P + 1`` when a point has no config)."""
    return int(suffix_counts(run_lengths(serves))[0])


def lowest_worst(ratio: FloatArray, count: int) -> float:
    """The smallest entry ``t`` such that the entries ``<= t`` still cover the points
    in ``count`` ranges (``count`` being the fewest possible)."""
    floor = ratio.min(axis=1).max()  # below it some point has no config at all
    ceiling = _greedy_worst(ratio)  # a partition with ``count`` ranges reaches it
    entries = ratio[(ratio >= floor) & (ratio <= ceiling)]
    candidates = np.unique(entries)
    lo, hi = 0, len(candidates) - 1  # the ceiling is enough
    while lo < hi:
        mid = (lo + hi) // 2
        if fewest(ratio <= candidates[mid]) == count:
            hi = mid
        else:
            lo = mid + 1
    return float(candidates[lo])


def _greedy_worst(ratio: FloatArray) -> float:
    """The worst ratio of the greedy partition (each range as long as it goes) when
    each range takes the config whose largest ratio in it is lowest."""
    reach = run_lengths(np.isfinite(ratio)).max(axis=1)
    worst, start = 1.0, 0
    while start < ratio.shape[0]:
        stop = start + int(reach[start])
        worst = max(worst, float(ratio[start:stop].max(axis=0).min()))
        start = stop
    return worst


def earliest_configs(
    runs: IntArray, counts: IntArray
) -> tuple[IntArray, list[tuple[int, int]]]:
    """The lexicographically first config sequence of a ``counts[0]``-range partition,
    and for each range the window ``[lo, hi]`` (inclusive) of points where it can
    start (``S_k``)."""
    total = int(counts[0])
    # q_k: the first point whose suffix needs at most total - k ranges (F never rises)
    firsts = np.searchsorted(-counts, -(total - np.arange(1, total + 1)), side="left")
    configs = np.zeros(total, dtype=np.int64)
    windows = []
    lo = hi = 0
    for k in range(total):
        rows = np.arange(lo, hi + 1)
        reach = (rows[:, None] + runs[lo : hi + 1]).max(axis=0)
        config = int(np.argmax(reach >= firsts[k]))
        assert reach[config] >= firsts[k]  # some config always fits (see above)
        configs[k] = config
        windows.append((lo, hi))
        lo, hi = int(firsts[k]), int(reach[config])
    return configs, windows


def latest_stops(
    runs: IntArray, configs: IntArray, windows: list[tuple[int, int]]
) -> tuple[IntArray, IntArray]:
    """Starts and stops of the ranges ending latest, range by range, for ``configs``."""
    points = runs.shape[0] - 1
    allowed = [np.array([points], dtype=np.int64)]  # T_(K+1), then T_K, ...
    for k in range(len(configs) - 1, -1, -1):
        lo, hi = windows[k]
        rows = np.arange(lo, hi + 1)
        allowed.append(rows[_reaches(allowed[-1], rows, runs[rows, configs[k]])])
    allowed.reverse()
    assert allowed[0].tolist() == [0]
    starts = np.zeros(len(configs), dtype=np.int64)
    stops = np.zeros(len(configs), dtype=np.int64)
    start = 0
    for k, config in enumerate(configs):
        later = allowed[k + 1]
        last = start + int(runs[start, config])
        stop = int(later[np.searchsorted(later, last, side="right") - 1])
        assert start < stop <= last
        starts[k], stops[k] = start, stop
        start = stop
    return starts, stops


def _reaches(targets: IntArray, rows: IntArray, lengths: IntArray) -> np.ndarray:
    """For each start ``rows[i]``: is some target ``t`` (sorted) in
    ``(rows[i], rows[i] + lengths[i]]``?"""
    last = np.searchsorted(targets, rows + lengths, side="right") - 1
    return (last >= 0) & (targets[np.maximum(last, 0)] > rows)
