"""The smallest dispatch table that keeps every shape within TOL of its own best.

Input: one row per measured (shape, config), prepared by ``kprofile.core.measure`` (failed
runs dropped, a (shape, config) measured twice keeps its best measurement).

A config *covers* a shape when it was measured on that shape and its ratio there is
within ``1 + tol`` (ratio convention: 1.0 is the shape's best, worse is above 1.0).
``cover`` then solves a set cover:

1. Shapes whose every config within TOL serves no other shape are *uncovered*: no
   shared config can serve them, so they get their own best config, and are reported.
2. The other shapes are covered with as few configs as possible by
   ``kprofile.core.setcover``: an exact search within ``exact_limit`` nodes, seeded with the
   greedy answer or one config per shape; among covers of the minimal size the lowest
   total loss wins (ties: first appearance). If the search cannot prove the size
   minimal within the budget, ``method`` is ``"greedy"``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from kprofile.core.measure import AnalysisInputError, Measured, measure, within_tol
from kprofile.core.setcover import Method, Problem

__all__ = [
    "BEST",
    "CONFIG",
    "DEFAULT_EXACT_LIMIT",
    "LOSS",
    "RATIO",
    "REASON",
    "REASON_NOT_SHARED",
    "REASON_NO_RUN",
    "AnalysisInputError",
    "CoverResult",
    "cover",
]

#: Default number of search nodes the exact search may visit (both phases together).
DEFAULT_EXACT_LIMIT = 200_000

# Column names of the tables this module returns.
CONFIG = "config"
BEST = "best"
RATIO = "ratio"
LOSS = "loss"
REASON = "reason"

REASON_NO_RUN = "no successful run"
REASON_NOT_SHARED = (
    "needs a config of its own: no config within tol serves another shape"
)


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
    method: Method
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
    m = measure(
        df,
        shape_cols=shape_cols,
        param_cols=param_cols,
        metric=metric,
        lower_is_better=lower_is_better,
    )
    table = m.table
    covering = table[within_tol(table, tol, lower_is_better=lower_is_better).to_numpy()]
    own_best = table.sort_values(
        ["shape", "ratio", "config"], kind="stable"
    ).drop_duplicates("shape")
    shared_shapes = _shapes_with_shared_config(covering)
    alone = own_best[~own_best["shape"].isin(shared_shapes)]
    problem = _problem(covering[covering["shape"].isin(shared_shapes)])
    baseline = (
        own_best[own_best["shape"].isin(shared_shapes)]["config"]
        .drop_duplicates()
        .tolist()
    )
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
    if (
        isinstance(tol, bool)
        or not isinstance(tol, (int, float))
        or not math.isfinite(tol)
    ):
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
    method: Method,
    baseline_size: int,
    tol: float,
) -> CoverResult:
    table = m.table
    best_pick = (
        table[table["config"].isin(chosen)]
        .sort_values(["shape", "ratio", "config"], kind="stable")
        .drop_duplicates("shape")
    )
    used = (
        best_pick.sort_values(["shape", "config"])["config"].drop_duplicates().tolist()
    )
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
    out[CONFIG] = pd.array(
        [position[int(pick.at[s, "config"])] if s in alone else pd.NA for s in ids],
        dtype="Int64",
    )
    out[BEST] = [float(pick.at[s, "best"]) if s in alone else math.nan for s in ids]
    return out


def _problem(covering: pd.DataFrame) -> Problem:
    """The set cover of ``covering`` (rows within tol): shapes are rows, configs candidates in id order."""
    shapes = sorted(set(covering["shape"].tolist()))
    configs = sorted(set(covering["config"].tolist()))
    row = (
        covering["shape"]
        .map({s: i for i, s in enumerate(shapes)})
        .to_numpy(dtype="int64")
    )
    col = (
        covering["config"]
        .map({c: j for j, c in enumerate(configs)})
        .to_numpy(dtype="int64")
    )
    ratios = np.full((len(shapes), len(configs)), np.inf)
    ratios[row, col] = covering["ratio"].to_numpy()
    return Problem.from_ratios(configs, ratios)
