"""Across runs: each config's metric in one run against another (``Pairs``, coloured
by shape, with y = x and the band of the measured run-to-run spread), and how far
apart repeated runs of one config come out (``Spreads``, ``--combine``).

A config that failed in one run and ran in the other is drawn on that run's axis
edge, as a grey cross labelled with the run it failed in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from kprofile.render.charts.canvas import (
    FAILED_EDGE,
    colour,
    figure,
    marker,
    plain_log,
    time_unit,
    title,
    wrap,
)
from tuning_codegen.errors import one_line

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

LEGEND_SHAPES = 16  # shapes named in the legend; the rest counted


class Pairs(NamedTuple):
    """One point per (shape, config) measured in both runs or failed in one:
    ``first``, ``second`` (NaN: no valid run there), ``shape`` (an index into
    ``shapes``); ``spread``: the median run-to-run spread (max / min), the band."""

    first: np.ndarray
    second: np.ndarray
    shape: np.ndarray
    shapes: tuple[str, ...]
    runs: tuple[str, str]
    column: str
    spread: float


def pairs_figure(data: Pairs) -> Figure:
    """The log-log scatter of the two runs."""
    return figure((11.0, 8.5), lambda f: _draw_pairs(f, data))


def _draw_pairs(fig: Figure, data: Pairs) -> None:
    axes = fig.add_subplot()
    unit = time_unit(data.column, np.r_[data.first, data.second])
    x, y = data.first * unit.scale, data.second * unit.scale
    both = np.isfinite(x) & np.isfinite(y)
    known = np.r_[x[np.isfinite(x)], y[np.isfinite(y)]]
    low = float(known.min()) / 1.3 if known.size else 0.1
    high = float(known.max()) * 1.3 if known.size else 10.0
    for s in np.unique(data.shape[both]).tolist():
        mine = both & (data.shape == s)
        label = wrap(data.shapes[s], 40, 2) if s < LEGEND_SHAPES else None
        axes.scatter(x[mine], y[mine], s=22, color=colour(s), marker=marker(s),
                     alpha=0.8, label=label)  # fmt: skip
    line = np.array([low, high])
    axes.plot(line, line, color="black", linewidth=1.0, label="y = x: the same")
    if data.spread > 1.0:
        axes.fill_between(line, line / data.spread, line * data.spread,
                          color="0.5", alpha=0.18, linewidth=0,
                          label=f"median run-to-run spread "
                          f"(x{data.spread:.3f})")  # fmt: skip
    _failed_edges(axes, x, y, (low, high), data.runs)
    axes.set_xscale("log")
    axes.set_yscale("log")
    plain_log(axes.xaxis)
    plain_log(axes.yaxis)
    axes.set_xlim(low, high)
    axes.set_ylim(low, high)
    names = [one_line(r) for r in data.runs]
    axes.set_xlabel(f"{unit.label} in {wrap(names[0], 50, 1)}")
    axes.set_ylabel(f"{unit.label} in {wrap(names[1], 50, 1)}")
    heading = (
        f"Did each config keep its speed from {names[0]} to {names[1]}? "
        "(off the grey band: a change bigger than the noise)"
    )
    axes.set_title(title(heading, 90, 2), fontsize=11)  # fmt: skip
    hidden = len(data.shapes) - LEGEND_SHAPES
    if hidden > 0:
        axes.scatter([], [], color="white", label=f"and {hidden} more shapes")
    fig.legend(loc="outside right upper", fontsize=8)


def _failed_edges(
    axes: Axes, x: np.ndarray, y: np.ndarray, limits: tuple[float, float],
    runs: tuple[str, str],
) -> None:  # fmt: skip
    """Points that failed in one run, on that run's edge."""
    low, _ = limits
    only_first = np.isfinite(x) & ~np.isfinite(y)
    only_second = ~np.isfinite(x) & np.isfinite(y)
    for mask, where, run in ((only_first, "y", runs[1]), (only_second, "x", runs[0])):
        if not mask.any():
            continue
        xs = x[mask] if where == "y" else np.full(int(mask.sum()), low * 1.02)
        ys = y[mask] if where == "x" else np.full(int(mask.sum()), low * 1.02)
        axes.scatter(
            xs,
            ys,
            s=40,
            marker="x",
            color=FAILED_EDGE,
            clip_on=False,
            label=f"failed in {wrap(run, 30, 1)} ({int(mask.sum())})",
        )
    # fmt: skip


class Spreads(NamedTuple):
    """Each repeated (shape, config)'s spread (max / min of its successful runs)."""

    spread: np.ndarray
    how: str  # median, min or mean: how the runs were combined


def spreads_figure(data: Spreads) -> Figure:
    """A histogram of the spreads from 1.0, the median marked."""
    return figure((10.0, 5.5), lambda f: _draw_spreads(f, data))


def _draw_spreads(fig: Figure, data: Spreads) -> None:
    axes = fig.add_subplot()
    spread = data.spread[np.isfinite(data.spread)]
    top = max(1.01, float(spread.max()) if spread.size else 1.01)
    bins = np.geomspace(1.0, top * 1.001, 30).tolist()
    axes.hist(spread, bins=bins, color=colour(0))
    if spread.size:
        middle = float(np.median(spread))
        axes.axvline(middle, color="black", linestyle="--",
                     label=f"median spread {middle:.3f}")  # fmt: skip
        axes.legend(fontsize=9)
    axes.set_xscale("log")
    plain_log(axes.xaxis)
    axes.set_xlim(1.0, top * 1.05)
    axes.set_xlabel("spread of a config's runs at a shape (max / min; 1.0 = the "
                    "same; log scale)")  # fmt: skip
    axes.set_ylabel("(shape, config) pairs run twice or more")
    axes.set_title(f"How far apart do repeated runs of one config come out? "
                   f"({len(spread)} pairs; combined by their {data.how})",
                   fontsize=11)  # fmt: skip
