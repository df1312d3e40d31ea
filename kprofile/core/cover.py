"""The smallest dispatch table that keeps every shape within TOL of its own best.

Input: one row per measured (shape, config), prepared by ``kprofile.core.measure``
(failed runs dropped, a (shape, config) measured twice keeps its best measurement).

A config *covers* a shape when it was measured on that shape and its ratio there is
within ``1 + tol`` (ratio convention: 1.0 is the shape's best, worse is above 1.0).
``cover`` then solves a set cover:

1. Shapes whose every config within TOL serves no other shape share no config: they
   get their own best config (at loss 0), and are reported (``unshared``), as are the
   shapes without a successful run, which get nothing.
2. The other shapes are covered by ``kprofile.core.cover_solver`` (HiGHS): the fewest
   configs, proven minimal within ``time_limit`` (``method`` ``"exact"``; otherwise
   ``"time limit"``, with the best table found and a proven ``lower_bound``); then,
   among tables of that size, the lowest total loss in millionths (proven within
   ``loss_time_limit``: ``loss_proven``), then the earliest configs: the lowest sum of
   their first-appearance numbers (configs numbered in input order, counting only
   configs within TOL of some shape that shares a config).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import pandas as pd

from kprofile.core.cover_split import solve_shared, split_shapes
from kprofile.core.defaults import COVER_LOSS_TIME_LIMIT, COVER_TIME_LIMIT
from kprofile.core.measure import Measured, measure
from kprofile.core.metric import Metric
from kprofile.errors import usage_error
from kprofile.progress import SILENT, Progress

if TYPE_CHECKING:
    pass

__all__ = [
    "BEST",
    "CONFIG",
    "DEFAULT_LOSS_TIME_LIMIT",
    "DEFAULT_TIME_LIMIT",
    "LOSS",
    "RATIO",
    "REASON",
    "REASON_NOT_SHARED",
    "REASON_NO_RUN",
    "CoverResult",
    "Method",
    "cover",
]

Method = Literal["exact", "time limit"]

#: Seconds for the whole search, and for the loss search (see ``core.defaults``).
DEFAULT_TIME_LIMIT = COVER_TIME_LIMIT
DEFAULT_LOSS_TIME_LIMIT = COVER_LOSS_TIME_LIMIT

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
    ``unshared``: shape columns, ``reason``, ``config`` (row of ``configs`` or <NA>)
    and ``best``, for shapes that no shared config serves within tol (they got their own
    best config: ``REASON_NOT_SHARED``) and shapes without any successful run (they got
    nothing: ``REASON_NO_RUN``).
    ``method``: ``"exact"`` when no smaller table exists (proven), else
    ``"time limit"``.
    ``lower_bound``: proven: no table within tol has fewer configs (== ``size`` when
    exact). ``loss_proven``: no table of this size has a lower total loss (in whole
    millionths), nor the same loss with earlier configs.
    ``baseline_size``: the table size with one config per shape (the number of distinct
    per-shape best configs).
    """

    configs: pd.DataFrame
    assignment: pd.DataFrame
    unshared: pd.DataFrame
    method: Method
    baseline_size: int
    tol: float = 0.0
    lower_bound: int = 0
    loss_proven: bool = True

    @property
    def size(self) -> int:
        return len(self.configs)

    @property
    def gap(self) -> int:
        """Configs the table may have beyond the smallest (0 when exact)."""
        return self.size - self.lower_bound


def cover(
    df: pd.DataFrame,
    *,
    shape_cols: Sequence[str],
    param_cols: Sequence[str],
    metric: Metric,
    tol: float,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    loss_time_limit: float | None = DEFAULT_LOSS_TIME_LIMIT,
    progress: Progress = SILENT,
) -> CoverResult:
    """The fewest configs such that every shape has one within ``tol`` of its best.

    ``metric``: the column and its direction. ``time_limit``: seconds for the search
    in all (None: no limit); ``loss_time_limit``: at most this many of them for the
    loss once the size is proven (None: the rest).
    """
    _check_limits(tol, time_limit, loss_time_limit)
    with progress("cover: measuring every shape and config"):
        m = measure(df, shape_cols=shape_cols, param_cols=param_cols, metric=metric)
        split = split_shapes(m.table, tol)
    limit = "" if time_limit is None else f" (limit {time_limit:g} s)"
    with progress(f"cover: searching the smallest table{limit}"):
        solution, chosen = solve_shared(
            split, time_limit=time_limit, loss_time_limit=loss_time_limit
        )
    facts = _Facts(
        method="exact" if solution.size_proven else "time limit",
        baseline_size=split.baseline_size,
        tol=float(tol),
        # Each shape left alone needs a config that serves no other shape.
        lower_bound=solution.lower_bound + len(split.alone),
        loss_proven=solution.loss_proven,
    )
    return _assemble(
        m,
        chosen=set(chosen) | set(split.alone["config"].tolist()),
        alone_shapes=split.alone["shape"].tolist(),
        shape_cols=list(shape_cols),
        metric=metric.column,
        facts=facts,
    )


@dataclass(frozen=True)
class _Facts:
    method: Method
    baseline_size: int
    tol: float
    lower_bound: int
    loss_proven: bool


def _check_limits(
    tol: float, time_limit: float | None, loss_time_limit: float | None
) -> None:
    if not _is_number(tol):
        raise usage_error(f"tolerance must be a finite number, got {tol!r}")
    if tol < 0:
        raise usage_error(f"tolerance must be >= 0, got {tol}")
    for name, limit in (
        ("time limit", time_limit),
        ("loss time limit", loss_time_limit),
    ):
        if limit is not None and not (_is_number(limit) and limit >= 0):
            raise usage_error(f"{name} must be a number of seconds >= 0, got {limit!r}")


def _is_number(value: object) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
    )


def _assemble(
    m: Measured,
    *,
    chosen: set[int],
    alone_shapes: list[int],
    shape_cols: list[str],
    metric: str,
    facts: _Facts,
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
    unshared = _unshared(m, best_pick, alone_shapes, position, shape_cols)
    return CoverResult(
        configs=configs,
        assignment=assignment,
        unshared=unshared,
        method=facts.method,
        baseline_size=facts.baseline_size,
        tol=facts.tol,
        lower_bound=min(facts.lower_bound, len(configs)),
        loss_proven=facts.loss_proven,
    )


def _unshared(
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
    config = dict(zip(pick.index.tolist(), pick["config"].tolist()))
    best = dict(zip(pick.index.tolist(), pick["best"].tolist()))
    alone = set(alone_shapes)
    out = m.shapes.loc[ids].reset_index(drop=True)
    out[REASON] = [REASON_NOT_SHARED if s in alone else REASON_NO_RUN for s in ids]
    out[CONFIG] = pd.array(
        [position[config[s]] if s in alone else pd.NA for s in ids], dtype="Int64"
    )
    out[BEST] = [float(best[s]) if s in alone else math.nan for s in ids]
    return out
