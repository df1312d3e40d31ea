"""A dispatch table judged shape by shape: each shape's ratio to its best, sorted, with
the gate's line (``ShapeRatios``: ``--score``, ``--cover``, ``--budget``), and a ranged
table along its range column with the range boundaries (``RangePoints``:
``--ranges``).

A shape without a ratio (its config failed there, was never measured, nothing ran)
is a grey hatched bar naming why, above the others: counted apart, never as 1.0.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from kprofile.render.charts.canvas import (
    FAILED_EDGE,
    FAILED_FACE,
    FAILED_HATCH,
    GATE,
    WIDE,
    colour,
    figure,
    title,
    wrap,
)
from tuning_codegen.errors import one_line

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

MOST_BARS = 40  # shapes drawn as bars; beyond, the worst of them


class ShapeRatios(NamedTuple):
    """Per shape: its label, its ratio (NaN: none) and its status (``scored``, or
    why it has no ratio). ``gate``: ``--fail-above``'s R, if given."""

    title: str
    shapes: tuple[str, ...]
    ratios: np.ndarray
    statuses: tuple[str, ...]
    gate: float | None = None


def shape_ratios_figure(data: ShapeRatios) -> Figure:
    """Bars from 1.0, the worst shape on top; the unscored above them."""
    order = _order(data)[:MOST_BARS]
    height = 1.9 + 0.3 * len(order)
    return figure((WIDE, height), lambda f: _draw_ratios(f, data, order))


def _order(data: ShapeRatios) -> list[int]:
    """The shapes without a ratio first, then the scored, highest ratio first."""
    ratios = data.ratios
    unscored = [i for i in range(len(ratios)) if not math.isfinite(ratios[i])]
    scored = [i for i in np.argsort(-ratios, kind="stable").tolist()
              if math.isfinite(ratios[i])]  # fmt: skip
    return unscored + scored


def _draw_ratios(fig: Figure, data: ShapeRatios, order: list[int]) -> None:
    axes = fig.add_subplot()
    finite = data.ratios[np.isfinite(data.ratios)]
    high = max(1.02, float(finite.max()) if finite.size else 1.02,
               data.gate or 1.0)  # fmt: skip
    span = high - 1.0
    for y, i in enumerate(order):
        ratio = float(data.ratios[i])
        if math.isfinite(ratio):
            axes.barh(y, ratio - 1.0, 0.7, left=1.0, color=colour(0))
            axes.annotate(
                f"{ratio:.3f}",
                (ratio, y),
                xytext=(3, 0),
                textcoords="offset points",
                va="center",
                fontsize=8,
            )
        else:  # fmt: skip
            axes.barh(
                y,
                span * 0.4,
                0.7,
                left=1.0,
                color=FAILED_FACE,
                edgecolor=FAILED_EDGE,
                hatch=FAILED_HATCH,
                linewidth=0.6,
            )
            axes.annotate(one_line(data.statuses[i]), (1.0, y), xytext=(4, 0),
                          textcoords="offset points", va="center", fontsize=8,
                          bbox={"boxstyle": "square,pad=0.1", "fc": "white",
                                "ec": "none"})  # fmt: skip
    _lines(axes, data, finite)
    labels = [wrap(data.shapes[i], 40, 1) for i in order]
    axes.set_yticks(range(len(order)), labels, fontsize=8)
    axes.set_ylim(len(order) - 0.5, -0.5)
    axes.set_xlim(1.0, 1.0 + span * 1.2)
    axes.set_xlabel("ratio to the shape's best (1.0 = the best; the axis starts "
                    "there); grey hatched: no ratio, and why")  # fmt: skip
    shown = len(order)
    total = len(data.shapes)
    more = f" (the {shown} worst of {total} shapes)" if shown < total else ""
    axes.set_title(title(one_line(data.title) + more, 110, 2), fontsize=11)
    if axes.get_legend_handles_labels()[0]:
        fig.legend(loc="outside lower center", ncols=2, fontsize=8)


def _lines(axes: Axes, data: ShapeRatios, finite: np.ndarray) -> None:
    """The geomean of the scored shapes, and the gate's R."""
    if finite.size:
        geomean = float(np.exp(np.log(finite).mean()))
        axes.axvline(geomean, color="black", linestyle="--", linewidth=1.0,
                     label=f"geomean {geomean:.3f}")  # fmt: skip
    if data.gate is not None:
        axes.axvline(data.gate, color=GATE, linewidth=1.6,
                     label=f"--fail-above {data.gate:g}")  # fmt: skip


class RangePoints(NamedTuple):
    """One group of ``--ranges``: its points along ``column`` (``points``, in
    order), the ratio there of the config its range dispatches to (NaN: it failed
    or did not run there), where each range starts (an index into ``points``) and
    each range's config label."""

    group: str
    column: str
    points: tuple[str, ...]
    ratio: np.ndarray
    starts: tuple[int, ...]
    configs: tuple[str, ...]
    tol: float


def ranges_figure(data: RangePoints) -> Figure:
    """Each point's ratio as a bar in its range's colour; a dashed line where a
    range starts; the tolerance's line."""
    width = min(16.0, max(9.0, 2.0 + 0.32 * len(data.points)))
    height = 4.8 + 0.22 * len(data.configs)
    return figure((width, height), lambda f: _draw_ranges(f, data))


def _range_bars(
    axes: Axes, data: RangePoints, r: int, points: range, high: float
) -> None:
    """Range ``r``'s points: a bar and a dot per ratio, a hatched bar where its
    config failed; a dashed line where it starts."""
    xs = np.arange(points.start, points.stop)
    ratios = data.ratio[points.start : points.stop]
    ran = np.isfinite(ratios)
    axes.bar(
        xs[ran],
        ratios[ran] - 1.0,
        0.8,
        bottom=1.0,
        color=colour(r),
        label=wrap(f"range {r + 1}: {data.configs[r]}", 100, 1),
    )
    axes.scatter(xs[ran], ratios[ran], s=18, color=colour(r), zorder=3,
                 clip_on=False)  # fmt: skip
    for x in xs[~ran].tolist():
        axes.bar(
            x,
            (high - 1.0) * 0.3,
            0.8,
            bottom=1.0,
            color=FAILED_FACE,
            edgecolor=FAILED_EDGE,
            hatch=FAILED_HATCH,
            linewidth=0.6,
        )
        axes.annotate("failed", (x, 1.0 + (high - 1.0) * 0.3), xytext=(0, 2),
                      textcoords="offset points", ha="center", rotation=90,
                      fontsize=7)  # fmt: skip
    if points.start:
        axes.axvline(points.start - 0.5, color="black", linestyle="--",
                     linewidth=1.0)  # fmt: skip


def _draw_ranges(fig: Figure, data: RangePoints) -> None:
    axes = fig.add_subplot()
    stops = [*data.starts[1:], len(data.points)]
    finite = data.ratio[np.isfinite(data.ratio)]
    high = max(1.0 + data.tol * 1.3, float(finite.max()) if finite.size else 1.0)
    for r, (start, stop) in enumerate(zip(data.starts, stops)):
        _range_bars(axes, data, r, range(start, stop), high)
    axes.axhline(
        1.0 + data.tol,
        color=GATE,
        linewidth=1.2,
        label=f"tolerance {data.tol:g} (ratio {1 + data.tol:g})",
    )
    rotation = 90 if len(data.points) > 16 else 0  # fmt: skip
    axes.set_xticks(range(len(data.points)), [wrap(p, 10, 1) for p in data.points],
                    rotation=rotation, fontsize=8)  # fmt: skip
    axes.set_xlim(-0.6, len(data.points) - 0.4)
    axes.set_ylim(1.0, 1.0 + (high - 1.0) * 1.15)
    axes.set_xlabel(f"{one_line(data.column)} (dashed: where a range starts)")
    axes.set_ylabel("ratio of the range's config to the best (1.0 = the best)")
    heading = (
        f"Where do the {data.column} ranges of {data.group} split, and how "
        "close is each range's config to the best at every point?"
    )
    axes.set_title(title(heading, int(fig.get_figwidth() * 8.5), 2), fontsize=11)
    fig.legend(loc="outside lower center", ncols=1, fontsize=8)
