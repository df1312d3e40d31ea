"""``--score TABLE``: the handler, its gate (``--fail-above``), and the score sections
``--budget`` prints too: ``score`` (geomean, median, worst ratio, the shares within
2/5/10% and the shapes counted apart), ``score-worst`` (the worst shapes),
``score-unscored`` (shapes without a ratio: no entry, not measured, no successful run)
and with ``-v`` ``score-shapes`` (every shape). The analysis is
``kprofile.core.score`` with the dispatch rule of ``kprofile.core.dispatch``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pandas as pd

from kprofile.core.columns import end_column
from kprofile.core.metric import Metric
from kprofile.core.problems import problem
from kprofile.core.scorecols import (
    BEST,
    CONFIG,
    ENTRY,
    FAILED,
    KIND,
    NO_ENTRY,
    NO_RUN,
    NOT_MEASURED,
    RATIO,
    SCORED,
    STATUS,
    VALUE,
)
from kprofile.core.values import counted
from kprofile.errors import KprofileError, usage_error
from kprofile.inputs.load import Results
from kprofile.modes.gate import gate
from kprofile.modes.pictures_judged import shape_ratios_pictures
from kprofile.modes.request import Data
from kprofile.modes.result import ModeResult
from kprofile.render.section import Picture, Section
from tuning_codegen.errors import memory_named

if TYPE_CHECKING:
    from kprofile.core.measure import Measured
    from kprofile.core.score import Score, TableScore
    from tuning_codegen.manifest import Manifest

NO_SHAPES = "- (no shape columns: all rows are one shape; give -p)"


class ScoreRequest(NamedTuple):
    data: Data
    table: str  # the manifest judged
    sources: tuple[str, ...] = ()  # the result files, as the facts name them
    fail_above: float | None = None  # the gate: fail when the geomean is above it
    verbose: bool = False  # every shape's ratio too
    allow_failed: bool = False  # the gate: shapes without a run are not failures


def run(request: ScoreRequest) -> ModeResult:
    """``--score TABLE``: the table's ratios to each shape's best on the results."""
    from kprofile.core.score import score_table  # start-up: --score only
    from tuning_codegen.manifest import load_manifest  # start-up: YAML, --score only

    data, metric = request.data, request.data.metric
    with memory_named(request.table):  # a table within every limit, too big here
        table = load_manifest(request.table)
    measured = measured_results(data.inputs, data.pivots, metric, "--score")
    scored = score_table(table, measured, metric)
    head = (
        ("table", f"{table.path} ({counted(len(table.entries), 'entry', 'entries')})"),
        ("results", _paths(request.sources)),
    )
    tail = dispatch_facts(scored)
    failed = None
    if request.fail_above is not None:
        verdict, failed = gate(
            scored.score, request.fail_above, allow_failed=request.allow_failed
        )
        tail += (("fail above", verdict),)
    sections = score_sections(
        scored.score,
        title=f"score: {table.path} (each shape's ratio to its best)",
        chosen=entry_columns(table, measured, scored.score),
        metric=metric,
        head=head,
        tail=tail,
        verbose=request.verbose,
    )
    notes: tuple[str, ...] = ()
    if not scored.dispatch.keys:
        notes = (
            f"{table.path}: warning: no entry has a shape column "
            f"({', '.join(measured.shapes.columns) or 'none'}); the first entry "
            "serves every shape",
        )
    pictures: tuple[Picture, ...] = ()
    if data.charts is not None:
        pictures = score_pictures(scored.score, f"How far is {table.path} from each "
                                  "shape's best?", request.fail_above)  # fmt: skip
    return ModeResult(tuple(sections), failed=failed, notes=notes, pictures=pictures)


def score_pictures(
    score: Score, title: str, gate: float | None = None
) -> tuple[Picture, ...]:
    """Each shape's ratio under the table, the gate's line."""
    shapes = score.shapes
    columns = [c for c in shapes.columns if c not in _SCORE_COLUMNS]
    ratio = shapes[RATIO].to_numpy(dtype=np.float64)
    return tuple(shape_ratios_pictures(title, shapes[columns], ratio,
                                       shapes[STATUS].tolist(), gate))  # fmt: skip


def measured_results(
    inputs: Sequence[Results], pivots: Sequence[str], metric: Metric, flag: str
) -> Measured:
    """Every input as one table, reduced to one ratio per (shape, config). A shape
    holds the problem's fixed columns too: a table's entry for N=4096 is not the
    entry of results that all have N=8192."""
    from kprofile.core.combine import combine  # start-up: --score, --budget only
    from kprofile.core.measure import measure  # start-up: --score, --budget only

    combined = combine(inputs, problem(inputs, pivots).matched)
    try:
        return measure(
            combined.frame,
            shape_cols=combined.shape_cols,
            param_cols=combined.param_cols,
            metric=metric,
            failure=next((r.failure for r in inputs if r.failure), None),
        )
    except KprofileError as exc:
        raise usage_error(f"{flag}: {exc.message}") from None


def dispatch_facts(scored: TableScore) -> tuple[tuple[str, Any], ...]:
    """How the table's entries were matched to the shapes."""
    found = scored.dispatch
    keys = [
        f"{c} (ranges [{c}, {end_column(c)}))" if c in found.ranged else c
        for c in found.keys
    ]
    return (
        ("matched on", ", ".join(keys) or "- (no entry has a shape column)"),
        ("not matched on", ", ".join(found.unkeyed) or "-"),
        ("overlapping (first wins)", scored.overlapping),
        ("ignored keys", ", ".join(scored.ignored) or "-"),
    )  # fmt: skip


def entry_columns(table: Manifest, measured: Measured, score: Score) -> pd.DataFrame:
    """Per shape: the entry it dispatches to and that entry's parameter values."""
    params = [str(c) for c in measured.configs.columns]
    rows = [{c: e.values.get(c) for c in params} for e in table.entries]
    values = pd.DataFrame(rows, columns=params, index=range(len(rows)))
    entry = score.shapes[ENTRY].to_numpy(dtype=np.int64)
    return choices(values, ENTRY, entry, entry, score)


def choices(
    values: pd.DataFrame,
    name: str,
    ids: np.ndarray,
    labels: Sequence[int] | np.ndarray,
    score: Score,
) -> pd.DataFrame:
    """Per shape of ``score``: ``name`` (its ``labels``, -1 for none), then the row of
    ``values`` its id names (missing for an id ``values`` lacks, such as -1). Integer
    and boolean columns become pandas' nullable types, so 64 stays 64 where a row is
    missing."""
    nullable = {
        c: "Int64" if pd.api.types.is_integer_dtype(t) else "boolean"
        for c, t in values.dtypes.items()
        if pd.api.types.is_integer_dtype(t) or pd.api.types.is_bool_dtype(t)
    }
    chosen = values.astype(nullable).reindex(ids).reset_index(drop=True)
    chosen.insert(0, name, np.asarray(labels, dtype=np.int64))
    chosen.index = score.shapes.index
    return chosen


def score_sections(
    score: Score,
    *,
    title: str,
    chosen: pd.DataFrame,
    metric: Metric,
    head: tuple[tuple[str, Any], ...] = (),
    tail: tuple[tuple[str, Any], ...] = (),
    verbose: bool = False,
    notes: tuple[str, ...] = (),
) -> list[Section]:
    """``score``, ``score-worst``, ``score-unscored`` (and ``score-shapes`` with
    ``verbose``). ``chosen``: per shape (``score.shapes``' index), the columns that
    say what it was given (an entry and its parameters, or a config). ``head`` and
    ``tail``: the mode's own facts, before and after the summary."""
    shape_cols = [c for c in score.shapes.columns if c not in _SCORE_COLUMNS]
    rows = _shape_rows(score, shape_cols, chosen, metric)
    facts = head + score_facts(score, shape_cols, metric) + tail
    prefix = title.partition(":")[0]
    unscored = pd.concat([score.shapes[[STATUS, KIND]], rows], axis=1)
    unscored = _none_for_no_id(unscored[score.shapes[STATUS] != SCORED])
    worst = counted(len(score.worst), "worst shape", "worst shapes")
    out = [
        Section("score", title, None, facts, notes=notes),
        Section(
            "score-worst",
            f"{prefix}: the {worst}, highest ratio first",
            None,
            (),
            rows.loc[score.worst.index].reset_index(drop=True),
        ),
        Section(
            "score-unscored",
            f"{prefix}: shapes without a ratio (counted apart, never as 1.0)",
            None,
            (),
            unscored[[STATUS, KIND, *shape_cols, *chosen.columns]].reset_index(
                drop=True
            ),
        ),
    ]
    if verbose:
        every = pd.concat([rows, score.shapes[[STATUS]]], axis=1)
        title = f"{prefix}: every shape"
        out.append(
            Section("score-shapes", title, None, (), every.reset_index(drop=True))
        )
    return out


def _none_for_no_id(frame: pd.DataFrame) -> pd.DataFrame:
    """The entry or config id -1 (none) shown as nothing, as the parameters are."""
    ids = [c for c in (ENTRY, CONFIG) if c in frame.columns]
    return frame.assign(
        **{c: frame[c].astype("Int64").mask(frame[c].to_numpy() < 0) for c in ids}
    )


def _shape_rows(
    score: Score, shape_cols: list[str], chosen: pd.DataFrame, metric: Metric
) -> pd.DataFrame:
    """Per shape: its columns, what it was given, its metric, the best and the ratio."""
    rows = pd.concat([score.shapes[shape_cols], chosen], axis=1)
    rows[metric.column] = score.shapes[VALUE]
    rows[BEST] = score.shapes[BEST]
    rows[RATIO] = score.shapes[RATIO]
    return rows


_SCORE_COLUMNS = {STATUS, KIND, ENTRY, CONFIG, VALUE, BEST, RATIO}


def score_facts(
    score: Score, shape_cols: Sequence[str], metric: Metric
) -> tuple[tuple[str, Any], ...]:
    """The summary over the scored shapes, and the shapes counted apart."""
    total = len(score.shapes)
    bands = tuple(
        (f"within {b.tol:.0%}", _share(b.count, score.scored)) for b in score.bands
    )
    counted: list[tuple[str, Any]] = []
    if ENTRY in score.shapes.columns:
        counted.append((NO_ENTRY, score.no_entry))
    counted += [
        (FAILED, score.failed),
        (NOT_MEASURED, score.not_measured),
        (NO_RUN, score.no_run),
    ]
    return (
        ("shapes", total),
        ("scored", score.scored),
        ("geomean ratio", score.geomean),
        ("median ratio", score.median),
        ("worst ratio", score.worst_ratio),
        *bands,
        *counted,
        ("shapes by", ", ".join(shape_cols) or NO_SHAPES),
        ("metric", f"{metric.column} ({metric.direction})"),
    )


def _paths(paths: Sequence[str], shown: int = 3) -> str:
    more = len(paths) - shown
    return ", ".join(paths[:shown]) + (f" and {more} more" if more > 0 else "")


def _share(count: int, total: int) -> str:
    if not total:
        return f"{count} of {total}"
    return f"{count} of {total} ({count / total:.1%})"
