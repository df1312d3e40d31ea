"""One kprofile run: load, filter, compute the requested views, write what was asked.

Pure apart from the files it is told to write (``-o``, ``--update``, ``--diff`` CSVs,
``-c`` PNG, ``--plot`` PNGs); printing and exit codes belong to ``kprofile.cli``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kprofile.core.analysis import (
    CommonConfig,
    common_config,
    common_shape_columns,
    split_by,
)
from kprofile.errors import InvalidInput, KprofileError, usage_error
from kprofile.inputs.load import Results, load_inputs
from kprofile.manifest.write import Source, manifest_path, manifest_text
from kprofile.core.metric import Metric, metric_values, rank_order, resolve_metric
from kprofile.options import Options, check_combinations
from kprofile.render.section import Section
from kprofile.modes.views import (
    common_view,
    group_label,
    head_view,
    ratio_view,
    summary_view,
    tail_view,
)


class NoUsableInput(Exception):
    """Every input was skipped."""

    def __init__(self, skipped: Sequence[InvalidInput]) -> None:
        super().__init__(f"no usable input ({len(skipped)} skipped)")
        self.skipped = tuple(skipped)


@dataclass(eq=False)
class Outcome:
    inputs: list[Results] = field(default_factory=list)
    skipped: list[InvalidInput] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    metric: Metric | None = None
    written: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)  # for stderr


def load(options: Options) -> Outcome:
    """Check the options and load every input; unusable files are kept in ``skipped``."""
    check_combinations(options)
    if options.update is not None and not os.path.exists(options.update):
        raise KprofileError(
            options.update,
            "--update: no such manifest; --update changes an existing one (-o PATH writes a new one)",
        )
    loaded, skipped = load_inputs(options.files)
    return Outcome(loaded, skipped)


def run(options: Options, outcome: Outcome) -> Outcome:
    """Compute the views over ``outcome.inputs`` and write what was asked."""
    if not outcome.inputs:
        raise NoUsableInput(outcome.skipped)
    if options.mode == "merge":
        _merge(options, outcome)
        return outcome
    if options.query:
        outcome.inputs = _filtered(outcome.inputs, options.query, outcome)
    if all(r.kind == "yaml" for r in outcome.inputs):
        raise KprofileError(
            "kprofile",
            "spec and manifest YAMLs hold no measurements; use --merge, or pass .pkl/.csv results",
        )
    metric = resolve_metric(
        [r.frame for r in outcome.inputs],
        options.metric,
        higher=options.higher_is_better,
    )
    outcome.metric = metric
    if options.mode == "diff":
        _diff(options, outcome, metric)
    elif options.mode == "correlation":
        _correlation(options, outcome, metric)
    elif options.mode == "cover":
        _cover(options, outcome, metric)
    elif options.mode == "importance":
        _importance(options, outcome, metric)
    else:
        _views(options, outcome, metric)
    return outcome


def _filtered(inputs: Sequence[Results], query: str, outcome: Outcome) -> list[Results]:
    from kprofile.core.query import query_rows

    kept = []
    for results in inputs:
        frame = query_rows(results.frame, query, path=results.path)
        if frame.empty:
            outcome.messages.append(
                f"{results.path}: no rows match --query {query!r}; file left out"
            )
        else:
            kept.append(dataclasses.replace(results, frame=frame))
    if not kept:
        raise KprofileError(
            "kprofile", f"--query {query!r} matched no rows in any input"
        )
    return kept


def _views(options: Options, outcome: Outcome, metric: Metric) -> None:
    from kprofile.modes.update import chosen_config

    selected: list[dict[str, Any]] = []
    pivots = options.pivots or common_shape_columns(outcome.inputs)
    upserts: list[dict[str, Any]] = []
    for results in outcome.inputs:
        for part in split_by(results, options.pivots):
            common: CommonConfig | None = None
            group = group_label(part, options.pivots)
            outcome.sections.append(summary_view(part, metric, group=group))
            values = metric_values(part.frame, metric)
            chosen = _best_positions(values, metric)
            if options.ratio:
                outcome.sections.append(ratio_view(part, metric, group=group))
            if options.head is not None:
                outcome.sections.append(
                    head_view(part, metric, options.head, group=group)
                )
                chosen = rank_order(values, metric)[: options.head]
            if options.tail is not None:
                outcome.sections.append(
                    tail_view(part, metric, options.tail, group=group)
                )
                order = rank_order(values, metric)
                chosen = order[max(len(order) - options.tail, 0) :]
            for kind, amount in (("top", options.top), ("within", options.within)):
                if amount is None:
                    continue
                common = common_config(part, metric, **{kind: amount})
                outcome.sections += common_view(
                    common,
                    metric,
                    kind=kind,
                    amount=amount,
                    group=group,
                    verbose=options.verbose,
                )
                chosen = common.subset
            selected += _records(part, np.sort(chosen))
            if options.update is not None:
                config = chosen_config(part, metric, common, pivots)
                if config is None:
                    outcome.messages.append(
                        f"{part.path}{f' [{group}]' if group else ''}: no successful run; left out of --update"
                    )
                else:
                    upserts.append(config)
    if options.output:
        _write_manifest(options.output, selected, outcome)
    if options.update is not None:
        _update(
            options.update,
            upserts,
            pivots,
            outcome,
            dry_run=options.dry_run,
            explicit=bool(options.pivots),
        )


def _best_positions(values: np.ndarray, metric: Metric) -> np.ndarray:
    order = rank_order(values, metric)
    return order[:1]


def _records(results: Results, positions: np.ndarray) -> list[dict[str, Any]]:
    if not results.params or not len(positions):
        return []
    return results.frame.iloc[positions][list(results.params)].to_dict("records")


def _write_manifest(
    output: str, entries: list[dict[str, Any]], outcome: Outcome
) -> None:
    from hooks.textio import write_text_atomic

    if not entries:
        raise KprofileError(
            output,
            "-o: no entries selected (no parameter columns, or no successful run)",
        )
    first = outcome.inputs[0]
    sources = [Source(r.path, r.git_revision, r.datetime) for r in outcome.inputs]
    text = manifest_text(entries, name=first.name, file=first.file, sources=sources)
    path = manifest_path(output)
    try:
        write_text_atomic(path, text.text)
    except OSError as exc:
        raise KprofileError(path, f"cannot write: {exc.strerror or exc}") from None
    outcome.written.append(path)
    extra = (
        f"; {text.duplicates} duplicate entr{'y' if text.duplicates == 1 else 'ies'} dropped"
        if text.duplicates
        else ""
    )
    outcome.messages.append(
        f"wrote {path} ({len(text.entries)} entr{'y' if len(text.entries) == 1 else 'ies'}{extra})"
    )


def _merge(options: Options, outcome: Outcome) -> None:
    from kprofile.core.query import query_rows
    from kprofile.modes.merge import merge_inputs, merge_section, sort_rows

    merged = merge_inputs(outcome.inputs, options.pivots)
    table = merged.table
    if options.sort_pivots:
        table = sort_rows(table, options.sort_pivots)
    if options.query:
        table = query_rows(table, options.query)
    if table.empty:
        raise KprofileError(
            "kprofile",
            "--merge: the result is empty"
            + (f" after --query {options.query!r}" if options.query else ""),
        )
    merged = dataclasses.replace(merged, table=table)
    outcome.sections.append(merge_section(merged, [r.path for r in outcome.inputs]))
    if options.output:
        _write_manifest(options.output, table.to_dict("records"), outcome)


def _diff(options: Options, outcome: Outcome, metric: Metric) -> None:
    from kprofile.modes.diff import diff, write_tables

    result = diff(outcome.inputs, metric, options.pivots)
    written = write_tables(result.tables, options.out_dir)
    outcome.written += written
    outcome.sections.append(
        dataclasses.replace(result.section, notes=tuple(f"wrote {p}" for p in written))
    )


def _correlation(options: Options, outcome: Outcome, metric: Metric) -> None:
    from kprofile.modes.correlation import correlate, correlation_sections, write_heatmap

    result = correlate(outcome.inputs, metric)
    png = write_heatmap(result, options.out_dir, metric)
    outcome.written.append(png)
    outcome.sections += correlation_sections(result, metric, png)


def _update(
    path: str,
    selections: list[dict[str, Any]],
    pivots: Sequence[str],
    outcome: Outcome,
    *,
    dry_run: bool,
    explicit: bool,
) -> None:
    """Upsert into the manifest at ``path``: written atomically and only if it changes.
    Default pivots (not ``explicit``) that no manifest entry uses are dropped."""
    from hooks.diff import unified_diff
    from hooks.textio import read_text, write_text_atomic
    from kprofile.manifest.update import update_manifest
    from kprofile.modes.update import diff_section, manifest_pivots, update_section

    if not selections:
        raise KprofileError(
            path, "--update: no config to put in (no successful run in any input)"
        )
    text = read_text(path)
    unused: tuple[str, ...] = ()
    if not explicit:
        pivots, unused = manifest_pivots(text, path, pivots)
    result = update_manifest(text, selections, pivots=pivots, path=path)
    changed = result.text != text
    if dry_run:
        state = (
            "dry run: nothing written" if changed else "dry run: nothing would change"
        )
    else:
        state = "updated" if changed else "nothing to change: not rewritten"
    outcome.sections.append(
        update_section(result, path=path, pivots=pivots, state=state, unused=unused)
    )
    if dry_run:
        if changed:
            outcome.sections.append(
                diff_section(path, unified_diff(text, result.text, path, path))
            )
        return
    if changed:
        try:
            write_text_atomic(path, result.text)
        except OSError as exc:
            raise KprofileError(path, f"cannot write: {exc.strerror or exc}") from None
        outcome.written.append(path)
        outcome.messages.append(f"updated {path}")


def _cover(options: Options, outcome: Outcome, metric: Metric) -> None:
    from kprofile.core.combine import combine
    from kprofile.modes.cover import AnalysisInputError, cover
    from kprofile.modes.cover_view import cover_entries, cover_sections

    assert options.cover is not None
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
    if options.output:
        _write_manifest(
            options.output, cover_entries(result, combined.shape_cols), outcome
        )


def _importance(options: Options, outcome: Outcome, metric: Metric) -> None:
    from kprofile.core.combine import combine
    from kprofile.modes.importance import AnalysisInputError, importance, plot_importance
    from kprofile.modes.importance_view import importance_sections

    combined = combine(outcome.inputs, options.pivots)
    try:
        result = importance(
            combined.frame,
            shape_cols=combined.shape_cols,
            param_cols=combined.param_cols,
            metric=metric.column,
            lower_is_better=not metric.higher_is_better,
        )
    except AnalysisInputError as exc:
        raise usage_error(f"--importance: {exc}") from None
    written: list[str] = []
    if options.plot is not None:
        try:
            written = [str(p) for p in plot_importance(result, options.plot)]
        except OSError as exc:
            raise KprofileError(
                options.plot, f"--plot: cannot write: {exc.strerror or exc}"
            ) from None
    outcome.written += written
    outcome.sections += importance_sections(
        result, shape_cols=combined.shape_cols, metric=metric, written=written
    )
