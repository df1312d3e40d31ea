"""Kendall's tau-b in O(n log n) numpy (no scipy): ties handled, no Python loop per row.

Knight's method: sort the pairs by (x, y), count the discordant pairs as the inversions
of y by a bottom-up merge sort in which every level is one vectorized step, and correct
for ties in x, in y and in both.
"""

from __future__ import annotations

import math

import numpy as np


def _tied_pairs(codes: np.ndarray) -> int:
    counts = np.bincount(codes)
    return int((counts * (counts - 1) // 2).sum())


def inversions(values: np.ndarray) -> int:
    """Number of pairs i < j with values[i] > values[j] (values: non-negative ints)."""
    n = len(values)
    if n < 2:
        return 0
    span = int(values.max()) + 1
    index = np.arange(n, dtype=np.int64)
    current = values.astype(np.int64)
    total = 0
    width = 1
    while width < n:
        pair = index // (2 * width)
        right = (index // width) % 2 == 1
        keys = pair * span + current
        left_keys = keys[~right]
        right_keys = keys[right]
        right_pair = pair[right]
        at_or_below = np.searchsorted(left_keys, right_keys, side="right")
        pair_end = np.searchsorted(left_keys, (right_pair + 1) * span, side="left")
        total += int((pair_end - at_or_below).sum())
        current = np.sort(keys, kind="stable") - pair * span
        width *= 2
    return total


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b of two equal-length numeric arrays (NaN pairs dropped); NaN if undefined."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    n = len(x)
    if n < 2:
        return math.nan
    xr = np.unique(x, return_inverse=True)[1].ravel()
    yr = np.unique(y, return_inverse=True)[1].ravel()
    order = np.lexsort((yr, xr))
    discordant = inversions(yr[order])
    pairs = n * (n - 1) // 2
    tied_x = _tied_pairs(xr)
    tied_y = _tied_pairs(yr)
    tied_xy = _tied_pairs(
        np.unique(xr.astype(np.int64) * (int(yr.max()) + 1) + yr, return_inverse=True)[
            1
        ].ravel()
    )
    score = pairs - tied_x - tied_y + tied_xy - 2 * discordant
    denominator = math.sqrt(float(pairs - tied_x) * float(pairs - tied_y))
    return math.nan if denominator == 0 else score / denominator
