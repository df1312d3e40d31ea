"""Bars: each shape's best configs run by run (``TopConfigs``), and kplot's grouped
bars of one value per group and run, in the metric or as a ratio to a baseline
(``Grouped``: ``-d``'s bests per shape).

A config's bar per run is that run's colour; a run where the config failed or did
not run gets a grey hatched bar that says so. Long label sets are split over several
charts, as kplot's ``groups_per_chart`` does, never shrunk.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from kprofile.render.charts.canvas import (
    FAILED_EDGE,
    FAILED_FACE,
    FAILED_HATCH,
    WIDE,
    chunks,
    colour,
    failed_barh,
    figure,
    legend,
    time_unit,
    title,
    wrap,
)
from tuning_codegen.errors import one_line

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


class TopConfigs(NamedTuple):
    """One shape's best configs (best first, by its first run), each run's value
    (``values[run, config]``, NaN where it has none) and why it has none
    (``missing[run][config]``: ``failed (execution)``, ``not run``; empty where it
    ran). ``failed``: a line for the configs that failed in every run, drawn as a
    last hatched bar (empty: none)."""

    shape: str
    configs: tuple[str, ...]
    values: np.ndarray
    missing: tuple[tuple[str, ...], ...]
    runs: tuple[str, ...]
    column: str
    higher_is_better: bool = False
    failed: str = ""


def top_configs_figure(data: TopConfigs) -> Figure:
    """Horizontal bars, the best config on top, one bar per run."""
    rows = len(data.configs) + bool(data.failed)
    runs = max(1, len(data.runs))
    row = max(0.45, 0.2 * runs + 0.15)
    size = (WIDE, 1.9 + rows * row + 0.25 * math.ceil(runs / 4))
    return figure(size, lambda f: _draw_top(f, data))


def _draw_top(fig: Figure, data: TopConfigs) -> None:
    axes = fig.add_subplot()
    unit = time_unit(data.column, data.values)
    shown = data.values * unit.scale
    largest = float(np.nanmax(shown)) if np.isfinite(shown).any() else 1.0
    runs = max(1, len(data.runs))
    height = 0.8 / runs
    for r in range(len(data.runs)):
        ys = np.arange(len(data.configs)) - 0.4 + height * (r + 0.5)
        for y, value, why in zip(ys, shown[r], data.missing[r]):
            if math.isfinite(value):
                axes.barh(y, value, height, color=colour(r))
                axes.annotate(unit.text(value / unit.scale), (value, y),
                              xytext=(3, 0), textcoords="offset points",
                              va="center", fontsize=8)  # fmt: skip
            else:
                failed_barh(axes, y, largest * 0.3, height, why or "failed")
    labels = [wrap(c, 34, 2) for c in data.configs]
    if data.failed:
        failed_barh(axes, len(labels), largest * 0.5, 0.6, one_line(data.failed))
        labels.append("failed everywhere")
    axes.set_yticks(range(len(labels)), labels, fontsize=8)
    axes.set_ylim(len(labels) - 0.5, -0.5)
    axes.set_xlim(0.0, largest * 1.18)
    better = "higher" if data.higher_is_better else "lower"
    axes.set_xlabel(f"{unit.label} ({better} is better; grey hatched: no valid run)")
    axes.set_title(title(f"Which configs are best at {data.shape}?", 110, 2),
                   fontsize=11)  # fmt: skip
    failed = bool(data.failed) or any(any(m) for m in data.missing)
    legend(fig, [(r, colour(i)) for i, r in enumerate(data.runs)], failed=failed)


class Grouped(NamedTuple):
    """kplot's grouped bars: ``values[series, group]`` (NaN: none, drawn as a
    failure, labelled ``why[series, group]`` or ``failed``). ``ratio``: the values
    are ratios to a baseline, drawn from 1.0 with a line there; otherwise the metric
    ``column``, from 0, in its time unit."""

    title: str
    groups: tuple[str, ...]
    values: np.ndarray
    series: tuple[str, ...]
    column: str
    ratio: bool = False
    first_colour: int = 0  # series i is colour(first_colour + i)
    why: np.ndarray | None = None  # a NaN's label ("not run"); "" or None: failed


def grouped_figures(data: Grouped) -> list[Figure]:
    """One chart per piece of the groups, so that every label fits."""
    pieces = grouped_pieces(data)
    return [grouped_figure(data, p, (i, len(pieces))) for i, p in enumerate(pieces)]


def grouped_pieces(data: Grouped) -> list[range]:
    """The groups each chart holds: as many as their labels and bars leave room
    for (kplot's ``groups_per_chart="auto"``)."""
    series = max(1, len(data.series))
    lines = [line for g in data.groups for line in _group_label(g).split("\n")]
    longest = max((len(line) for line in lines), default=1)
    by_label = max(2, int(1050 // (longest * 6.5 + 12)))
    per_chart = max(1, min(by_label, 60 // series, 30))
    return chunks(len(data.groups), per_chart)


def grouped_figure(
    data: Grouped, piece: range, part: tuple[int, int] = (0, 1)
) -> Figure:
    """The chart of the groups ``piece``; ``part``: its index and the count."""
    return figure((WIDE, 6.5), partial(_draw_grouped, data=data, piece=piece,
                                       part=part))  # fmt: skip


def _group_label(group: str) -> str:
    return wrap(group, 18, 3)


def _draw_grouped(
    fig: Figure, *, data: Grouped, piece: range, part: tuple[int, int]
) -> None:
    axes = fig.add_subplot()
    values = data.values[:, piece.start : piece.stop]
    unit = time_unit("" if data.ratio else data.column, data.values)
    shown = values if data.ratio else values * unit.scale
    base = 1.0 if data.ratio else 0.0
    finite = shown[np.isfinite(shown)]
    low = min(base, float(finite.min())) if data.ratio and finite.size else base
    high = float(finite.max()) if finite.size else base + 1.0
    span = max(high - low, 0.02 if data.ratio else high * 0.1, 1e-12)
    width = 0.8 / max(1, len(data.series))
    for s in range(len(data.series)):
        xs = np.arange(values.shape[1]) - 0.4 + width * (s + 0.5)
        why = (
            [""] * values.shape[1]
            if data.why is None
            else list(data.why[s, piece.start : piece.stop])
        )
        _series_bars(
            axes,
            xs,
            shown[s],
            (width, base, span),
            s + data.first_colour,
            (_label(data.ratio, unit.unit), why),
        )
    if data.ratio:
        axes.axhline(1.0, color="black", linewidth=0.9)
    axes.set_ylim(low - (0.15 * span if data.ratio else 0.0), high + 0.3 * span)
    labels = [_group_label(g) for g in data.groups[piece.start : piece.stop]]
    axes.set_xticks(range(len(labels)), labels, fontsize=8)
    axes.set_ylabel(data.column if data.ratio else unit.label)
    index, count = part
    which = f" ({index + 1} of {count})" if count > 1 else ""
    axes.set_title(title(one_line(data.title) + which, 110, 2), fontsize=11)
    swatches = [(n, colour(i + data.first_colour)) for i, n in enumerate(data.series)]
    legend(fig, swatches, failed=bool(np.isnan(values).any()))


def _label(ratio: bool, unit: str) -> Callable[[float], str]:
    """How a bar's value is written: a ratio to 3 places, a time in its unit."""
    if ratio:
        return "{:.3f}".format
    return lambda value: f"{value:.3g} {unit}".rstrip()


def _series_bars(
    axes: Axes,
    xs: np.ndarray,
    values: np.ndarray,
    geometry: tuple[float, float, float],
    index: int,
    labels: tuple[Callable[[float], str], Sequence[str]],
) -> None:
    """One series' bars from ``base``, each labelled with its value (rotated, so
    neighbours never touch); a failure as a hatched bar labelled with its ``why``
    (``failed`` where that is empty). ``geometry``: the bars' width, their base and
    the axis' span."""
    width, base, span = geometry
    text, whys = labels
    for x, value, why in zip(xs, values, whys):
        if not math.isfinite(value):
            axes.bar(
                x,
                span * 0.35,
                width,
                bottom=base,
                color=FAILED_FACE,
                edgecolor=FAILED_EDGE,
                hatch=FAILED_HATCH,
                linewidth=0.6,
            )
            axes.annotate(why or "failed", (x, base + span * 0.35), xytext=(0, 2),
                          textcoords="offset points", ha="center", va="bottom",
                          rotation=90, fontsize=7)  # fmt: skip
            continue
        axes.bar(x, value - base, width, bottom=base, color=colour(index))
        above = value >= base
        axes.annotate(text(value), (x, value),
                      xytext=(0, 2 if above else -2), textcoords="offset points",
                      ha="center", va="bottom" if above else "top", rotation=90,
                      fontsize=7)  # fmt: skip
