"""``--cover TOL``: the chosen configs, each shape's config, the shapes left alone."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from kprofile.core.defaults import COVER_LOSS_TIME_LIMIT, COVER_TIME_LIMIT
from kprofile.core.metric import Metric
from kprofile.core.values import entries
from kprofile.errors import KprofileError, usage_error
from kprofile.modes.pictures_judged import shape_ratios_pictures
from kprofile.modes.request import Data
from kprofile.modes.result import ModeResult
from kprofile.render.section import Picture, Section

if TYPE_CHECKING:
    from kprofile.core.cover import CoverResult

EXACT = "exact (no smaller table exists)"
LOSS_UNPROVEN = (
    "; the loss search hit its time limit: a table of this size may lose less"
)
TIME_LIMIT = "time limit (a smaller table may exist: see lower bound)"


def method_text(result: CoverResult) -> str:
    """The ``method`` fact: what was proven about the table."""
    if result.method != "exact":
        return TIME_LIMIT
    return EXACT if result.loss_proven else EXACT + LOSS_UNPROVEN


def cover_facts(
    result: CoverResult, *, shape_cols: Sequence[str], metric: Metric
) -> tuple[tuple[str, Any], ...]:
    """Facts of the ``cover`` section; ``lower bound`` and ``gap`` when not exact."""
    shapes = (
        ", ".join(shape_cols) or "- (no shape columns: all rows are one shape; give -p)"
    )
    bound: tuple[tuple[str, Any], ...] = ()
    if result.method != "exact":
        share = result.gap / result.size if result.size else 0.0
        bound = (
            ("lower bound", result.lower_bound),
            ("gap", f"{result.gap} config{'s' * (result.gap != 1)} ({share:.1%})"),
        )
    no_run = int(result.unshared["config"].isna().sum())
    return (
        ("method", method_text(result)),
        ("configs", result.size),
        *bound,
        ("one per shape", result.baseline_size),
        ("shapes", len(result.assignment)),
        ("own config", len(result.unshared) - no_run),
        ("no successful run", no_run),
        ("tol", f"{result.tol:g} (ratio <= {1 + result.tol:g})"),
        ("shapes by", shapes),
        ("metric", f"{metric.column} ({metric.direction})"),
    )


def cover_sections(
    result: CoverResult, *, shape_cols: Sequence[str], metric: Metric
) -> list[Section]:
    """``cover`` (facts and configs), ``cover-assignment``, ``cover-unshared``."""
    from kprofile.core.cover import CONFIG  # start-up: --cover only

    used = np.bincount(
        result.assignment[CONFIG].to_numpy(dtype=np.int64), minlength=result.size
    )
    configs = result.configs.copy()
    configs.insert(0, CONFIG, np.arange(result.size))
    configs["shapes"] = used
    title = f"cover: fewest configs within {result.tol:g} of each shape's best"
    facts = cover_facts(result, shape_cols=shape_cols, metric=metric)
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
            "cover-unshared",
            "cover: shapes that share no config: their own best, or none",
            None,
            (),
            result.unshared,
        ),
    ]


def cover_entries(
    result: CoverResult, shape_cols: Sequence[str]
) -> list[dict[str, Any]]:
    """Manifest entries, one per shape in input order: its values, then its config's."""
    from kprofile.core.cover import CONFIG  # start-up: --cover only

    shapes = entries(result.assignment[list(shape_cols)])
    configs = entries(result.configs.iloc[result.assignment[CONFIG].to_numpy()])
    return [{**shape, **config} for shape, config in zip(shapes, configs)]


class CoverRequest(NamedTuple):
    data: Data
    tol: float  # each shape's config within 1 + tol of its best
    time_limit: float | None = COVER_TIME_LIMIT  # None: no limit
    loss_time_limit: float | None = COVER_LOSS_TIME_LIMIT


def run(request: CoverRequest) -> ModeResult:
    """``--cover TOL``: the fewest configs within TOL of each shape's best."""
    from kprofile.core.combine import combine  # start-up: the pooling modes only
    from kprofile.core.cover import cover  # start-up: --cover only

    data = request.data
    combined = combine(data.inputs, data.pivots)
    try:
        result = cover(
            combined.frame,
            shape_cols=combined.shape_cols,
            param_cols=combined.param_cols,
            metric=data.metric,
            tol=request.tol,
            time_limit=request.time_limit,
            loss_time_limit=request.loss_time_limit,
            progress=data.progress,
        )
    except KprofileError as exc:
        raise usage_error(f"--cover: {exc.message}") from None
    shapes = combined.shape_cols
    sections = cover_sections(result, shape_cols=shapes, metric=data.metric)
    pictures = () if data.charts is None else cover_pictures(result, shapes)
    entries = tuple(cover_entries(result, shapes))
    return ModeResult(tuple(sections), entries, pictures=pictures)


def cover_pictures(
    result: CoverResult, shape_cols: Sequence[str]
) -> tuple[Picture, ...]:
    """Each shape's ratio under the chosen configs; the tolerance as the gate."""
    import pandas as pd  # start-up: loaded by every run that covers

    assigned = result.assignment
    missing = result.unshared[result.unshared["config"].isna()]
    shapes = pd.concat([assigned[list(shape_cols)], missing[list(shape_cols)]],
                       ignore_index=True)  # fmt: skip
    ratio = np.r_[assigned["ratio"].to_numpy(dtype=np.float64),
                  np.full(len(missing), np.nan)]  # fmt: skip
    status = ["scored"] * len(assigned) + ["no successful run"] * len(missing)
    title = f"How far is each shape from its best with the {result.size} configs?"
    return tuple(shape_ratios_pictures(title, shapes, ratio, status,
                                       1.0 + result.tol))  # fmt: skip
