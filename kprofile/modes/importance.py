"""Which tuning parameters matter: the best ratio still reachable with one parameter fixed.

For a parameter P, a value v and a shape s, the *reachable ratio* is the lowest ratio
(1.0 = the shape's best) among the configs measured on s that have P = v. Over shapes it
is summarized two ways: ``worst`` (the maximum over the shapes where v was measured) and
``geomean`` (their geometric mean). ``shapes`` counts the shapes where v was measured with
a successful run; no number is invented for the others.

Ranking: a parameter's ``cost`` is the ``worst`` of its worst value, i.e. how much fixing
the parameter to a bad value can cost on some shape. Parameters are ranked by ``cost``
(descending), ties by the worst value's ``geomean``, then by input order.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from kprofile.core.measure import AnalysisInputError, measure

if TYPE_CHECKING:  # matplotlib is imported only when a chart is drawn
    from matplotlib.figure import Figure

__all__ = [
    "AnalysisInputError",
    "ImportanceResult",
    "ParamImportance",
    "ValueReach",
    "importance",
    "plot_importance",
]

TABLE_COLUMNS = (
    "rank",
    "param",
    "cost",
    "value",
    "worst",
    "geomean",
    "shapes",
    "shapes_total",
)


@dataclass(frozen=True)
class ValueReach:
    """One value of one parameter: best ratio reachable with the parameter fixed to it."""

    value: object
    worst: float  # max over measured shapes; NaN when measured on none
    geomean: float  # geometric mean over measured shapes; NaN when measured on none
    shapes: int  # shapes where this value has a successful run


@dataclass(frozen=True)
class ParamImportance:
    """A parameter, its values in natural order, and what a bad choice costs."""

    param: str
    rank: int  # 1 = matters most
    cost: float  # worst ``worst`` over the values
    best_value: object  # the value whose ``worst`` is lowest (ties: geomean, order)
    values: tuple[ValueReach, ...]


@dataclass(frozen=True, eq=False)
class ImportanceResult:
    """Parameters ranked by ``cost``; ``table`` is the same data, one row per (param, value)."""

    params: tuple[ParamImportance, ...]
    shapes_total: int
    table: pd.DataFrame
    ranked_by: Literal["worst"] = "worst"


def importance(
    df: pd.DataFrame,
    *,
    shape_cols: Sequence[str],
    param_cols: Sequence[str],
    metric: str,
    lower_is_better: bool,
) -> ImportanceResult:
    """Rank ``param_cols`` by how much fixing each to its worst value can cost."""
    m = measure(
        df,
        shape_cols=shape_cols,
        param_cols=param_cols,
        metric=metric,
        lower_is_better=lower_is_better,
    )
    shapes_total = int(m.table["shape"].nunique())
    unranked = [_param(m.table, m.configs[p], p) for p in param_cols]
    order = sorted(range(len(unranked)), key=lambda i: _rank_key(unranked[i], i))
    params = tuple(
        ParamImportance(p.param, rank, p.cost, p.best_value, p.values)
        for rank, p in enumerate((unranked[i] for i in order), start=1)
    )
    return ImportanceResult(
        params=params, shapes_total=shapes_total, table=_table(params, shapes_total)
    )


def _param(table: pd.DataFrame, column: pd.Series, name: str) -> ParamImportance:
    """Reachable ratios for every value of one parameter (``column``: config id -> value)."""
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
    values = [
        ValueReach(
            value=_plain(uniques[code]),
            worst=float(stats.at[code, "worst"]),
            geomean=float(stats.at[code, "geomean"]),
            shapes=int(
                0 if pd.isna(stats.at[code, "shapes"]) else stats.at[code, "shapes"]
            ),
        )
        for code in sorted(range(len(uniques)), key=lambda c: _natural_key(uniques[c]))
    ]
    measured = [v for v in values if v.shapes]
    cost = max(v.worst for v in measured)
    best = min(measured, key=lambda v: (v.worst, v.geomean))
    return ParamImportance(
        param=name, rank=0, cost=cost, best_value=best.value, values=tuple(values)
    )


def _rank_key(p: ParamImportance, position: int) -> tuple[float, float, int]:
    worst_geomean = max(v.geomean for v in p.values if v.worst == p.cost)
    return (-p.cost, -worst_geomean, position)


def _table(params: tuple[ParamImportance, ...], shapes_total: int) -> pd.DataFrame:
    rows = [
        (p.rank, p.param, p.cost, v.value, v.worst, v.geomean, v.shapes, shapes_total)
        for p in params
        for v in p.values
    ]
    out = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
    out["value"] = out["value"].astype(object)
    return out


def _plain(value: object) -> object:
    """numpy scalars as Python scalars; every missing value as None."""
    if (
        value is None
        or (isinstance(value, float) and math.isnan(value))
        or value is pd.NA
        or value is pd.NaT
    ):
        return None
    if isinstance(value, np.generic):
        return _plain(value.item())
    return value


def _natural_key(value: object) -> tuple[int, float, str]:
    """Numbers (and booleans) numerically, then strings, then other types, missing last."""
    value = _plain(value)
    if value is None:
        return (3, 0.0, "")
    if isinstance(value, (bool, int, float)):
        return (0, float(value), "")
    if isinstance(value, str):
        return (1, 0.0, value)
    return (2, 0.0, repr(value))


def value_label(value: object) -> str:
    """How a parameter value is shown in tables and charts."""
    value = _plain(value)
    return "NaN" if value is None else str(value)


# --------------------------------------------------------------------------- plots


def plot_importance(result: ImportanceResult, out_dir: str | Path) -> list[Path]:
    """Write PNG charts into ``out_dir`` (created if missing); return their paths.

    ``importance.png``: every parameter's cost, ranked. ``importance-<param>.png``: per
    value of that parameter, the worst and geometric-mean reachable ratio, labelled with
    the number of shapes it was measured on.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "importance.png"]
    _save(_overview_figure(result), paths[0])
    for p, name in zip(result.params, _file_names([p.param for p in result.params])):
        paths.append(out / name)
        _save(_param_figure(p, result.shapes_total), paths[-1])
    return paths


def _file_names(params: list[str]) -> list[str]:
    names: list[str] = []
    for param in params:
        stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", param).strip("._") or "param"
        name, n = f"importance-{stem}.png", 2
        while name in names or name == "importance.png":
            name, n = f"importance-{stem}-{n}.png", n + 1
        names.append(name)
    return names


def _save(figure: Figure, path: Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(figure)  # the Agg canvas, without touching pyplot's global backend
    figure.savefig(path, format="png", dpi=100, metadata={"Software": None})


def _overview_figure(result: ImportanceResult) -> Figure:
    from matplotlib.figure import Figure

    names = [p.param for p in result.params][::-1]
    costs = [p.cost for p in result.params][::-1]
    figure = Figure(figsize=(7, 1.2 + 0.45 * len(names)), layout="constrained")
    ax = figure.add_subplot()
    ax.barh(names, [c - 1.0 for c in costs], left=1.0, color="tab:red")
    for y, c in enumerate(costs):
        ax.annotate(
            f"{c:.3f}",
            (c, y),
            xytext=(3, 0),
            textcoords="offset points",
            va="center",
            fontsize=8,
        )
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xlabel(
        "worst reachable ratio with the parameter at its worst value (1.0 = best)"
    )
    ax.set_title(f"Which parameters matter ({result.shapes_total} shapes)")
    ax.margins(x=0.15)
    return figure


def _param_figure(p: ParamImportance, shapes_total: int) -> Figure:
    from matplotlib.figure import Figure

    labels = [value_label(v.value) for v in p.values]
    x = np.arange(len(labels))
    figure = Figure(
        figsize=(max(5.0, 1.0 + 0.6 * len(labels)), 4), layout="constrained"
    )
    ax = figure.add_subplot()
    worst = [v.worst - 1.0 if v.shapes else 0.0 for v in p.values]
    geo = [v.geomean - 1.0 if v.shapes else 0.0 for v in p.values]
    ax.bar(
        x - 0.2,
        geo,
        0.4,
        bottom=1.0,
        label="geometric mean over shapes",
        color="tab:blue",
    )
    ax.bar(x + 0.2, worst, 0.4, bottom=1.0, label="worst shape", color="tab:red")
    for xi, v in zip(x, p.values):
        top = v.worst if v.shapes else 1.0
        ax.annotate(
            f"{v.shapes}/{shapes_total}",
            (xi, top),
            xytext=(0, 3),
            textcoords="offset points",
            ha="center",
            fontsize=8,
        )
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(x, labels, rotation=45 if len(labels) > 8 else 0)
    ax.set_xlabel(f"{p.param} (labels: shapes measured)")
    ax.set_ylabel("best reachable ratio (1.0 = best)")
    ax.set_title(f"#{p.rank} {p.param}: a bad choice costs up to {p.cost:.3f}x")
    figure.legend(loc="outside lower center", ncols=2, fontsize=8)
    ax.margins(y=0.15)
    return figure
