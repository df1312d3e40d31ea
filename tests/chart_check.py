"""What a chart must show, read from the figure itself (matplotlib's own text extents,
as its renderer lays them out): every label inside the figure and none over another,
the unit, the y = x line, failures drawn (a hatched patch and the word)."""

from __future__ import annotations

import itertools
from typing import Any

from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text

SLACK = 1.0  # pixels: rounding of the extents


def texts(figure: Figure) -> list[Text]:
    """Every text drawn: titles, axis labels, tick labels in view, annotations,
    legends' labels, the figure's own texts."""
    found: list[Text] = [*figure.texts]
    for axes in figure.axes:
        found += [axes.title, axes._left_title, axes._right_title]  # noqa: SLF001
        found += [axes.xaxis.label, axes.yaxis.label, *axes.texts]
        found += _tick_labels(axes.xaxis) + _tick_labels(axes.yaxis)
        legend = axes.get_legend()
        if legend is not None:
            found += legend.get_texts()
    for legend in figure.legends:
        found += legend.get_texts()
    return [t for t in found if t.get_visible() and t.get_text().strip()]


def _tick_labels(axis: Any) -> list[Text]:
    """The labels of the ticks in view (matplotlib keeps others it does not draw)."""
    low, high = sorted(axis.get_view_interval())
    room = 1e-9 * max(abs(high - low), 1e-300)
    ticks = [*axis.get_major_ticks(), *axis.get_minor_ticks()]
    shown = [t for t in ticks if low - room <= t.get_loc() <= high + room]
    return [label for t in shown for label in (t.label1, t.label2)]


def _boxes(figure: Figure) -> list[tuple[str, Any]]:
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    return [(t.get_text(), t.get_window_extent(renderer)) for t in texts(figure)]


def layout_problems(figure: Figure) -> list[str]:
    """Labels outside the figure, and pairs of labels that overlap."""
    width, height = figure.bbox.width, figure.bbox.height
    boxes = _boxes(figure)
    problems = [
        f"outside: {text!r} {box.bounds}"
        for text, box in boxes
        if box.x0 < -SLACK or box.y0 < -SLACK
        or box.x1 > width + SLACK or box.y1 > height + SLACK
    ]  # fmt: skip
    for (a, first), (b, second) in itertools.combinations(boxes, 2):
        wide = min(first.x1, second.x1) - max(first.x0, second.x0)
        tall = min(first.y1, second.y1) - max(first.y0, second.y0)
        if wide > SLACK and tall > SLACK:
            problems.append(f"overlap: {a!r} and {b!r}")
    return problems


def all_text(figure: Figure) -> str:
    return "\n".join(t.get_text() for t in texts(figure))


def has_identity_line(figure: Figure) -> bool:
    """A line drawn along y = x."""
    for axes in figure.axes:
        for line in axes.get_lines():
            assert isinstance(line, Line2D)
            xs, ys = line.get_xdata(), line.get_ydata()
            if len(xs) >= 2 and list(map(float, xs)) == list(map(float, ys)):
                return True
    return False


def has_failures(figure: Figure) -> bool:
    """A hatched patch, and the word ``failed`` written."""
    hatched = any(
        isinstance(p, Patch) and p.get_hatch()
        for axes in figure.axes
        for p in axes.patches
    )
    return hatched and "failed" in all_text(figure)


def width_px(figure: Figure) -> float:
    return float(figure.bbox.width)
