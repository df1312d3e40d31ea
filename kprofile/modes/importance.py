"""``--importance``: the handler and its sections (parameters ranked by what a bad
choice can cost, and every value's reach); its charts (``--plot``, ``--report``)
are ``kprofile.modes.pictures_judged``'s. The analysis is
``kprofile.core.importance``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import pandas as pd

from kprofile.core.metric import Metric
from kprofile.errors import KprofileError, usage_error
from kprofile.modes.pictures_judged import importance_pictures
from kprofile.modes.request import Data
from kprofile.modes.result import ModeResult
from kprofile.render.section import Section

if TYPE_CHECKING:
    from kprofile.core.importance import ImportanceResult


def importance_sections(
    result: ImportanceResult,
    *,
    shape_cols: Sequence[str],
    metric: Metric,
) -> list[Section]:
    """``importance`` (one row per parameter, ranked) and ``importance-values`` (one per
    value)."""
    params = result.params
    ranked = pd.DataFrame(
        {
            "rank": [p.rank for p in params],
            "param": [p.param for p in params],
            "cost": [p.cost for p in params],
            "best value": pd.Series([p.best_value for p in params], dtype=object),
            "worst value": pd.Series([p.worst.value for p in params], dtype=object),
            "worst shape": [p.worst.worst_shape for p in params],
            "values": [len(p.values) for p in params],
        }
    )
    return [
        Section(
            "importance",
            f"importance: which parameters matter ({metric.column})",
            None,
            _facts(result, shape_cols, metric),
            ranked,
        ),
        Section(
            "importance-values",
            "importance: best ratio reachable with the parameter fixed to each value",
            None,
            (),
            result.table,
        ),
    ]


def _facts(
    result: ImportanceResult, shape_cols: Sequence[str], metric: Metric
) -> tuple[tuple[str, Any], ...]:
    shapes_by = (
        ", ".join(shape_cols) or "- (no shape columns: all rows are one shape; give -p)"
    )
    return (
        ("shapes", result.shapes_total),
        ("shapes by", shapes_by),
        ("metric", f"{metric.column} ({metric.direction})"),
        ("cost", "best ratio still reachable on the worst shape, with the parameter "
         "at its worst value"),
    )  # fmt: skip


class ImportanceRequest(NamedTuple):
    data: Data


def run(request: ImportanceRequest) -> ModeResult:
    """``--importance``: parameters ranked by what a bad value costs; its charts."""
    from kprofile.core.combine import combine  # start-up: the pooling modes only
    from kprofile.core.importance import importance  # start-up: --importance only

    data = request.data
    combined = combine(data.inputs, data.pivots)
    try:
        result = importance(
            combined.frame,
            shape_cols=combined.shape_cols,
            param_cols=combined.param_cols,
            metric=data.metric,
            progress=data.progress,
        )
    except KprofileError as exc:
        raise usage_error(f"--importance: {exc.message}") from None
    sections = importance_sections(
        result, shape_cols=combined.shape_cols, metric=data.metric
    )
    pictures = () if data.charts is None else tuple(importance_pictures(result))
    return ModeResult(tuple(sections), pictures=pictures)
