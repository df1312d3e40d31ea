"""The charts kprofile draws, as PNG bytes: the correlation heatmap and the
``--importance`` charts.

Charts are files, never windows: every figure is a ``matplotlib.figure.Figure``
rendered by the Agg canvas, without pyplot and whatever backend the environment names
(``MPLBACKEND`` is set to Agg before matplotlib is imported, since a broken value
there would stop the import). Figures use matplotlib's default style, not the user's
rc files, and PNGs carry no version stamp, so the same input gives the same bytes.

A ratio can be astronomically large or infinite (a metric of 1e308 against one of
5e-324): its bar is drawn at ``BAR_CAP`` and labelled with its value, so matplotlib
never computes with numbers near the float limit.
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from kprofile.core.values import value_label

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
    """The correlation matrix as an annotated heatmap."""
    names = list(result.columns)
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
            axes.text(j, i, text, ha="center", va="center", fontsize=8, color=color)
        axes.set_title(title)
        figure.colorbar(image, ax=axes, fraction=0.046, pad=0.04)

    return png(draw, (1.0 + 0.8 * size, 0.6 + 0.7 * size))


def drawn(ratio: float) -> float:
    """A ratio as far as its bar goes: at most ``BAR_CAP``."""
    return ratio if ratio <= BAR_CAP else BAR_CAP


def ratio_text(ratio: float) -> str:
    """``1.234``; a ratio beyond the cap as ``1.5e+300`` or ``inf``."""
    return f"{ratio:.3f}" if ratio <= BAR_CAP else f"{ratio:.3g}"


def importance_overview_png(result: ImportanceResult) -> bytes:
    """Every parameter's cost, ranked (the most costly on top)."""
    names = [p.param for p in result.params][::-1]
    costs = [p.cost for p in result.params][::-1]

    def draw(figure: Figure) -> None:
        ax = figure.add_subplot()
        ax.barh(names, [drawn(c) - 1.0 for c in costs], left=1.0, color="tab:red")
        for y, c in enumerate(costs):
            ax.annotate(
                ratio_text(c), (drawn(c), y), xytext=(3, 0),
                textcoords="offset points", va="center", fontsize=8,
            )  # fmt: skip
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_xlabel(
            "worst reachable ratio with the parameter at its worst value (1.0 = best)"
        )
        ax.set_title(f"Which parameters matter ({result.shapes_total} shapes)")
        ax.margins(x=0.15)

    return png(draw, (7, 1.2 + 0.45 * len(names)))


def importance_param_png(p: ParamImportance, shapes_total: int) -> bytes:
    """Per value of one parameter: the worst and geometric-mean reachable ratio,
    labelled with the number of shapes it was measured on."""
    labels = [value_label(v.value) for v in p.values]
    x = np.arange(len(labels))
    worst = [drawn(v.worst) - 1.0 if v.shapes else 0.0 for v in p.values]
    geo = [drawn(v.geomean) - 1.0 if v.shapes else 0.0 for v in p.values]

    def draw(figure: Figure) -> None:
        ax = figure.add_subplot()
        ax.bar(x - 0.2, geo, 0.4, bottom=1.0, label="geometric mean over shapes",
               color="tab:blue")  # fmt: skip
        ax.bar(x + 0.2, worst, 0.4, bottom=1.0, label="worst shape", color="tab:red")
        for xi, v in zip(x, p.values):
            top = drawn(v.worst) if v.shapes else 1.0
            ax.annotate(
                f"{v.shapes}/{shapes_total}", (xi, top), xytext=(0, 3),
                textcoords="offset points", ha="center", fontsize=8,
            )  # fmt: skip
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(x, labels, rotation=45 if len(labels) > 8 else 0)
        ax.set_xlabel(f"{p.param} (labels: shapes measured)")
        ax.set_ylabel("best reachable ratio (1.0 = best)")
        ax.set_title(
            f"#{p.rank} {p.param}: a bad choice costs up to {ratio_text(p.cost)}x"
        )
        figure.legend(loc="outside lower center", ncols=2, fontsize=8)
        ax.margins(y=0.15)

    return png(draw, (max(5.0, 1.0 + 0.6 * len(labels)), 4))
