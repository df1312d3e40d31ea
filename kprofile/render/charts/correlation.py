"""``-c``: the Kendall correlation matrix as an annotated heatmap (a diverging map
centred on 0)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from kprofile.render.charts.canvas import figure, png_bytes
from tuning_codegen.errors import one_line

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from kprofile.core.correlation import Correlation


def heatmap_png(result: Correlation, title: str) -> bytes:
    """``correlation_figure`` as PNG bytes."""
    return png_bytes(correlation_figure(result, title))


def correlation_figure(result: Correlation, title: str) -> Figure:
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

    side = max(8.0, 1.5 + 0.8 * size)
    return figure((side + 1.0, side), draw)
