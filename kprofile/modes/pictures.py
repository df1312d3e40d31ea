"""The pictures of the runs themselves, shape by shape: what the per-file views, ``-d``
and ``--combine`` draw with ``--plot`` and ``--report``.

Per shape (``kprofile.core.columns.shape_keys``, through ``core.runtable``): its best
configs run by run (``top``), how its configs spread from the best (``landscape``,
several shapes a chart) and a heatmap of two parameters (``--heatmap P1,P2``, else
the two ``--importance`` ranks first); across two runs of the same shapes, each
config's metric in one against the other (``runs``). At most ``MOST_SHAPES`` shapes
are drawn one by one, the first ones; a note says so.

Each function returns ``Picture`` records whose ``draw`` makes the figure when asked:
the data is made here, from the mode's inputs and results, and drawn by
``kprofile.render.charts``. The top level stays light: the mode table imports it.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from kprofile.core.columns import input_labels
from kprofile.errors import column_list, usage_error
from kprofile.modes.request import Data
from kprofile.render.section import Picture

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from kprofile.core.metric import Metric
    from kprofile.core.runs import CombinedRuns
    from kprofile.core.runtable import RunTable
    from kprofile.render.charts.bars import TopConfigs
    from kprofile.render.charts.landscape import Cells
    from kprofile.render.charts.scatter import Pairs, Spreads

MOST_SHAPES = 24  # shapes drawn one by one
TOP = 10  # configs in a shape's bars


def run_table(data: Data) -> RunTable:
    """The inputs' runs per (shape, config), each run named by its file."""
    from kprofile.core.runtable import run_table as make  # start-up: --plot, --report

    return make(data.inputs, data.pivots, data.metric, input_labels(data.inputs))


def shape_pictures(data: Data) -> tuple[tuple[Picture, ...], tuple[str, ...]]:
    """Per shape: top configs, the landscape, the heatmap; the runs against each
    other. And a note when some shapes are left out."""
    assert data.charts is not None  # asked for
    table = run_table(data)
    shapes = range(min(len(table.shapes), MOST_SHAPES))
    pair = heatmap_pair(table, data.charts.heatmap)
    out: list[Picture] = []
    for s in shapes:
        label = table.shape_label(s)
        title = f"Which configs are best at {label}?"
        out.append(Picture(f"top-{label}", title, label, partial(_top, table, s)))
        if pair is not None:
            title = f"Which {pair[0]} x {pair[1]} is best at {label}?"
            name = f"heatmap-{pair[0]}-{pair[1]}-{label}"
            out.append(Picture(name, title, label, partial(_heatmap, table, s, pair)))
    out += landscape_pictures(table, shapes)
    out += runs_pictures(table)
    notes: tuple[str, ...] = ()
    if len(table.shapes) > MOST_SHAPES:
        notes = (
            f"--plot/--report: drew the per-shape charts of the first {MOST_SHAPES} "
            f"of {len(table.shapes):,} shapes; --query picks others",
        )
    return tuple(out), notes


def _top(table: RunTable, s: int) -> Figure:
    from kprofile.render.charts.bars import top_configs_figure  # start-up: charts

    return top_configs_figure(top_configs(table, s))


def top_configs(table: RunTable, s: int, count: int = TOP) -> TopConfigs:
    """Shape ``s``'s best ``count`` configs by its first run (then by the others),
    each run's value, and the configs no run ran."""
    from kprofile.render.charts.bars import TopConfigs  # start-up: charts

    part = table.rows(s)
    slots = table.slots(s)
    ids = np.unique(table.config[part])
    values = np.full((len(slots), len(ids)), np.nan)
    missing = np.full((len(slots), len(ids)), "not run", dtype=object)
    row = np.searchsorted(slots, table.run[part])
    column = np.searchsorted(ids, table.config[part])
    values[row, column] = table.value[part]
    missing[row, column] = table.failure[part]
    key = -values if table.metric.higher_is_better else values
    order = np.lexsort(tuple(key[::-1]))  # the first run's value first
    ran = np.isfinite(values).any(axis=0)[order]
    chosen = order[ran][:count]
    failed = _failed_everywhere(missing[:, order[~ran]])
    return TopConfigs(
        table.shape_label(s),
        tuple(table.config_labels(ids[chosen])),
        values[:, chosen],
        tuple(tuple(str(m) for m in r) for r in missing[:, chosen]),
        tuple(table.runs[r] for r in slots),
        table.metric.column,
        table.metric.higher_is_better,
        failed,
    )


def _failed_everywhere(missing: np.ndarray) -> str:
    """``5 configs failed in every run (execution 4, timeout 1)``; empty: none."""
    if not missing.shape[1]:
        return ""
    kinds, counts = np.unique(missing[0].astype(str), return_counts=True)
    shown = ", ".join(f"{k} {c}" for k, c in zip(kinds.tolist(), counts.tolist()))
    many = "s" if missing.shape[1] != 1 else ""
    return f"{missing.shape[1]} config{many} failed in every run ({shown})"


def landscape_pictures(table: RunTable, shapes: range) -> list[Picture]:
    """How each shape's configs spread from its best, a few shapes a chart."""
    from kprofile.render.charts.landscape import (  # start-up: charts
        Landscape,
        distribution_figure,
        distribution_pieces,
    )

    items = []
    for s in shapes:
        _, _, ratio = table.pooled(s)
        ran = ratio[np.isfinite(ratio)]
        items.append(Landscape(table.shape_label(s), ran, len(ratio) - len(ran)))
    title = "How flat is each shape's landscape?"
    pieces = distribution_pieces(len(items)) if items else []
    count = len(pieces)
    return [
        Picture(f"landscape-{i + 1}", title, "",
                partial(distribution_figure, items, piece, (i, count)))
        for i, piece in enumerate(pieces)
    ]  # fmt: skip


def heatmap_pair(
    table: RunTable, given: tuple[str, str] | None
) -> tuple[str, str] | None:
    """``--heatmap``'s pair, checked; else the two tuning parameters
    ``--importance`` ranks first (None: fewer than two vary)."""
    params = [str(c) for c in table.configs.columns]
    if given is not None:
        unknown = [p for p in given if p not in params]
        if unknown:
            raise usage_error(
                f"--heatmap: no tuning parameter {unknown[0]!r}; "
                f"{column_list(params, 'tuning parameters')}"
            )
        return given
    varying = [p for p in params if table.configs[p].nunique(dropna=False) > 1]
    if len(varying) < 2:
        return None
    ranked = _ranked(table, varying)
    return ranked[0], ranked[1]


def _ranked(table: RunTable, params: list[str]) -> list[str]:
    """``params`` in the order ``--importance`` ranks them on the pooled runs."""
    from kprofile.core.importance import importance  # start-up: the heatmap only

    frame = table.configs.iloc[table.config].reset_index(drop=True)
    frame["(shape)"] = table.shape
    frame[table.metric.column] = table.value
    found = importance(
        frame, shape_cols=["(shape)"], param_cols=params, metric=table.metric
    )
    return [p.param for p in found.params]


def _heatmap(table: RunTable, s: int, pair: tuple[str, str]) -> Figure:
    from kprofile.render.charts.landscape import heatmap_figure  # start-up: charts

    return heatmap_figure(cells(table, s, pair))


def cells(table: RunTable, s: int, pair: tuple[str, str]) -> Cells:
    """Shape ``s``'s grid of ``pair``: each cell's best ratio, and whether its runs
    all failed."""
    from kprofile.render.charts.landscape import Cells  # start-up: charts

    ids, _, ratio = table.pooled(s)
    x = table.configs[pair[0]].iloc[ids].to_numpy(dtype=object)
    y = table.configs[pair[1]].iloc[ids].to_numpy(dtype=object)
    xs, ys = _ordered(x), _ordered(y)
    frame = pd.DataFrame({"x": _index(x, xs), "y": _index(y, ys), "ratio": ratio})
    best = frame.groupby(["y", "x"])["ratio"].min()
    grid = np.full((len(ys), len(xs)), np.nan)
    present = np.zeros_like(grid, dtype=bool)
    at = best.index.to_frame().to_numpy(dtype=np.int64)
    grid[at[:, 0], at[:, 1]] = best.to_numpy()
    present[at[:, 0], at[:, 1]] = True
    failed = present & ~np.isfinite(grid)
    label = table.shape_label(s)
    names = (tuple(_text(v) for v in xs), tuple(_text(v) for v in ys))
    return Cells(label, pair[0], pair[1], *names, grid, failed)


def _ordered(values: np.ndarray) -> list[object]:
    """The distinct values, numbers first in order, then the rest by their text."""
    distinct = list(dict.fromkeys(values.tolist()))
    numbers = sorted(v for v in distinct if isinstance(v, int | float)
                     and not isinstance(v, bool))  # fmt: skip
    rest = sorted((v for v in distinct if v not in numbers), key=_text)
    return [*numbers, *rest]


def _index(values: np.ndarray, ordered: list[object]) -> np.ndarray:
    where = {_text(v): i for i, v in enumerate(ordered)}
    return np.array([where[_text(v)] for v in values.tolist()], dtype=np.int64)


def _text(value: object) -> str:
    from kprofile.core.values import value_label  # start-up: charts

    return value_label(value)


def runs_pictures(table: RunTable) -> list[Picture]:
    """Each config's metric in a shape's first run against its second, when shapes
    were run twice."""
    found = pairs(table)
    if found is None:
        return []
    title = f"Did each config keep its speed from {found.runs[0]} to {found.runs[1]}?"
    return [Picture("runs", title, "", partial(_pairs_figure, found))]


def _pairs_figure(found: Pairs) -> Figure:
    from kprofile.render.charts.scatter import pairs_figure  # start-up: charts

    return pairs_figure(found)


def pairs(table: RunTable) -> Pairs | None:
    """Per (shape, config): its value in the shape's first and second run (None:
    no shape was run twice); the median spread of the pairs that ran in both."""
    from kprofile.render.charts.scatter import Pairs  # start-up: charts

    first, second = _slot_values(table, 0), _slot_values(table, 1)
    both = first.index.intersection(second.index)
    if not len(both):
        return None
    a, b = first.loc[both].to_numpy(), second.loc[both].to_numpy()
    ran = np.isfinite(a) & np.isfinite(b)
    spread = np.maximum(a, b)[ran] / np.minimum(a, b)[ran]
    shapes = both.get_level_values(0).to_numpy(dtype=np.int64)
    labels = tuple(table.shape_label(s) for s in range(len(table.shapes)))
    names = (table.runs[int(table.slots(shapes[0])[0])],
             table.runs[int(table.slots(shapes[0])[1])])  # fmt: skip
    middle = float(np.median(spread)) if spread.size else 1.0
    return Pairs(a, b, shapes, labels, names, table.metric.column, middle)


def _slot_values(table: RunTable, slot: int) -> pd.Series:
    """Each (shape, config)'s value in the shape's ``slot``-th run."""
    rank = pd.Series(table.run).groupby(table.shape).rank(method="dense") - 1
    mine = rank.to_numpy() == slot
    index = pd.MultiIndex.from_arrays([table.shape[mine], table.config[mine]])
    return pd.Series(table.value[mine], index=index)


def combine_pictures(runs: CombinedRuns, metric: Metric) -> list[Picture]:
    """``--combine``: each config's metric in the first run against the second, and
    how far apart the runs of one config come out."""
    from kprofile.core.runtable import run_table as make  # start-up: --plot only
    from kprofile.render.charts.scatter import Spreads  # start-up: charts

    table = make(runs.files, runs.shape_cols, metric, input_labels(runs.files))
    repeats = runs.repeats
    spread = repeats.spread[repeats.runs >= 2]
    data = Spreads(np.asarray(spread, dtype=np.float64), str(repeats.how))
    title = "How far apart do repeated runs of one config come out?"
    return [
        *runs_pictures(table),
        Picture("spread", title, "", partial(_spreads, data)),
    ]


def _spreads(data: Spreads) -> Figure:
    from kprofile.render.charts.scatter import spreads_figure  # start-up: charts

    return spreads_figure(data)
