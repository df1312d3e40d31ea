"""The pictures of the modes that judge or choose a table, and of those that rank
parameters: ``--score``, ``--cover`` and ``--budget`` (each shape's ratio to its best
under the table, the gate's line), ``--ranges`` (each group along its range column),
``-d`` (kplot's grouped bars of each shape's best, and its ratio mode), the
per-shape view (each shape's runner-up ratio),
``--importance`` and ``-c``.

Each function turns a mode's result into ``Picture`` records, drawn by
``kprofile.render.charts`` when ``--plot`` or ``--report`` asks. The top level stays
light: the mode table imports it through the mode modules.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from kprofile.core.metric import Metric
from kprofile.modes.pictures import MOST_SHAPES
from kprofile.render.section import Picture

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from kprofile.core.correlation import Correlation
    from kprofile.core.importance import ImportanceResult
    from kprofile.core.ranges import RangesResult
    from kprofile.render.charts.bars import Grouped
    from kprofile.render.charts.tables import RangePoints, ShapeRatios


def shape_ratios_pictures(
    title: str, shapes: pd.DataFrame, ratio: np.ndarray, status: Sequence[str],
    gate: float | None = None,
) -> list[Picture]:  # fmt: skip
    """Each shape's ratio under a table, sorted, with the gate's line. ``shapes``:
    the shape columns, one row per shape."""
    from kprofile.core.values import entries, shape_label  # start-up: charts
    from kprofile.render.charts.tables import ShapeRatios  # start-up: charts

    labels = tuple(shape_label(e) or "all rows" for e in entries(shapes))
    data = ShapeRatios(title, labels, np.asarray(ratio, dtype=np.float64),
                       tuple(status), gate)  # fmt: skip
    return [Picture("shapes-ratio", title, "", partial(_ratios, data))]


def _ratios(data: ShapeRatios) -> Figure:
    from kprofile.render.charts.tables import shape_ratios_figure  # start-up: charts

    return shape_ratios_figure(data)


def ranges_pictures(result: RangesResult) -> list[Picture]:
    """Per group, its points along the range column and the ranges' configs."""
    from kprofile.core.values import entries, shape_label  # start-up: charts
    from kprofile.render.charts.tables import RangePoints  # start-up: charts

    out = []
    for item in result.groups:
        group, ranges = item.group, item.ranges
        ids = group.configs[ranges.configs]
        configs = [shape_label(e) for e in entries(result.sweep.configs.loc[ids])]
        ratio = np.where(np.isfinite(ranges.ratios), ranges.ratios, np.nan)
        label = shape_label(group.values) or "all rows"
        data = RangePoints(
            label, result.column, tuple(str(p) for p in group.points.tolist()),
            ratio, tuple(int(s) for s in ranges.starts), tuple(configs), result.tol,
        )  # fmt: skip
        title = f"Where do the {result.column} ranges of {label} split?"
        out.append(Picture(f"ranges-{label}", title, label, partial(_ranges, data)))
    return out


def _ranges(data: RangePoints) -> Figure:
    from kprofile.render.charts.tables import ranges_figure  # start-up: charts

    return ranges_figure(data)


def diff_pictures(rows: pd.DataFrame, metric: Metric) -> list[Picture]:
    """``-d``'s rows (one per shape and file, the baseline first) as kplot's grouped
    bars: each file's best per shape, and its ratio to the baseline's, for the
    shapes a later run measured (a shape only one run has is compared with nothing).
    A run without the shape is ``not run``; one where every config failed,
    ``failed``."""
    from kprofile.render.charts.bars import Grouped  # start-up: charts

    baseline = rows["file"].str.endswith(" (baseline)").to_numpy()
    named = rows.assign(file=[f.removesuffix(" (baseline)") for f in rows["file"]])
    files = list(dict.fromkeys(named["file"]))
    shapes = list(dict.fromkeys(named["shape"]))
    best, why = _by_file_and_shape(named, f"best {metric.column}", files, shapes)
    question = "better" if metric.higher_is_better else "faster"
    bests = Grouped(f"Which run is {question} at each shape? (each run's best)",
                    tuple(shapes), best, tuple(files), metric.column,
                    why=why)  # fmt: skip
    later = named[~baseline]
    compared = list(dict.fromkeys(later["shape"]))
    out = grouped_pictures("diff-best", bests)
    if not compared:
        return out
    series = [f for f in files if f in set(later["file"])]
    ratio, why = _by_file_and_shape(later, "ratio", series, compared)
    against = set(named[baseline & named["shape"].isin(compared).to_numpy()]["file"])
    than = f"in {next(iter(against))}" if len(against) == 1 else "in its baseline run"
    ratios = Grouped(f"Is each shape's best slower than {than}? (ratio of the bests; "
                     "above 1.0: worse)", tuple(compared), ratio, tuple(series),
                     "ratio", ratio=True, first_colour=files.index(series[0]),
                     why=why)  # fmt: skip
    return [*out, *grouped_pictures("diff-ratio", ratios)]


def _by_file_and_shape(
    rows: pd.DataFrame, column: str, files: Sequence[str], shapes: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """``column`` per (file, shape) as an array, and why a value is missing: ``not
    run`` where the file has no row of the shape, else ``failed``."""
    values = np.full((len(files), len(shapes)), np.nan)
    why = np.full((len(files), len(shapes)), "not run", dtype=object)
    row_of, col_of = (
        {f: i for i, f in enumerate(files)},
        {s: j for j, s in enumerate(shapes)},
    )
    for file, shape, value in zip(rows["file"], rows["shape"], rows[column]):
        i, j = row_of.get(file), col_of.get(shape)
        if i is None or j is None or not math.isnan(values[i, j]):
            continue
        why[i, j] = "failed"
        if value is not None and not pd.isna(value):
            values[i, j] = float(value)
    return values, why


def shapes_pictures(
    shapes: Sequence[str], files: Sequence[str], runner_up: Sequence[float]
) -> list[Picture]:
    """The per-shape view's rows (each its shape's label, its file and its
    runner-up ratio) as grouped bars, a file a colour, the first ``MOST_SHAPES``
    shapes."""
    from kprofile.render.charts.bars import Grouped  # start-up: charts

    groups = list(dict.fromkeys(shapes))[:MOST_SHAPES]
    series = list(dict.fromkeys(files))
    values = np.full((len(series), len(groups)), np.nan)
    where = {g: i for i, g in enumerate(groups)}
    for shape, name, ratio in zip(shapes, files, runner_up):
        if shape in where:
            values[series.index(name), where[shape]] = ratio
    title = (
        "How clear is each shape's best? (the best other config's ratio; near 1.0: "
        "a toss-up)"
    )
    data = Grouped(title, tuple(groups), values, tuple(series), "runner-up ratio",
                   ratio=True)  # fmt: skip
    return grouped_pictures("shapes-runner-up", data)


def grouped_pictures(name: str, data: Grouped) -> list[Picture]:
    from kprofile.render.charts.bars import (  # start-up: charts
        grouped_figure,
        grouped_pieces,
    )

    pieces = grouped_pieces(data)
    count = len(pieces)
    return [
        Picture(name if count == 1 else f"{name}-{i + 1}", data.title, "",
                partial(grouped_figure, data, piece, (i, count)))
        for i, piece in enumerate(pieces)
    ]  # fmt: skip


def importance_pictures(result: ImportanceResult) -> list[Picture]:
    """The ranking, and one chart per parameter on one ratio scale."""
    from kprofile.render.charts import importance as charts  # start-up: charts

    top = charts.importance_top(result)
    title = "Which parameters matter?"
    out = [
        Picture("importance", title, "",
                partial(charts.importance_overview_figure, result))
    ]  # fmt: skip
    for p in result.params:
        what = f"What does a bad {p.param} cost?"
        draw = partial(charts.importance_param_figure, p, result.shapes_total, top=top)
        out.append(Picture(f"importance-{p.param}", what, "", draw))
    return out


def correlation_pictures(result: Correlation, title: str) -> list[Picture]:
    from kprofile.render.charts.correlation import (  # start-up: charts
        correlation_figure,
    )

    question = "Which parameters move the ratio to the shape's best?"
    return [
        Picture("correlation", question, "",
                partial(correlation_figure, result, title))
    ]  # fmt: skip
