"""Cheap tables and bounds for ``--budget``, on a rows x candidates cost matrix.

``costs[i, j]`` is the log ratio of candidate j (a config) at row i (a shape), >= 0
(0 = the row's best), ``inf`` where j never ran successfully at i: there it cannot
serve. A table (a set of candidates) serves each row with its cheapest candidate; it
is *complete* when every row has one. Tables compare by ``table_key``: complete
first, then the objective (the sum of the rows' costs, or the largest), then the
other of the two, then fewer candidates, then the sorted candidates themselves.

Here: ``greedy`` and ``improve`` (swaps) for a good table fast; ``lagrangian`` for a
proven lower bound on the sum objective and ``prune`` for the (row, candidate) pairs
that no table at least as good as a known one can use (both exact, see ``prune``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kprofile.core.defaults import Objective

TableKey = tuple[int, float, float, int, tuple[int, ...]]

#: Most swap rounds ``improve`` makes (each strictly improves the key).
MAX_ROUNDS = 200
#: Subgradient steps of ``lagrangian`` at most, and the smallest step scale.
MAX_STEPS = 2000
MIN_SCALE = 1e-4
#: A pair or candidate is pruned only when its bound exceeds the known table's
#: objective by more than this (absolute, in log ratio), far above float rounding.
PRUNE_MARGIN = 1e-7


def served(costs: np.ndarray, picked: Sequence[int]) -> np.ndarray:
    """Each row's cost under the table ``picked`` (inf where none of it ran)."""
    if not len(picked):
        return np.full(costs.shape[0], np.inf)
    return np.asarray(costs[:, list(picked)].min(axis=1), dtype=np.float64)


def table_key(
    costs: np.ndarray, picked: Sequence[int], objective: Objective
) -> TableKey:
    """How good a table is (smaller is better); see the module docstring."""
    chosen = sorted(int(j) for j in picked)
    row = served(costs, chosen)
    missing = int(np.isinf(row).sum())
    finite = row[np.isfinite(row)]
    total = float(finite.sum())
    worst = float(finite.max()) if len(finite) else 0.0
    first, second = (total, worst) if objective == "geomean" else (worst, total)
    return (missing, first, second, len(chosen), tuple(chosen))


def greedy(costs: np.ndarray, size: int, objective: Objective) -> list[int]:
    """Up to ``size`` candidates, each the one whose addition gives the best key
    (rows left unserved first); stops early when none improves the table."""
    picked: list[int] = []
    for _ in range(min(size, costs.shape[1])):
        added = _best_addition(costs, picked, objective)
        if added is None:
            break
        picked.append(added)
    return sorted(picked)


def improve(
    costs: np.ndarray, picked: Sequence[int], size: int, objective: Objective
) -> list[int]:
    """Best single moves (add a candidate while under ``size``, drop one, or swap one
    for another) while one lowers ``table_key``; deterministic."""
    current = sorted(int(j) for j in picked)
    for _ in range(MAX_ROUNDS):
        moved = _best_move(costs, current, size, objective)
        if moved is None:
            break
        current = moved
    return current


def _best_move(
    costs: np.ndarray, picked: list[int], size: int, objective: Objective
) -> list[int] | None:
    options: list[list[int]] = []
    if len(picked) < size:
        options.append(_with(picked, _best_addition(costs, picked, objective)))
    for j in picked:
        rest = [i for i in picked if i != j]
        options += [rest, _with(rest, _best_addition(costs, rest, objective))]
    best, best_key = None, table_key(costs, picked, objective)
    for option in options:
        key = table_key(costs, option, objective)
        if key < best_key:
            best, best_key = sorted(option), key
    return best


def _with(picked: list[int], added: int | None) -> list[int]:
    return picked if added is None else [*picked, added]


def _best_addition(
    costs: np.ndarray, picked: list[int], objective: Objective
) -> int | None:
    """The candidate whose addition to ``picked`` gives the best (missing rows,
    objective, other objective), the earliest on a tie; None if none improves it."""
    base = served(costs, picked)
    new = np.minimum(base[:, None], costs)
    missing = np.isinf(new).sum(axis=0).astype(np.float64)
    finite = np.where(np.isinf(new), 0.0, new)
    total, worst = finite.sum(axis=0), finite.max(axis=0, initial=0.0)
    first, second = (total, worst) if objective == "geomean" else (worst, total)
    missing[picked] = np.inf
    j = int(np.lexsort((np.arange(costs.shape[1]), second, first, missing))[0])
    if not np.isfinite(missing[j]):
        return None
    now = table_key(costs, picked, objective)[:3]
    if picked and (missing[j], first[j], second[j]) >= now:
        return None
    return j


@dataclass(frozen=True, eq=False)
class Lagrangian:
    """A proven lower bound on the sum objective of any table of at most ``size``
    candidates serving every row, and the multipliers ``u`` (one per row) behind it.

    Relaxing "each row is served once" with multiplier ``u_i`` leaves
    ``sum_i u_i + sum_{j picked} rho_j`` with ``rho_j = sum_i min(0, costs[i,j] - u_i)``
    minimized by the ``size`` most negative ``rho``: a lower bound for every ``u``
    (weak duality), raised by subgradient steps."""

    bound: float
    u: np.ndarray
    rho: np.ndarray
    size: int


def lagrangian(costs: np.ndarray, size: int, upper: float) -> Lagrangian:
    """Subgradient ascent (Polyak steps towards ``upper``, the objective of a known
    table) on the relaxation above; returns the best bound met."""
    u = np.sort(costs, axis=1)[:, min(1, costs.shape[1] - 1)]
    u = np.where(np.isfinite(u), u, costs.min(axis=1))
    best = _relaxed(costs, u, size)
    scale, stall = 2.0, 0
    current = best
    for _ in range(MAX_STEPS):
        gap = upper - current.bound
        if gap <= PRUNE_MARGIN or scale < MIN_SCALE:
            break
        step = _subgradient(costs, current, size)
        norm = float(step @ step)
        if norm == 0:
            break
        trial = _relaxed(costs, current.u + scale * gap / norm * step, size)
        if trial.bound > best.bound:
            best, stall = trial, 0
        else:
            stall += 1
        current = trial
        if stall >= 20:
            scale, stall, current = scale / 2, 0, best
    return best


def _relaxed(costs: np.ndarray, u: np.ndarray, size: int) -> Lagrangian:
    with np.errstate(invalid="ignore"):
        rho = np.minimum(0.0, costs - u[:, None]).sum(axis=0)
    chosen = np.sort(rho)[:size]
    return Lagrangian(float(u.sum() + chosen.sum()), u, rho, size)


def _subgradient(costs: np.ndarray, relaxed: Lagrangian, size: int) -> np.ndarray:
    """1 - (times each row is served) in the relaxed optimum."""
    chosen = np.argsort(relaxed.rho, kind="stable")[:size]
    chosen = chosen[relaxed.rho[chosen] < 0]
    served_by = (costs[:, chosen] < relaxed.u[:, None]).sum(axis=1)
    return 1.0 - served_by


def prune(costs: np.ndarray, bound: Lagrangian, upper: float) -> np.ndarray:
    """The (row, candidate) pairs some table with sum objective <= ``upper`` may use.

    Forcing candidate j in raises the relaxed bound to ``bound + rho_j - rho_(size)``
    (j replaces the least negative of the chosen; nothing to replace when fewer than
    ``size`` are negative), and forcing row i onto j adds ``max(0, costs[i, j] -
    u_i)``. A pair whose forced bound is above ``upper`` is in no table as good as the
    known one, so no optimal table uses it, and dropping it keeps every optimum. The
    margin ``PRUNE_MARGIN`` keeps pairs float rounding could misjudge."""
    rho = bound.rho
    order = np.argsort(rho, kind="stable")
    count = int((rho[order[: bound.size]] < 0).sum())
    chosen = np.zeros(len(rho), dtype=bool)
    chosen[order[:count]] = True
    swap_out = rho[order[count - 1]] if count and count == bound.size else 0.0
    forced = np.where(chosen, bound.bound, bound.bound + rho - swap_out)
    with np.errstate(invalid="ignore"):
        extra = np.maximum(0.0, costs - bound.u[:, None])
    keep = forced[None, :] + extra <= upper + PRUNE_MARGIN
    return keep & np.isfinite(costs)
