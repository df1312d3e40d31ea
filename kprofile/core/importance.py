"""Which tuning parameters matter: the best ratio still reachable with one parameter
fixed.

For a parameter P, a value v and a shape s, the *reachable ratio* is the lowest ratio
(1.0 = the shape's best) among the configs measured on s that have P = v. Over shapes it
is summarized two ways: ``worst`` (the maximum over the shapes where v was measured) and
``geomean`` (their geometric mean). ``shapes`` counts the shapes where v was measured
with a successful run; no number is invented for the others. ``fails`` counts the
shapes where every run with P = v failed (kbench's record of failures, or a run
without a valid measurement) and another config ran: the value fails there, so it is
never the best value. A shape where nothing ran counts for no value.

Ranking: a parameter's ``cost`` is the ``worst`` of its worst value, i.e. how much
fixing the parameter to a bad value can cost on some shape. Parameters are ranked by
``cost`` (descending), ties by the worst value's ``geomean``, then by input order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from kprofile.core.measure import Measured, measure
from kprofile.core.metric import Metric
from kprofile.core.values import entries, plain, shape_label
from kprofile.progress import SILENT, Progress

__all__ = [
    "ImportanceResult",
    "ParamImportance",
    "ValueReach",
    "importance",
]

TABLE_COLUMNS = (
    "rank",
    "param",
    "cost",
    "value",
    "worst",
    "worst shape",
    "geomean",
    "shapes",
    "shapes_total",
    "fails",
)


@dataclass(frozen=True)
class ValueReach:
    """One value of one parameter: the best ratio reachable with the parameter fixed
    to it."""

    value: object
    worst: float  # max over measured shapes; NaN when measured on none
    geomean: float  # geometric mean over measured shapes; NaN when measured on none
    shapes: int  # shapes where this value has a successful run
    worst_shape: str = ""  # where ``worst`` is reached (the first); "" at 1.0
    fails: int = 0  # shapes where every run with this value failed


@dataclass(frozen=True)
class ParamImportance:
    """A parameter, its values in natural order, and what a bad choice costs."""

    param: str
    rank: int  # 1 = matters most
    cost: float  # worst ``worst`` over the values
    best_value: object  # the lowest ``worst`` (ties: geomean, order) of the values
    # that fail at no shape; None when every value fails somewhere
    values: tuple[ValueReach, ...]

    @property
    def worst(self) -> ValueReach:
        """The value whose reachable ratio on its worst shape is the cost (the first
        in natural order)."""
        return next(v for v in self.values if v.shapes and v.worst == self.cost)


@dataclass(frozen=True, eq=False)
class ImportanceResult:
    """Parameters ranked by ``cost``; ``table`` is the same data, one row per (param,
    value)."""

    params: tuple[ParamImportance, ...]
    shapes_total: int
    table: pd.DataFrame
    ranked_by: Literal["worst"] = "worst"


def importance(
    df: pd.DataFrame,
    *,
    shape_cols: Sequence[str],
    param_cols: Sequence[str],
    metric: Metric,
    progress: Progress = SILENT,
) -> ImportanceResult:
    """Rank ``param_cols`` by how much fixing each to its worst value can cost."""
    with progress("importance: measuring every shape and config"):
        m = measure(df, shape_cols=shape_cols, param_cols=param_cols, metric=metric)
    shapes_total = int(m.table["shape"].nunique())
    labels = [shape_label(s) or "all rows" for s in entries(m.shapes)]
    unranked = []
    with progress("importance: parameters", len(param_cols)) as advance:
        for p in param_cols:
            unranked.append(_param(m, m.configs[p], p, labels))
            advance(1)
    order = sorted(range(len(unranked)), key=lambda i: _rank_key(unranked[i], i))
    params = tuple(
        ParamImportance(p.param, rank, p.cost, p.best_value, p.values)
        for rank, p in enumerate((unranked[i] for i in order), start=1)
    )
    return ImportanceResult(
        params=params, shapes_total=shapes_total, table=_table(params, shapes_total)
    )


def _param(
    m: Measured, column: pd.Series, name: str, labels: Sequence[str]
) -> ParamImportance:
    """Reachable ratios for every value of one parameter (``column``: config id ->
    value); ``labels`` names each shape id."""
    table = m.table
    codes, uniques = pd.factorize(column, use_na_sentinel=False)
    code_of_config = pd.Series(codes, index=column.index)
    per_shape = (
        table.assign(code=code_of_config.reindex(table["config"]).to_numpy())
        .groupby(["code", "shape"])["ratio"]
        .min()
    )
    logs = np.log(per_shape)
    stats = pd.DataFrame(
        {
            "worst": per_shape.groupby(level="code").max(),
            "geomean": np.exp(logs.groupby(level="code").mean()),
            "shapes": per_shape.groupby(level="code").size(),
        }
    ).reindex(range(len(uniques)))
    fails = _fails(m.failed, code_of_config, per_shape.index, len(uniques))
    worst = stats["worst"].to_numpy(dtype=np.float64)
    geomean = stats["geomean"].to_numpy(dtype=np.float64)
    shapes = stats["shapes"].fillna(0).to_numpy(dtype=np.int64)
    # Where each value is worst (the first such shape); none where it is the best
    # on every shape it ran on.
    worst_at = {
        c: labels[s]
        for c, s in per_shape.groupby(level="code").idxmax()
        if worst[c] > 1.0
    }
    order = sorted(range(len(uniques)), key=lambda c: _natural_key(uniques[c]))
    values = [
        ValueReach(
            plain(uniques[c]),
            float(worst[c]),
            float(geomean[c]),
            int(shapes[c]),
            worst_at.get(c, ""),
            int(fails[c]),
        )
        for c in order
    ]
    return _ranked_values(name, values)


def _ranked_values(name: str, values: Sequence[ValueReach]) -> ParamImportance:
    """The cost of a parameter (its worst measured value's ``worst``) and its best
    value, the lowest ``worst`` of those that fail at no shape (None: all do)."""
    measured = [v for v in values if v.shapes]
    cost = max(v.worst for v in measured)
    never_fails = [v for v in measured if not v.fails]
    best = min(never_fails, key=lambda v: (v.worst, v.geomean), default=None)
    return ParamImportance(
        param=name,
        rank=0,
        cost=cost,
        best_value=None if best is None else best.value,
        values=tuple(values),
    )


def _fails(
    failed: pd.DataFrame, code_of_config: pd.Series, ran: pd.Index, count: int
) -> np.ndarray:
    """For each of ``count`` value codes, the shapes where it has failed runs and no
    successful one while another value ran (``ran``: the (code, shape) pairs that
    ran)."""
    pairs = pd.DataFrame(
        {
            "code": code_of_config.reindex(failed["config"]).to_numpy(),
            "shape": failed["shape"].to_numpy(),
        }
    ).drop_duplicates()
    only = pairs[~pd.MultiIndex.from_frame(pairs).isin(ran)]
    # a shape where nothing ran rules out no value: every value tried there failed
    only = only[only["shape"].isin(ran.get_level_values("shape"))]
    return np.bincount(only["code"].to_numpy(dtype=np.int64), minlength=count)


def _rank_key(p: ParamImportance, position: int) -> tuple[float, float, int]:
    worst_geomean = max(v.geomean for v in p.values if v.worst == p.cost)
    return (-p.cost, -worst_geomean, position)


def _table(params: tuple[ParamImportance, ...], shapes_total: int) -> pd.DataFrame:
    rows = [
        (p.rank, p.param, p.cost, v.value, v.worst, v.worst_shape or None, v.geomean,
         v.shapes, shapes_total, v.fails)
        for p in params
        for v in p.values
    ]  # fmt: skip
    out = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
    out["value"] = out["value"].astype(object)
    return out


def _natural_key(value: object) -> tuple[int, int | float, str]:
    """Numbers (and booleans) numerically, then strings, then other types, missing
    last. Numbers as themselves: Python orders an int of any size against a float
    exactly, where ``float()`` would overflow or round."""
    value = plain(value)
    if value is None:
        return (3, 0, "")
    if isinstance(value, (bool, int, float)):
        return (0, value, "")
    if isinstance(value, str):
        return (1, 0, value)
    return (2, 0, repr(value))
