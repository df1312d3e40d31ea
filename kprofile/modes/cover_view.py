"""``--cover TOL``: the chosen configs, the config each shape gets, the shapes left alone."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kprofile.core.combine import combine
from kprofile.core.metric import Metric
from kprofile.errors import usage_error
from kprofile.modes.cover import CONFIG, AnalysisInputError, CoverResult, cover
from kprofile.options import Options
from kprofile.outcome import Outcome
from kprofile.render.section import Section

METHODS = {
    "exact": "exact (no smaller table exists)",
    "greedy": "greedy (the exact search ran out of budget; the table may not be the smallest)",
}


def cover_sections(
    result: CoverResult, *, shape_cols: Sequence[str], metric: Metric
) -> list[Section]:
    """Three sections: ``cover`` (facts and configs), ``cover-assignment``, ``cover-uncovered``."""
    shapes = (
        ", ".join(shape_cols) or "- (no shape columns: all rows are one shape; give -p)"
    )
    facts: tuple[tuple[str, Any], ...] = (
        ("method", METHODS[result.method]),
        ("configs", result.size),
        ("one per shape", result.baseline_size),
        ("shapes", len(result.assignment)),
        ("uncovered", len(result.uncovered)),
        ("tol", f"{result.tol:g} (ratio <= {1 + result.tol:g})"),
        ("shapes by", shapes),
        ("metric", f"{metric.column} ({metric.direction})"),
    )
    used = np.bincount(
        result.assignment[CONFIG].to_numpy(dtype=np.int64), minlength=result.size
    )
    configs = result.configs.copy()
    configs.insert(0, CONFIG, np.arange(result.size))
    configs["shapes"] = used
    title = f"cover: fewest configs within {result.tol:g} of each shape's best"
    return [
        Section("cover", title, None, facts, configs),
        Section(
            "cover-assignment",
            "cover: the config of each shape, its loss against the shape's best",
            None,
            (),
            result.assignment,
        ),
        Section(
            "cover-uncovered",
            "cover: shapes with a config of their own, or none",
            None,
            (),
            result.uncovered,
        ),
    ]


def cover_entries(
    result: CoverResult, shape_cols: Sequence[str]
) -> list[dict[str, Any]]:
    """Manifest entries, one per shape in input order: the shape's values, then its config's."""
    shapes = result.assignment[list(shape_cols)].to_dict("records")
    configs = result.configs.iloc[result.assignment[CONFIG].to_numpy()].to_dict(
        "records"
    )
    return [{**shape, **config} for shape, config in zip(shapes, configs)]


def run(options: Options, outcome: Outcome, metric: Metric | None) -> None:
    """``--cover TOL``: the fewest configs within TOL of each shape's best."""
    assert metric is not None and options.cover is not None  # the mode table
    combined = combine(outcome.inputs, options.pivots)
    try:
        result = cover(
            combined.frame,
            shape_cols=combined.shape_cols,
            param_cols=combined.param_cols,
            metric=metric.column,
            lower_is_better=not metric.higher_is_better,
            tol=options.cover,
        )
    except AnalysisInputError as exc:
        raise usage_error(f"--cover: {exc}") from None
    outcome.sections += cover_sections(
        result, shape_cols=combined.shape_cols, metric=metric
    )
    outcome.entries += cover_entries(result, combined.shape_cols)
