"""The smallest dispatch table that keeps every shape within TOL of its own best.

Input: one row per measured (shape, config). A shape is the tuple of ``shape_cols``
values, a config the tuple of ``param_cols`` values (NaN counts as a value of its own).
Failed runs (metric 0, negative, NaN or infinite) are dropped; a (shape, config)
measured twice keeps its best measurement.

A config *covers* a shape when it was measured on that shape and its ratio there is
within ``1 + tol`` (ratio convention: 1.0 is the shape's best, worse is above 1.0).
``cover`` then solves a set cover:

1. Shapes whose every config within TOL serves no other shape are *uncovered*: no
   shared config can serve them, so they get their own best config, and are reported.
2. The other shapes are covered with as few configs as possible. The exact search is a
   depth-first branch and bound (branch on the uncovered shape with the fewest
   options; prune with a lower bound from shapes that share no candidate), seeded with
   the greedy answer. Phase 1 proves the minimum size; phase 2 picks, among covers of
   that size, the lowest total loss (ties: the lowest config indices, i.e. first
   appearance). Both phases share ``exact_limit`` search nodes. If phase 1 does not
   finish within the budget the result is the greedy one (improved by whatever the
   search found) and ``method`` is ``"greedy"``. If only phase 2 runs out, the size is
   still proven minimal (``method == "exact"``) and the loss is the best found.
3. Greedy: repeatedly take the config covering the most uncovered shapes (ties: the
   lower loss on those shapes, then first appearance), then drop configs that became
   redundant; never larger than one config per shape.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

#: Default number of search nodes the exact search may visit (both phases together).
DEFAULT_EXACT_LIMIT = 200_000

# Column names of the tables this module returns.
CONFIG = "config"
BEST = "best"
RATIO = "ratio"
LOSS = "loss"
REASON = "reason"

REASON_NO_RUN = "no successful run"
REASON_NOT_SHARED = "needs a config of its own: no config within tol serves another shape"


class AnalysisInputError(ValueError):
    """Input the analysis cannot work with; ``str()`` is one line for the user."""


# --------------------------------------------------------------------------- ratios


@dataclass(frozen=True, eq=False)
class Measured:
    """Successful measurements reduced to one row per (shape, config), with ratios.

    ``table`` columns: ``shape`` and ``config`` (integer ids, numbered in order of first
    appearance in the input), ``value`` (the best measurement), ``best`` (the shape's
    best value) and ``ratio`` (1.0 for the shape's best). Sorted by shape, then config.
    ``shapes`` / ``configs`` map those ids (their index) to the shape / parameter
    columns, including shapes and configs that only had failed runs.
    """

    table: pd.DataFrame
    shapes: pd.DataFrame
    configs: pd.DataFrame


def measure(
    df: pd.DataFrame,
    *,
    shape_cols: Sequence[str],
    param_cols: Sequence[str],
    metric: str,
    lower_is_better: bool,
) -> Measured:
    """Validate the input and compute every (shape, config) ratio, vectorized."""
    shape_cols, param_cols = list(shape_cols), list(param_cols)
    check_columns(df, shape_cols=shape_cols, param_cols=param_cols, metric=metric)
    shape_id = _group_ids(df, shape_cols)
    config_id = _group_ids(df, param_cols)
    value = pd.to_numeric(df[metric], errors="coerce").astype(float)
    ok = np.isfinite(value.to_numpy()) & (value.to_numpy() > 0)
    if not ok.any():
        raise AnalysisInputError(f"no successful run: every {metric!r} value is 0, negative or missing")
    best_of = "min" if lower_is_better else "max"
    table = (
        pd.DataFrame({"shape": shape_id[ok], "config": config_id[ok], "value": value[ok]})
        .groupby(["shape", "config"], sort=True)["value"]
        .agg(best_of)
        .reset_index()
    )
    table["best"] = table.groupby("shape")["value"].transform(best_of)
    table["ratio"] = table["value"] / table["best"] if lower_is_better else table["best"] / table["value"]
    return Measured(
        table=table,
        shapes=_first_rows(df, shape_cols, shape_id),
        configs=_first_rows(df, param_cols, config_id),
    )


def check_columns(
    df: pd.DataFrame, *, shape_cols: Sequence[str], param_cols: Sequence[str], metric: str
) -> None:
    """Raise ``AnalysisInputError`` for empty input or columns the frame does not have."""
    if len(df) == 0:
        raise AnalysisInputError("no results: the table is empty")
    if not param_cols:
        raise AnalysisInputError("no parameter columns to analyze")
    wanted = [*shape_cols, *param_cols, metric]
    unknown = [c for c in dict.fromkeys(wanted) if c not in df.columns]
    if unknown:
        raise AnalysisInputError(
            f"unknown column(s) {', '.join(map(repr, unknown))}; available: {', '.join(map(str, df.columns))}"
        )
    both = sorted(set(shape_cols) & set(param_cols) | ({metric} & set([*shape_cols, *param_cols])))
    if both:
        raise AnalysisInputError(f"column(s) {', '.join(map(repr, both))} used in more than one role")


def _group_ids(df: pd.DataFrame, cols: list[str]) -> pd.Series:
    """Integer id per row for the tuple of ``cols``, numbered by first appearance; NaN is a value."""
    if not cols:
        return pd.Series(0, index=df.index, dtype="int64")
    ids = df.groupby(cols, sort=False, dropna=False).ngroup()
    return ids.astype("int64")


def _first_rows(df: pd.DataFrame, cols: list[str], ids: pd.Series) -> pd.DataFrame:
    first = ~ids.duplicated()
    out = df.loc[first.to_numpy(), cols].copy()
    out.index = pd.Index(ids[first].to_numpy(), name=None)
    return out.sort_index()


def within_tol(table: pd.DataFrame, tol: float, *, lower_is_better: bool) -> pd.Series:
    """Rows of a ``Measured.table`` whose value is within ``tol`` of the shape's best.

    Checked in the three ways a reader may write it (ratio <= 1 + tol, ratio - 1 <= tol,
    and value against best * (1 + tol)), so no float rounding can make an answer that
    one of them rejects.
    """
    ratio, value, best = table["ratio"], table["value"], table["best"]
    scaled = value <= best * (1 + tol) if lower_is_better else value * (1 + tol) >= best
    return (ratio <= 1 + tol) & (ratio - 1 <= tol) & scaled


# --------------------------------------------------------------------------- result


@dataclass(frozen=True, eq=False)
class CoverResult:
    """What ``cover`` chose.

    ``configs``: the chosen configs (``param_cols``), index 0..n-1, ordered by the first
    shape (in input order) that uses them.
    ``assignment``: one row per shape with a successful run: the shape columns,
    ``config`` (row of ``configs``), the metric column (the chosen config's value),
    ``best`` (the shape's best value), ``ratio`` and ``loss`` (= ratio - 1).
    ``uncovered``: shape columns, ``reason``, ``config`` (row of ``configs`` or <NA>) and
    ``best``, for shapes that no shared config serves within tol (they got their own
    best config) and shapes without any successful run (they got nothing).
    ``baseline_size``: the table size with one config per shape (the number of distinct
    per-shape best configs).
    """

    configs: pd.DataFrame
    assignment: pd.DataFrame
    uncovered: pd.DataFrame
    method: Literal["exact", "greedy"]
    baseline_size: int
    tol: float = 0.0

    @property
    def size(self) -> int:
        return len(self.configs)


def cover(
    df: pd.DataFrame,
    *,
    shape_cols: Sequence[str],
    param_cols: Sequence[str],
    metric: str,
    lower_is_better: bool,
    tol: float,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
) -> CoverResult:
    """Choose the fewest configs such that every shape has one within ``tol`` of its best.

    ``exact_limit`` is the node budget of the exact search; 0 means greedy only.
    """
    _check_tol(tol, exact_limit)
    shape_cols = list(shape_cols)
    m = measure(df, shape_cols=shape_cols, param_cols=param_cols, metric=metric, lower_is_better=lower_is_better)
    table = m.table
    covering = table[within_tol(table, tol, lower_is_better=lower_is_better).to_numpy()]
    own_best = table.sort_values(["shape", "ratio", "config"], kind="stable").drop_duplicates("shape")
    shared_shapes = _shapes_with_shared_config(covering)
    alone = own_best[~own_best["shape"].isin(shared_shapes)]
    problem = _Problem.build(covering[covering["shape"].isin(shared_shapes)])
    baseline = own_best[own_best["shape"].isin(shared_shapes)]["config"].drop_duplicates().tolist()
    picked, method = problem.solve(baseline=baseline, exact_limit=exact_limit)
    chosen = set(picked) | set(alone["config"].tolist())
    return _assemble(
        m,
        chosen=chosen,
        alone_shapes=alone["shape"].tolist(),
        shape_cols=shape_cols,
        metric=metric,
        method=method,
        baseline_size=int(own_best["config"].nunique()),
        tol=tol,
    )


def _check_tol(tol: float, exact_limit: int) -> None:
    if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not math.isfinite(tol):
        raise AnalysisInputError(f"tolerance must be a finite number, got {tol!r}")
    if tol < 0:
        raise AnalysisInputError(f"tolerance must be >= 0, got {tol}")
    if exact_limit < 0:
        raise AnalysisInputError(f"exact search limit must be >= 0, got {exact_limit}")


def _shapes_with_shared_config(covering: pd.DataFrame) -> set[int]:
    """Shapes that have at least one config within tol that is within tol for another shape too."""
    serves = covering.groupby("config")["shape"].transform("size")
    return set(covering.loc[(serves >= 2).to_numpy(), "shape"].tolist())


def _assemble(
    m: Measured,
    *,
    chosen: set[int],
    alone_shapes: list[int],
    shape_cols: list[str],
    metric: str,
    method: Literal["exact", "greedy"],
    baseline_size: int,
    tol: float,
) -> CoverResult:
    table = m.table
    best_pick = (
        table[table["config"].isin(chosen)]
        .sort_values(["shape", "ratio", "config"], kind="stable")
        .drop_duplicates("shape")
    )
    used = best_pick.sort_values(["shape", "config"])["config"].drop_duplicates().tolist()
    position = {config: i for i, config in enumerate(used)}
    configs = m.configs.loc[used].reset_index(drop=True)
    shapes = m.shapes.loc[best_pick["shape"].to_numpy()].reset_index(drop=True)
    assignment = shapes.assign(
        **{
            CONFIG: best_pick["config"].map(position).to_numpy(),
            metric: best_pick["value"].to_numpy(),
            BEST: best_pick["best"].to_numpy(),
            RATIO: best_pick["ratio"].to_numpy(),
            LOSS: best_pick["ratio"].to_numpy() - 1.0,
        }
    )
    uncovered = _uncovered(m, best_pick, alone_shapes, position, shape_cols)
    return CoverResult(
        configs=configs,
        assignment=assignment,
        uncovered=uncovered,
        method=method,
        baseline_size=baseline_size,
        tol=float(tol),
    )


def _uncovered(
    m: Measured,
    best_pick: pd.DataFrame,
    alone_shapes: list[int],
    position: dict[int, int],
    shape_cols: list[str],
) -> pd.DataFrame:
    measured = set(m.table["shape"].tolist())
    no_run = [s for s in m.shapes.index.tolist() if s not in measured]
    ids = sorted([*alone_shapes, *no_run])
    pick = best_pick.set_index("shape")
    alone = set(alone_shapes)
    out = m.shapes.loc[ids].reset_index(drop=True)
    out[REASON] = [REASON_NOT_SHARED if s in alone else REASON_NO_RUN for s in ids]
    out[CONFIG] = pd.array([position[int(pick.at[s, "config"])] if s in alone else pd.NA for s in ids], dtype="Int64")
    out[BEST] = [float(pick.at[s, "best"]) if s in alone else math.nan for s in ids]
    return out


# --------------------------------------------------------------------------- set cover


class _BudgetExhausted(Exception):
    pass


@dataclass(frozen=True)
class _Problem:
    """A set cover over shapes 0..n-1 with candidate configs 0..k-1 (bit masks).

    ``ids``: the config id of each candidate (increasing, i.e. first appearance order).
    ``masks[j]``: bit mask of the shapes candidate j covers.
    ``ratios``: n x k array, the ratio of candidate j on shape i, inf where it does not cover.
    """

    ids: tuple[int, ...]
    masks: tuple[int, ...]
    ratios: np.ndarray

    @staticmethod
    def build(covering: pd.DataFrame) -> _Problem:
        shapes = sorted(set(covering["shape"].tolist()))
        configs = sorted(set(covering["config"].tolist()))
        row = covering["shape"].map({s: i for i, s in enumerate(shapes)}).to_numpy(dtype="int64")
        col = covering["config"].map({c: j for j, c in enumerate(configs)}).to_numpy(dtype="int64")
        ratios = np.full((len(shapes), len(configs)), np.inf)
        ratios[row, col] = covering["ratio"].to_numpy()
        masks = tuple(sum(1 << int(i) for i in np.flatnonzero(np.isfinite(ratios[:, j]))) for j in range(len(configs)))
        return _Problem(ids=tuple(configs), masks=masks, ratios=ratios)

    @property
    def full(self) -> int:
        return (1 << self.ratios.shape[0]) - 1

    def loss(self, picked: Sequence[int]) -> float:
        """Total loss of a set of candidate indices (each shape takes its lowest ratio)."""
        if not picked:
            return 0.0
        return float((self.ratios[:, list(picked)].min(axis=1) - 1.0).sum())

    def solve(self, *, baseline: list[int], exact_limit: int) -> tuple[list[int], Literal["exact", "greedy"]]:
        """Config ids of the cover, and how it was found. ``baseline``: one config per shape."""
        if self.ratios.shape[0] == 0:
            return [], "exact"
        index = {c: j for j, c in enumerate(self.ids)}
        best = self.greedy()
        base = sorted(index[c] for c in baseline)
        if len(base) < len(best):
            best = base
        search = _Search(self, budget=exact_limit)
        best, proven = search.minimum_size(best)
        if proven:
            best = search.lowest_loss(best)
        return [self.ids[j] for j in sorted(best)], ("exact" if proven else "greedy")

    def greedy(self) -> list[int]:
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
    """Depth-first branch and bound over a ``_Problem``, sharing one node budget."""

    def __init__(self, problem: _Problem, *, budget: int) -> None:
        self.p = problem
        self.budget = budget
        self.nodes = 0
        n = problem.ratios.shape[0]
        self.options = [sum(1 << j for j, m in enumerate(problem.masks) if m >> i & 1) for i in range(n)]

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

        done = self._run(keep, leaf, prune, order=lambda i, opts: sorted(opts, key=lambda j: (-self._gain(j), j)))
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
            if key[0] < best_key[0] - 1e-12 or (key[0] <= best_key[0] + 1e-12 and key[1] < best_key[1]):
                best, best_key = sorted(chosen), key

        def prune(chosen: list[int], bound: int, banned: int) -> bool:
            if len(chosen) + bound > size:
                return True
            # Each shape ends with a ratio no lower than its best among still-allowed configs.
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
            _, shape = min(open_, key=lambda t: (t[0].bit_count(), t[1]))
            for j in order(shape, list(_bits(options[shape] & ~banned))):
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
    """Lower bound on configs still needed: open shapes that share no candidate. None: infeasible."""
    seen, count = 0, 0
    for opts, _ in sorted(open_, key=lambda t: (t[0].bit_count(), t[1])):
        if opts == 0:
            return None
        if not opts & seen:
            count += 1
        seen |= opts
    return count


def _undominated(p: _Problem, *, by_loss: bool) -> int:
    """Bit mask of candidates that no other candidate makes unnecessary.

    Candidate j is dominated by i when i covers every shape j covers (and, ``by_loss``,
    with a ratio no worse on each, strictly better somewhere or equal with i first).
    Dropping dominated candidates keeps some optimal cover for that objective.
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


def _dominates(p: _Problem, i: int, j: int, *, by_loss: bool) -> bool:
    if not by_loss:
        return p.masks[i] != p.masks[j] or i < j
    ri, rj = p.ratios[:, i], p.ratios[:, j]
    if not bool((ri <= rj).all()):
        return False
    return bool((ri < rj).any()) or i < j
