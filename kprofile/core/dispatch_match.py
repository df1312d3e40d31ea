"""How ``kprofile.core.dispatch`` finds each shape's first matching entry without
comparing every shape with every entry.

Entries are grouped by which key columns they give as ranges (their *pattern*). In a
group, the exactly matched columns make a bucket key (a hash join of shapes and
entries); then:

- no ranged column: the bucket's first entry is every one of its shapes' match;
- one ranged column: the ends of the bucket's ranges cut its line into segments, and
  each segment is painted with the first entry (in table order) that covers it, by a
  sweep that paints every segment once; a shape's match is its segment's paint;
- two ranged columns or more (rare): a shapes x entries match matrix, in chunks of
  ``CHUNK_CELLS``.

Numbers are compared exactly: every number of a ranged column (the shapes' values and
the entries' ends) is replaced by its rank among them, computed on int64 when all are
integers that fit, else on Python's own comparisons (exact between ``int`` and
``float``: ``2**53 + 1 > 2.0**53``). A float never stands in for an integer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

#: Cells of a shapes x entries match matrix computed at once (the fallback's chunks).
CHUNK_CELLS = 1 << 22
_INT64 = (-(2**63), 2**63 - 1)


class Group(NamedTuple):
    """The entries of one pattern: their indexes in the table (ascending), their
    bucket codes per exact column, and their ranks of ``[low, high)`` per ranged
    column. The shapes' side: codes per exact column, ranks per ranged column (-1 for
    a value that is no number)."""

    entries: np.ndarray
    entry_codes: Sequence[np.ndarray]
    lows: Sequence[np.ndarray]
    highs: Sequence[np.ndarray]
    shape_codes: Sequence[np.ndarray]
    shape_ranks: Sequence[np.ndarray]


def exact_ranks(numbers: Sequence[Any]) -> np.ndarray:
    """Each number's rank among ``numbers`` (equal numbers share one: ``256`` and
    ``256.0``), with exact comparisons (module docstring). No NaN here."""
    if not numbers:
        return np.zeros(0, dtype=np.int64)
    if (
        all(type(n) is int for n in numbers)
        and _INT64[0] <= min(numbers)
        and max(numbers) <= _INT64[1]
    ):
        array = np.array(numbers, dtype=np.int64)
    elif all(type(n) is float for n in numbers):
        array = np.array(numbers, dtype=np.float64)
    else:
        array = np.empty(len(numbers), dtype=object)
        array[:] = list(numbers)
    _, inverse = np.unique(array, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64)


def first_match(group: Group, n_shapes: int) -> tuple[np.ndarray, np.ndarray]:
    """Per shape the first entry of ``group`` that covers it (-1: none), and how many
    of the group's entries cover it."""
    shape_key, entry_key = _bucket_keys(group, n_shapes)
    if not group.lows:
        return _first_exact(group.entries, shape_key, entry_key)
    if len(group.lows) == 1:
        return _first_painted(group, shape_key, entry_key)
    return _first_by_matrix(group, shape_key, entry_key)


def _bucket_keys(group: Group, n_shapes: int) -> tuple[np.ndarray, np.ndarray]:
    """One integer per shape and per entry: equal exactly when every exact column's
    code is equal (0 for all when no column is matched exactly)."""
    if not group.shape_codes:
        return np.zeros(n_shapes, np.int64), np.zeros(len(group.entries), np.int64)
    key = np.zeros(n_shapes + len(group.entries), dtype=np.int64)
    for shape_code, entry_code in zip(group.shape_codes, group.entry_codes):
        code = np.concatenate([shape_code, entry_code])
        _, code = np.unique(code, return_inverse=True)  # 0 .. distinct - 1
        _, key = np.unique(key * (int(code.max()) + 1) + code, return_inverse=True)
        key = key.reshape(-1).astype(np.int64)  # stays below the rows' count
    return key[:n_shapes], key[n_shapes:]


def _first_exact(
    entries: np.ndarray, shape_key: np.ndarray, entry_key: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    size = int(max(shape_key.max(initial=-1), entry_key.max(initial=-1))) + 1
    first = np.full(size, -1, dtype=np.int64)
    keys, at = np.unique(entry_key, return_index=True)  # entries ascend: the first
    first[keys] = entries[at]
    count = np.bincount(entry_key, minlength=size).astype(np.int64)
    return first[shape_key], count[shape_key]


def _first_painted(
    group: Group, shape_key: np.ndarray, entry_key: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """One ranged column: segments between every range end, each painted by the
    first entry covering it (module docstring)."""
    low, high, rank = group.lows[0], group.highs[0], group.shape_ranks[0]
    width = int(max(high.max(initial=0), rank.max(initial=0))) + 1
    start, stop = entry_key * width + low, entry_key * width + high
    cuts = np.unique(np.concatenate([start, stop]))
    first_seg = np.searchsorted(cuts, start)
    last_seg = np.searchsorted(cuts, stop)  # exclusive; > first_seg (no empty range)
    paint = _paint(first_seg.tolist(), last_seg.tolist(), len(cuts))
    painted = np.array(paint, dtype=np.int64)
    painted = np.where(painted >= 0, group.entries[np.maximum(painted, 0)], -1)
    depth = np.zeros(len(cuts) + 1, dtype=np.int64)
    np.add.at(depth, first_seg, 1)
    np.add.at(depth, last_seg, -1)
    depth = np.cumsum(depth)[: len(cuts)]
    point = shape_key * width + rank
    seg = np.searchsorted(cuts, point, side="right") - 1
    inside = (rank >= 0) & (seg >= 0)
    seg = np.maximum(seg, 0)
    first = np.where(inside, painted[seg] if len(cuts) else -1, -1)
    count = np.where(inside, depth[seg] if len(cuts) else 0, 0)
    return first.astype(np.int64), count.astype(np.int64)


def _paint(first: list[int], last: list[int], size: int) -> list[int]:
    """Segment ``s`` gets the position of the first interval ``[first[i], last[i])``
    that holds it (-1: none). Each segment is painted once: ``ahead[s]`` leads past
    painted segments (a union-find with path halving)."""
    paint = [-1] * size
    ahead = list(range(size + 1))
    for position, (at, stop) in enumerate(zip(first, last)):
        at = _unpainted(ahead, at)
        while at < stop:
            paint[at] = position
            ahead[at] = at + 1
            at = _unpainted(ahead, at + 1)
    return paint


def _unpainted(ahead: list[int], at: int) -> int:
    while ahead[at] != at:
        ahead[at] = ahead[ahead[at]]
        at = ahead[at]
    return at


def _first_by_matrix(
    group: Group, shape_key: np.ndarray, entry_key: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Two ranged columns or more: the match matrix, a chunk of shapes at a time."""
    n_shapes, n_entries = len(shape_key), len(entry_key)
    first = np.full(n_shapes, -1, dtype=np.int64)
    count = np.zeros(n_shapes, dtype=np.int64)
    step = max(1, CHUNK_CELLS // max(n_entries, 1))
    for begin in range(0, n_shapes, step):
        rows = slice(begin, min(n_shapes, begin + step))
        hit = shape_key[rows, None] == entry_key
        for low, high, rank in zip(group.lows, group.highs, group.shape_ranks):
            point = rank[rows, None]
            hit &= (point >= 0) & (low <= point) & (point < high)
        count[rows] = hit.sum(axis=1)
        found = hit.any(axis=1)
        first[rows] = np.where(found, group.entries[hit.argmax(axis=1)], -1)
    return first, count
