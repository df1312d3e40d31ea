"""Cheap covers and a bound, for when HiGHS proves nothing in time.

Everything reads ``units``: an n x k array of losses in whole units, inf where candidate
j does not cover row i. Tables compare by ``table_key``: fewer candidates, then lower
total loss, then lower sum of positions, then the sorted positions themselves.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

TableKey = tuple[int, float, int, tuple[int, ...]]

#: Most swap rounds ``improve`` makes (each strictly improves the key).
MAX_ROUNDS = 100


def table_key(units: np.ndarray, picked: Sequence[int]) -> TableKey:
    """How good a table is (smaller is better); loss inf if it leaves a row out."""
    chosen = sorted(int(j) for j in picked)
    if not chosen:
        loss = 0.0 if units.shape[0] == 0 else float("inf")
    else:
        loss = float(units[:, chosen].min(axis=1).sum())
    return (len(chosen), loss, sum(chosen), tuple(chosen))


def greedy(units: np.ndarray) -> list[int]:
    """Repeatedly the candidate covering the most open rows (ties: lower loss on them,
    then the earlier candidate). Every row must be coverable."""
    covers = np.isfinite(units)
    loss = np.where(covers, units, 0.0)
    open_ = np.ones(covers.shape[0], dtype=bool)
    order = np.arange(covers.shape[1])
    picked: list[int] = []
    while open_.any():
        gain = covers[open_].sum(axis=0)
        cost = loss[open_].sum(axis=0)
        j = int(np.lexsort((order, cost, -gain))[0])
        picked.append(j)
        open_ &= ~covers[:, j]
    return sorted(picked)


def improve(units: np.ndarray, picked: Sequence[int]) -> list[int]:
    """Best single moves (drop a redundant candidate, or swap one for another) while
    one lowers ``table_key``; deterministic."""
    current = sorted(int(j) for j in picked)
    for _ in range(MAX_ROUNDS):
        moved = _best_move(units, current)
        if moved is None:
            break
        current = moved
    return current


def _best_move(units: np.ndarray, picked: list[int]) -> list[int] | None:
    best, best_key = None, table_key(units, picked)
    columns = np.arange(units.shape[1])
    for j in picked:
        rest = [i for i in picked if i != j]
        if not rest:
            base = np.full(units.shape[0], np.inf)
        else:
            base = units[:, rest].min(axis=1)
        options = [rest] if np.isfinite(base).all() else []
        totals = np.minimum(base[:, None], units).sum(axis=0)
        totals[picked] = np.inf
        c = int(np.lexsort((columns, totals))[0])
        if np.isfinite(totals[c]):
            options.append(sorted([*rest, c]))
        for option in options:
            key = table_key(units, option)
            if key < best_key:
                best, best_key = option, key
    return best


def disjoint_bound(covers: np.ndarray) -> int:
    """A lower bound on any cover's size: rows that pairwise share no candidate (taken
    greedily, fewest candidates first), as each needs a candidate of its own."""
    order = np.lexsort((np.arange(covers.shape[0]), covers.sum(axis=1)))
    seen = np.zeros(covers.shape[1], dtype=bool)
    count = 0
    for i in order:
        if not (covers[i] & seen).any():
            count += 1
            seen |= covers[i]
    return count
