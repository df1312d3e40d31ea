"""One kprofile run: check the options, load, filter, combine repeated runs
(``--combine``), run the mode, hand what it selected to the sinks.

The mode (``kprofile.modes``) fills an ``Outcome`` with sections, the entries ``-o``
writes and the change ``--update`` makes; the sinks (``kprofile.sinks``) write them.
Printing and exit codes belong to ``kprofile.cli``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from typing import cast

from kprofile.core.defaults import DEFAULT_METRIC, Aggregate
from kprofile.core.metric import Metric, default_metric, resolve_metric
from kprofile.core.query import query_rows
from kprofile.core.runs import combine_runs
from kprofile.errors import PROG, KprofileError, usage_error
from kprofile.inputs.load import Results, load_inputs
from kprofile.modes import Mode, check_options
from kprofile.modes.noise import noise_sections
from kprofile.options import Options
from kprofile.outcome import NoUsableInput, Outcome
from kprofile.progress import SILENT, Progress
from kprofile.sinks.output import write_output
from kprofile.sinks.update import apply_update


def load(options: Options, progress: Progress = SILENT) -> tuple[Mode, Outcome]:
    """Check the options and load every input; unusable ones are kept in ``skipped``.
    ``progress`` hears about the loading and, through the outcome, the mode's steps."""
    mode = check_options(options)
    if options.update is not None and not os.path.exists(options.update):
        raise KprofileError(
            options.update,
            "--update: no such manifest; --update changes an existing one "
            "(-o PATH writes a new one)",
        )
    loaded, skipped = load_inputs(
        options.files, max_rows=options.max_rows, progress=progress
    )
    return mode, Outcome(loaded, skipped, progress=progress)


def run(options: Options, mode: Mode, outcome: Outcome) -> Outcome:
    """Run ``mode`` over ``outcome.inputs`` and write what was asked."""
    if not outcome.inputs:
        raise NoUsableInput(outcome.skipped)
    if mode.metric:
        if options.query:
            outcome.inputs = _filtered(outcome.inputs, options.query, outcome)
        if all(r.kind == "yaml" for r in outcome.inputs):
            raise usage_error(
                "spec and manifest YAMLs hold no measurements; use --merge, "
                "or pass .pkl/.csv results"
            )
        outcome.metric = _metric(options, outcome)
        if options.combine is not None:
            _combine(options, outcome, outcome.metric)
    mode.load()(options, outcome, outcome.metric)
    if outcome.runs is not None:
        outcome.sections += noise_sections(outcome.runs)
    if options.output:
        write_output(options.output, outcome.entries, outcome)
    if options.update is not None:
        report = apply_update(options, outcome)
        if mode.views:  # the change first; the per-file summaries only with -v
            outcome.sections = [*report, *(outcome.sections if options.verbose else [])]
        else:  # after the analysis that chose it (--ranges)
            outcome.sections += report
    return outcome


def _metric(options: Options, outcome: Outcome) -> Metric:
    """``-m`` as given (never second-guessed), else the default metric; a metric
    other than ``met (ms)`` chosen by default is said once on stderr."""
    frames = [r.frame for r in outcome.inputs]
    exclude = {r.row_key for r in outcome.inputs}
    higher = options.higher_is_better
    if options.metric is not None:
        return resolve_metric(frames, options.metric, higher=higher, exclude=exclude)
    metric, instead = default_metric(frames, higher=higher, exclude=exclude)
    if instead:
        outcome.note(
            f"{PROG}: no {DEFAULT_METRIC!r} column; metric {metric.column!r} "
            f"({metric.direction}); -m chooses another"
        )
    return metric


def _combine(options: Options, outcome: Outcome, metric: Metric) -> None:
    """``--combine``: the mode sees one input per shape, one row per config."""
    how = cast(Aggregate, options.combine)
    try:
        runs = combine_runs(
            outcome.inputs, pivots=options.pivots, metric=metric, how=how
        )
    except KprofileError as exc:
        raise usage_error(f"--combine: {exc.message}") from None
    outcome.runs = runs
    outcome.inputs = list(runs.parts)


def _filtered(inputs: Sequence[Results], query: str, outcome: Outcome) -> list[Results]:
    kept = []
    for results in inputs:
        frame = query_rows(results.frame, query, path=results.path)
        if frame.empty:
            outcome.note(
                f"{results.path}: no rows match --query {query!r}; file left out"
            )
        else:
            kept.append(dataclasses.replace(results, frame=frame))
    if not kept:
        raise usage_error(f"--query {query!r} matched no rows in any input")
    return kept
