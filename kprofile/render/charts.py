"""The charts kprofile draws, as PNG bytes: the correlation heatmap and the
``--importance`` charts.

Charts are files, never windows: every figure is a ``matplotlib.figure.Figure``
rendered by the Agg canvas, without pyplot and whatever backend the environment names
(``MPLBACKEND`` is set to Agg before matplotlib is imported, since a broken value
there would stop the import). Figures use matplotlib's default style, not the user's
rc files, and PNGs carry no version stamp, so the same input gives the same bytes.

They are sized to read on a laptop screen at 100 %: 100 dpi, about 900 pixels wide,
text of 9 points or more. Every label from an input (names, values, shapes) goes
through ``one_line`` as on the terminal. Ratios are drawn from 1.0 (the best) up, on
one scale for all the per-parameter charts of a run, so a 1.05 looks as small next to
a 1.5 as it is. A ratio can be astronomically large or infinite (a metric of 1e308
against one of 5e-324): its bar is drawn at ``BAR_CAP`` and labelled with its value,
so matplotlib never computes with numbers near the float limit.
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from kprofile.core.values import value_label
from tuning_codegen.errors import one_line

BAR_CAP = 1e6  # the longest bar drawn, as a ratio

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from kprofile.core.correlation import Correlation
    from kprofile.core.importance import ImportanceResult, ParamImportance


def png(draw: Callable[[Figure], None], size: tuple[float, float]) -> bytes:
    """A new figure of ``size`` inches, drawn by ``draw``, as PNG bytes."""
    os.environ["MPLBACKEND"] = "Agg"
    import matplotlib.style
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with matplotlib.style.context("default"):
        figure = Figure(figsize=size, dpi=100, layout="constrained")
        FigureCanvasAgg(figure)
        draw(figure)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


def heatmap_png(result: Correlation, title: str) -> bytes:
    """The correlation matrix as an annotated heatmap; under the title, the shape
    columns left out of it."""
    names = [one_line(n) for n in result.columns]
    heading = one_line(title)
    if result.shapes:
        heading += "\n" + one_line(
            f"shape columns left out: {', '.join(result.shapes)}"
        )
    size = len(names)
    matrix = result.matrix.to_numpy(dtype=np.float64)

    def draw(figure: Figure) -> None:
        axes = figure.add_subplot()
        image = axes.imshow(matrix, cmap="RdBu_r", vmin=-1.0, vmax=1.0)
        axes.set_xticks(range(size), names, rotation=45, ha="right")
        axes.set_yticks(range(size), names)
        for (i, j), value in np.ndenumerate(matrix):
            text = "" if math.isnan(value) else f"{value:.2f}"
            color = "white" if abs(value) > 0.6 else "black"
            axes.text(j, i, text, ha="center", va="center", fontsize=9, color=color)
        axes.set_title(heading, fontsize=10)
        figure.colorbar(image, ax=axes, fraction=0.046, pad=0.04)

    side = max(6.0, 1.5 + 0.8 * size)
    return png(draw, (side + 1.0, side))


def importance_top(result: ImportanceResult) -> float:
    """The top of every per-parameter chart's ratio axis: above the largest cost of
    the run, and at least 1.1, so that a near-flat parameter looks near flat."""
    cost = max((drawn(p.cost) for p in result.params), default=1.0)
    return max(1.1, 1.0 + (cost - 1.0) * 1.15)


def drawn(ratio: float) -> float:
    """A ratio as far as its bar goes: at most ``BAR_CAP``."""
    return ratio if ratio <= BAR_CAP else BAR_CAP


def ratio_text(ratio: float) -> str:
    """``1.234``; a ratio beyond the cap as ``1.5e+300`` or ``inf``."""
    return f"{ratio:.3f}" if ratio <= BAR_CAP else f"{ratio:.3g}"


def importance_overview_png(result: ImportanceResult) -> bytes:
    """Every parameter's cost, ranked (the most costly on top), each bar naming the
    value and the shape where it costs that much."""
    params = result.params[::-1]
    names = [one_line(p.param) for p in params]

    def draw(figure: Figure) -> None:
        ax = figure.add_subplot()
        bars = [drawn(p.cost) - 1.0 for p in params]
        ax.barh(names, bars, left=1.0, color="tab:red")
        for y, p in enumerate(params):
            worst = p.worst
            where = one_line(f"{value_label(worst.value)} on {worst.worst_shape}")
            ax.annotate(f"{ratio_text(p.cost)}  ({where})", (drawn(p.cost), y),
                        xytext=(4, 0), textcoords="offset points", va="center",
                        fontsize=9)  # fmt: skip
        ax.axvline(1.0, color="black", linewidth=0.8)
        longest = max((drawn(p.cost) for p in params), default=1.0)
        ax.set_xlim(1.0, 1.0 + max(longest - 1.0, 0.01) / 0.55)  # room for the text
        ax.set_xlabel(
            "worst reachable ratio with the parameter at its worst value "
            "(1.0 = best; axis starts at 1.0)"
        )
        ax.set_title(f"Which parameters matter ({result.shapes_total} shapes): the "
                     "cost, and the value and shape where it is paid")  # fmt: skip

    return png(draw, (9, 1.6 + 0.5 * len(names)))


def importance_param_png(
    p: ParamImportance, shapes_total: int, *, top: float | None = None
) -> bytes:
    """Per value of one parameter: the worst and geometric-mean reachable ratio (see
    ``draw_importance_param``)."""
    size = (max(8.0, 1.5 + 1.1 * len(p.values)), 5.5)
    return png(lambda figure: draw_importance_param(figure, p, shapes_total, top), size)


def draw_importance_param(
    figure: Figure, p: ParamImportance, shapes_total: int, top: float | None = None
) -> None:
    """The worst and geometric-mean reachable ratio per value, the worst labelled with
    its ratio, its shape and the number of shapes it was measured on; the title names
    the costly value and its shape. ``top``: the ratio axis's top
    (``importance_top``), the same for every parameter of a run."""
    labels = [one_line(value_label(v.value)) for v in p.values]
    x = np.arange(len(labels))
    worst = [drawn(v.worst) - 1.0 if v.shapes else 0.0 for v in p.values]
    geo = [drawn(v.geomean) - 1.0 if v.shapes else 0.0 for v in p.values]
    name = one_line(p.param)
    where = one_line(f"{value_label(p.worst.value)} on {p.worst.worst_shape}")
    ax = figure.add_subplot()
    ax.bar(x - 0.2, geo, 0.4, bottom=1.0, label="geometric mean over shapes",
           color="tab:blue")  # fmt: skip
    ax.bar(x + 0.2, worst, 0.4, bottom=1.0, label="worst shape", color="tab:red")
    for xi, v in zip(x, p.values):
        text = (
            f"{ratio_text(v.worst)}\n{one_line(v.worst_shape)}\n"
            f"{v.shapes}/{shapes_total}"
            if v.shapes
            else f"not measured\n0/{shapes_total}"
        )
        at = (xi + 0.2, drawn(v.worst) if v.shapes else 1.0)
        ax.annotate(text, at, xytext=(0, 3), textcoords="offset points",
                    ha="center", fontsize=8)  # fmt: skip
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_ylim(1.0, top if top is not None else max(1.1, 1.0 + 1.15 * max(worst)))
    ax.set_xticks(x, labels, rotation=45 if len(labels) > 8 else 0)
    ax.set_xlabel(f"{name} (above each red bar: its ratio, its shape, shapes "
                  "measured)")  # fmt: skip
    ax.set_ylabel("best reachable ratio (1.0 = best; same scale on every chart)")
    ax.set_title(f"#{p.rank} {name}: a bad choice costs up to {ratio_text(p.cost)}x "
                 f"({where})", fontsize=11)  # fmt: skip
    figure.legend(loc="outside lower center", ncols=2, fontsize=9)
