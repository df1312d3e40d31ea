"""What every chart shares: a figure drawn off screen, its PNG bytes, the colours, how a
failure is drawn, labels wrapped to fit, and the time unit of a metric.

Charts are files, never windows: every figure is a ``matplotlib.figure.Figure``
rendered by the Agg canvas, without pyplot and whatever backend the environment names
(``MPLBACKEND`` is set to Agg before matplotlib is imported, since a broken value
there would stop the import). Figures are drawn and saved under matplotlib's default
style, not the user's rc files, and PNGs carry no version stamp, so the same input
gives the same bytes.

Sizes are for a pull request or a CI artifact read at 100 %: 100 dpi, 900 to 1,400
pixels wide, text of 8 points or more. Every label from an input goes through
``one_line`` as on the terminal. Colours carry meaning and survive colour blindness:
matplotlib's ``tab10`` for runs (run ``i`` of a shape is ``COLOURS[i]`` in every
chart), a sequential map for ratios; a failure is a grey hatched bar or cell with
its kind written on it, never a missing bar.
"""

from __future__ import annotations

import io
import math
import os
import re
import textwrap
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from tuning_codegen.errors import one_line

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

DPI = 100
WIDE = 12.0  # inches: 1,200 pixels
COLOURS = tuple(
    f"tab:{name}"
    for name in (
        "blue", "orange", "green", "red", "purple",
        "brown", "pink", "gray", "olive", "cyan",
    )
)  # fmt: skip
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*")
RATIOS = "viridis_r"  # sequential: dark is far from the best, light is near it
FAILED_FACE = "0.85"
FAILED_EDGE = "0.35"
FAILED_HATCH = "///"
GATE = "tab:red"


def colour(i: int) -> str:
    """Run (or shape) ``i``'s colour, the same in every chart of a run."""
    return COLOURS[i % len(COLOURS)]


def marker(i: int) -> str:
    """A marker that tells apart the 11th shape from the 1st (same colour)."""
    return MARKERS[(i // len(COLOURS)) % len(MARKERS)]


def _style() -> AbstractContextManager[Any]:
    os.environ["MPLBACKEND"] = "Agg"
    import matplotlib.style

    return matplotlib.style.context("default")


def figure(size: tuple[float, float], draw: Callable[[Figure], None]) -> Figure:
    """A new figure of ``size`` inches, drawn by ``draw`` under the default style."""
    with _style():
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        made = Figure(figsize=size, dpi=DPI, layout="constrained")
        FigureCanvasAgg(made)
        draw(made)
    return made


def png_bytes(made: Figure) -> bytes:
    """The figure as PNG bytes: the same figure, the same bytes."""
    buffer = io.BytesIO()
    with _style():
        made.savefig(
            buffer, format="png", dpi=DPI, metadata={"Software": None},
            facecolor="white", bbox_inches=None,
        )  # fmt: skip
    return buffer.getvalue()


def png(draw: Callable[[Figure], None], size: tuple[float, float]) -> bytes:
    """A new figure of ``size`` inches, drawn by ``draw``, as PNG bytes."""
    return png_bytes(figure(size, draw))


def wrap(label: str, width: int = 30, lines: int = 3) -> str:
    """``label`` on lines of at most ``width`` characters, cut at its ``/`` (a spec's
    or a shape's parts) or spaces; at most ``lines`` lines, the last ending in ``…``
    when some is left out."""
    shown = one_line(label)
    parts = re.split(r"(?<=/)", shown)
    out: list[str] = []
    for part in parts:
        if out and len(out[-1]) + len(part) <= width:
            out[-1] += part
        else:
            out += textwrap.wrap(part, width, break_on_hyphens=False) or [part]
    if len(out) > lines:
        out = [*out[: lines - 1], out[lines - 1][: width - 1] + "…"]
    return "\n".join(out)


def title(text: str, width: int = 100, lines: int = 3) -> str:
    """A title on lines of at most ``width`` characters, cut at spaces only (a shape
    or a path stays whole on its line)."""
    out = textwrap.wrap(one_line(text), width, break_long_words=False,
                        break_on_hyphens=False)  # fmt: skip
    if len(out) > lines:
        out = [*out[: lines - 1], out[lines - 1][: width - 1] + "…"]
    return "\n".join(out)


def plain_log(axis: Any) -> None:
    """A log axis labelled 1, 2, 5, 10, 20... as plain numbers (no 2 x 10^0)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    axis.set_major_locator(LogLocator(base=10.0, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axis.set_minor_formatter(NullFormatter())


def chunks(count: int, size: int) -> list[range]:
    """``range(count)`` cut in pieces of at most ``size``, as even as can be."""
    pieces = max(1, math.ceil(count / size))
    bounds = np.linspace(0, count, pieces + 1).round().astype(int)
    return [range(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]


def failed_barh(axes: Axes, y: float, width: float, height: float, text: str) -> None:
    """A failure where a bar would be: grey, hatched, its kind written on it."""
    axes.barh(
        y, width, height, left=0.0, color=FAILED_FACE, edgecolor=FAILED_EDGE,
        hatch=FAILED_HATCH, linewidth=0.6,
    )  # fmt: skip
    axes.annotate(
        text, (0.0, y), xytext=(4, 0), textcoords="offset points", va="center",
        fontsize=8, color="black",
        bbox={"boxstyle": "square,pad=0.1", "fc": "white", "ec": "none"},
    )  # fmt: skip


def legend(fig: Figure, colours: Sequence[tuple[str, str]], *, failed: bool) -> None:
    """A legend below the chart: each (label, colour) as a swatch, and the failure's
    hatched grey swatch when ``failed``."""
    from matplotlib.patches import Patch  # after _style: matplotlib is loaded

    handles = [Patch(facecolor=c, label=one_line(label)) for label, c in colours]
    if failed:
        handles.append(
            Patch(
                facecolor=FAILED_FACE,
                edgecolor=FAILED_EDGE,
                hatch=FAILED_HATCH,
                label="failed or not run",
            )
        )
    fig.legend(handles=handles, loc="outside lower center",
               ncols=min(4, len(handles)), fontsize=8)  # fmt: skip


# ------------------------------------------------------------------ the time unit

SECONDS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
_TIME = re.compile(r"\((s|ms|us|ns)\)")


class Unit(NamedTuple):
    """How a metric is shown: ``values * scale`` in ``unit`` (empty for a metric
    that is no time), the axis label ``label``."""

    unit: str
    scale: float
    label: str

    def text(self, value: float) -> str:
        """``12.3 us``; a value that did not run as ``failed``."""
        if not math.isfinite(value):
            return "failed"
        shown = value * self.scale
        return f"{shown:.3g} {self.unit}".rstrip()


def time_unit(column: str, values: Sequence[float] | np.ndarray) -> Unit:
    """The unit a time metric reads best in: the largest of s, ms, us, ns in which
    the largest value is at least 1 (``met (s)`` of 2e-5 s reads ``20 us``). A metric
    that is no time keeps its column's name and values."""
    found = _TIME.search(column)
    if found is None:
        return Unit("", 1.0, one_line(column))
    base = found.group(1)
    array = np.asarray(values, dtype=np.float64)
    finite = array[np.isfinite(array) & (array > 0)]
    largest = float(finite.max()) * SECONDS[base] if finite.size else 0.0
    unit = next((u for u, s in SECONDS.items() if largest >= s), "ns")
    if not finite.size:
        unit = base
    label = column[: found.start()] + f"({unit})" + column[found.end() :]
    return Unit(unit, SECONDS[base] / SECONDS[unit], one_line(label))
