"""The ``--importance`` charts: every parameter's cost, ranked, and per parameter the
worst and geometric-mean reachable ratio of each value.

Ratios are drawn from 1.0 (the best) up, on one scale for all the per-parameter charts
of a run, so a 1.05 looks as small next to a 1.5 as it is. A ratio can be
astronomically large or infinite (a metric of 1e308 against one of 5e-324): its bar
is drawn at ``BAR_CAP`` and labelled with its value, so matplotlib never computes
with numbers near the float limit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from kprofile.core.values import value_label
from kprofile.render.charts.canvas import figure, png_bytes, wrap
from tuning_codegen.errors import one_line

BAR_CAP = 1e6  # the longest bar drawn, as a ratio

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from kprofile.core.importance import ImportanceResult, ParamImportance


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
    """``importance_overview_figure`` as PNG bytes."""
    return png_bytes(importance_overview_figure(result))


def importance_overview_figure(result: ImportanceResult) -> Figure:
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
            where = f"{_value(worst.value)} on {one_line(worst.worst_shape)}"
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

    return figure((9, 1.6 + 0.5 * len(names)), draw)


def importance_param_png(
    p: ParamImportance, shapes_total: int, *, top: float | None = None
) -> bytes:
    """Per value of one parameter: the worst and geometric-mean reachable ratio (see
    ``draw_importance_param``)."""
    return png_bytes(importance_param_figure(p, shapes_total, top=top))


def importance_param_figure(
    p: ParamImportance, shapes_total: int, *, top: float | None = None
) -> Figure:
    """See ``draw_importance_param``."""
    size = (max(9.0, 1.5 + 1.1 * len(p.values)), 5.5)
    return figure(size, lambda made: draw_importance_param(made, p, shapes_total, top))


def draw_importance_param(
    figure: Figure, p: ParamImportance, shapes_total: int, top: float | None = None
) -> None:
    """The worst and geometric-mean reachable ratio per value, the worst labelled with
    its ratio, its shape and the number of shapes it was measured on; the title names
    the costly value and its shape. ``top``: the ratio axis's top
    (``importance_top``), the same for every parameter of a run."""
    labels = [wrap(value_label(v.value)) for v in p.values]
    x = np.arange(len(labels))
    worst = [drawn(v.worst) - 1.0 if v.shapes else 0.0 for v in p.values]
    geo = [drawn(v.geomean) - 1.0 if v.shapes else 0.0 for v in p.values]
    name = one_line(p.param)
    where = f"{_value(p.worst.value)} on {one_line(p.worst.worst_shape)}"
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


def _value(value: object) -> str:
    """A value on one line of at most 30 characters (a 401-digit integer cut with
    an ellipsis), so that a title or a bar's note keeps its room."""
    return wrap(value_label(value), lines=1)
