"""Per shape, how its configs spread from the best: the share of configs within a
ratio of the best (``Landscape``: how flat the shape's landscape is), and a heatmap of
two parameters whose cells are the best ratio reachable over the others (``Cells``).

A config that failed counts among a shape's configs and never reaches the best, so a
shape's curve ends below 100 %; the legend says how many failed. A heatmap cell whose
every run failed is grey, hatched and says ``failed``; one never run says ``not
run``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from kprofile.render.charts.canvas import (
    FAILED_EDGE,
    FAILED_FACE,
    FAILED_HATCH,
    RATIOS,
    WIDE,
    chunks,
    colour,
    figure,
    plain_log,
    title,
    wrap,
)
from tuning_codegen.errors import one_line

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

PER_CHART = 8  # shapes on one distribution chart
BAND = 1.02  # the band drawn: within 2 % of the best


class Landscape(NamedTuple):
    """One shape: the ratio to its best of every config that ran, and how many
    configs failed (no ratio)."""

    shape: str
    ratios: np.ndarray
    failed: int


def distribution_figures(shapes: Sequence[Landscape]) -> list[Figure]:
    """Cumulative share of each shape's configs within a ratio of its best, at most
    ``PER_CHART`` shapes a chart."""
    pieces = distribution_pieces(len(shapes))
    count = len(pieces)
    return [
        distribution_figure(shapes, piece, (i, count)) for i, piece in enumerate(pieces)
    ]


def distribution_pieces(count: int) -> list[range]:
    """Which shapes each distribution chart of ``count`` shapes holds."""
    return chunks(count, PER_CHART)


def distribution_figure(
    shapes: Sequence[Landscape], piece: range, part: tuple[int, int] = (0, 1)
) -> Figure:
    """The chart of ``shapes[piece]`` (shape ``i`` in colour ``i``); ``part``: its
    index among the charts, and how many there are."""
    draw = partial(_draw_distribution, shapes=shapes, piece=piece, part=part)
    return figure((WIDE, 7.0), draw)


def _draw_distribution(
    fig: Figure, *, shapes: Sequence[Landscape], piece: range, part: tuple[int, int]
) -> None:
    axes = fig.add_subplot()
    top = 1.1
    for i in piece:
        item = shapes[i]
        ratios = np.sort(item.ratios[np.isfinite(item.ratios)])
        total = len(ratios) + item.failed
        if not total:
            continue
        share = np.arange(1, len(ratios) + 1) / total
        top = max(top, float(ratios[-1]) if len(ratios) else top)
        failed = f" ({item.failed} of {total} failed)" if item.failed else ""
        axes.step(np.r_[1.0, ratios], np.r_[0.0, share], where="post",
                  color=colour(i), linewidth=1.6,
                  label=wrap(item.shape, 60, 2) + failed)  # fmt: skip
    axes.axvline(BAND, color="black", linestyle=":", linewidth=1.0,
                 label="within 2 % of the best")  # fmt: skip
    axes.set_xscale("log")
    plain_log(axes.xaxis)
    axes.set_xlim(1.0, top * 1.05)
    axes.set_ylim(0.0, 1.02)
    axes.set_xlabel("ratio to the shape's best (1.0 = the best; log scale)")
    axes.set_ylabel("share of the shape's configs within that ratio")
    axes.yaxis.set_major_formatter(lambda y, _: f"{y:.0%}")
    index, count = part
    heading = "How flat is each shape's landscape? (a curve that rises at once: " \
        "many configs near the best)"  # fmt: skip
    if count > 1:
        heading += f" ({index + 1} of {count})"
    axes.set_title(title(heading, 110, 2), fontsize=11)
    fig.legend(loc="outside lower center", ncols=2, fontsize=8)


class Cells(NamedTuple):
    """One shape's two-parameter grid: ``ratio[y, x]`` the best ratio over the other
    parameters (NaN: no successful run there), ``failed[y, x]`` whether runs there
    all failed (else, with NaN, nothing ran there)."""

    shape: str
    x: str
    y: str
    xs: tuple[str, ...]
    ys: tuple[str, ...]
    ratio: np.ndarray
    failed: np.ndarray


def heatmap_figure(data: Cells) -> Figure:
    """The grid as a heatmap, each cell written with its ratio, ``failed`` or ``not
    run``."""
    width = min(16.0, max(9.0, 3.5 + 0.8 * len(data.xs)))
    height = min(14.0, max(5.0, 2.2 + 0.45 * len(data.ys)))
    return figure((width, height), lambda f: _draw_cells(f, data))


def _draw_cells(fig: Figure, data: Cells) -> None:
    from matplotlib.colors import LogNorm  # matplotlib: after the Agg backend

    axes = fig.add_subplot()
    finite = data.ratio[np.isfinite(data.ratio)]
    high = max(1.01, float(finite.max()) if finite.size else 1.01)
    image = axes.imshow(np.ma.masked_invalid(data.ratio), cmap=RATIOS, aspect="auto",
                        norm=LogNorm(vmin=1.0, vmax=high))  # fmt: skip
    for (i, j), value in np.ndenumerate(data.ratio):
        _cell(axes, j, i, value, bool(data.failed[i, j]), high)
    axes.set_xticks(range(len(data.xs)), [wrap(v, 12, 2) for v in data.xs],
                    fontsize=8)  # fmt: skip
    axes.set_yticks(range(len(data.ys)), [wrap(v, 20, 1) for v in data.ys],
                    fontsize=8)  # fmt: skip
    axes.set_xlabel(one_line(data.x))
    axes.set_ylabel(one_line(data.y))
    heading = (
        f"Which {data.x} x {data.y} is best at {data.shape}? (each cell: the "
        "best ratio over the other parameters; 1.000 = the shape's best)"
    )
    axes.set_title(title(heading, 100, 3), fontsize=10)  # fmt: skip
    bar = fig.colorbar(image, ax=axes, fraction=0.05, pad=0.02)
    plain_log(bar.ax.yaxis)
    bar.set_label("best ratio in the cell (log scale)")


def _cell(axes: Axes, x: int, y: int, value: float, failed: bool, high: float) -> None:
    if math.isfinite(value):
        dark = math.log(value) > 0.5 * math.log(high)
        axes.text(x, y, f"{value:.3f}", ha="center", va="center", fontsize=8,
                  color="white" if dark else "black")  # fmt: skip
        return
    from matplotlib.patches import Rectangle  # matplotlib: after the Agg backend

    axes.add_patch(Rectangle((x - 0.5, y - 0.5), 1.0, 1.0, facecolor=FAILED_FACE,
                             edgecolor=FAILED_EDGE,
                             hatch=FAILED_HATCH if failed else None,
                             linewidth=0.5))  # fmt: skip
    axes.text(x, y, "failed" if failed else "not run", ha="center", va="center",
              fontsize=8, bbox={"boxstyle": "square,pad=0.1", "fc": "white",
                                "ec": "none"})  # fmt: skip
