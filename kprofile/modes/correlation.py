"""``-c``: the handler and its sections (the ranking and the matrix); the heatmap is
written by ``kprofile.sinks.files``. The analysis is ``kprofile.core.correlation``."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

import pandas as pd

from kprofile.core.metric import Metric
from kprofile.core.problems import problem
from kprofile.modes.pictures_judged import correlation_pictures
from kprofile.modes.request import Data
from kprofile.modes.result import ModeResult
from kprofile.render.section import Picture, Section

if TYPE_CHECKING:
    from kprofile.core.correlation import Correlation


class CorrelationRequest(NamedTuple):
    data: Data
    out_dir: str | None = None  # where the heatmap goes (None: not written)
    include_shapes: bool = False  # correlate the shape columns too


def run(request: CorrelationRequest) -> ModeResult:
    """``-c``: the correlations, and the heatmap in ``--out-dir``."""
    from kprofile.core.correlation import correlate  # start-up: -c only

    data = request.data
    keys = problem(data.inputs, data.pivots).matched
    shapes = () if request.include_shapes else keys
    result = correlate(data.inputs, data.metric, shapes=shapes, by=keys)
    paths: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    if request.out_dir is not None:
        from kprofile.sinks.files import write_heatmap  # start-up: --out-dir only

        title = heatmap_title(result, data.metric)
        paths, notes = write_heatmap(result, request.out_dir, title)
    sections = correlation_sections(result, data.metric, paths[0] if paths else None)
    pictures: tuple[Picture, ...] = ()
    if data.charts is not None:
        title = heatmap_title(result, data.metric)
        pictures = tuple(correlation_pictures(result, title))
    return ModeResult(tuple(sections), written=paths, notes=notes,
                      pictures=pictures)  # fmt: skip


def heatmap_title(result: Correlation, metric: Metric) -> str:
    """What the heatmap shows, its title."""
    return (
        f"Kendall tau ({result.rows} runs; {metric.column} as each run's ratio to "
        "its shape's best)"
    )


def correlation_sections(
    result: Correlation, metric: Metric, png: str | None
) -> list[Section]:
    with_metric = result.matrix[metric.column].drop(metric.column)
    order = sorted(
        with_metric.index,
        key=lambda c: -abs(with_metric[c]) if not math.isnan(with_metric[c]) else 1.0,
    )
    ranking = pd.DataFrame(
        {"parameter": order, "kendall tau": [with_metric[c] for c in order]}
    )
    facts: list[tuple[str, object]] = [
        ("runs", result.rows),
        ("metric", f"{metric.column} ({metric.direction}), as each run's ratio "
         "to its shape's best"),
    ]  # fmt: skip
    if result.shapes:
        names = ", ".join(result.shapes)
        facts.append(
            ("shape columns", f"{names} (left out; --include-shapes adds them)")
        )
    if result.not_numeric:
        facts.append(
            ("not numeric", f"{', '.join(result.not_numeric)} (no correlation)")
        )
    if png:
        facts.append(("heatmap", png))
    matrix = result.matrix.reset_index(names="")
    return [
        Section(
            "correlation",
            f"kendall correlation with {metric.column}",
            None,
            tuple(facts),
            ranking,
        ),
        Section("correlation-matrix", "kendall correlation matrix", None, (), matrix),
    ]
