"""The default mode: per-file (or per ``-p`` group) views, and the config each selects.

For every file, or every group of rows with the same ``-p`` values, it reports the
summary and the views asked for (``--ratio``, ``--head``, ``--tail``, ``--top``,
``--top-fraction``, ``--within``), and selects what the sinks write: one config per
group (the best entry, or the common config of ``--top``, ``--top-fraction`` or
``--within``) for ``-o`` and ``--update``, or with
``-o --write-selection`` the rows the view selected.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kprofile.core.columns import (
    Grouping,
    common_shape_columns,
    group_rows,
    varying,
)
from kprofile.core.metric import Metric
from kprofile.core.ranked import rank_groups
from kprofile.core.select import CommonConfig
from kprofile.core.summary import Summary, summaries
from kprofile.core.values import entries, entry
from kprofile.inputs.load import Results
from kprofile.modes import given_views
from kprofile.modes.views import Builder, Groups, ViewResult, summary_view
from kprofile.options import Options
from kprofile.outcome import Outcome, Upserts


def run(options: Options, outcome: Outcome, metric: Metric | None) -> None:
    assert metric is not None  # the mode table says this mode needs one
    pivots = options.pivots or common_shape_columns(outcome.inputs)
    configs: list[dict[str, Any]] = []
    views: list[tuple[Builder, Any]] = [
        (v.load(), getattr(options, v.attribute)) for v in given_views(options)
    ]
    for results in outcome.inputs:
        if not options.pivots:
            _note_shapes(outcome, results)
        grouping = group_rows(results, options.pivots)
        found = summaries(grouping, metric)
        built = _views(grouping, metric, views, verbose=options.verbose)
        selected: list[np.ndarray] = []
        with outcome.progress(f"views of {results.path}", len(found)) as advance:
            for g, summary in enumerate(found):
                shown = [view(g) for view in built]
                grouped = (grouping, g, summary)
                configs += _group(options, outcome, metric, grouped, shown, selected)
                advance(1)
        if selected:
            outcome.entries += _records(results, np.concatenate(selected))
    outcome.change = Upserts(tuple(_pivots_first(c, pivots) for c in configs), pivots)


def _note_shapes(outcome: Outcome, results: Results) -> None:
    """Say when a file holds several shapes and no ``-p`` splits them: its views (and
    an ``-o`` entry) then mix the shapes. kbench marks the shape's parameters as
    runtime ones (``$M=256``)."""
    shape = varying(results, results.runtime)
    if shape:
        outcome.note(
            f"{results.path}: the runtime parameters {', '.join(shape)} vary, so it "
            f"holds several shapes; -p {','.join(shape)} shows each on its own"
        )


def _views(
    grouping: Grouping,
    metric: Metric,
    views: Sequence[tuple[Builder, Any]],
    *,
    verbose: bool,
) -> list[Callable[[int], ViewResult]]:
    """Each view of every group (``views``: builders and their flags' values), what
    the groups share computed once: a function of the group per view."""
    if not views:
        return []
    groups = Groups(rank_groups(grouping, metric))
    return [build(groups, amount, verbose=verbose) for build, amount in views]


def _group(
    options: Options,
    outcome: Outcome,
    metric: Metric,
    grouped: tuple[Grouping, int, Summary],
    shown: Sequence[ViewResult],
    selected: list[np.ndarray],
) -> list[dict[str, Any]]:
    """Append group ``g``'s sections (and its entries for ``-o``, or with
    ``--write-selection`` the rows it selected to ``selected``); the config it stands
    for, for ``--update`` (none when no run succeeded). ``shown``: each view's result
    for the group."""
    grouping, g, summary = grouped
    group = grouping.label(g)
    results = grouping.results
    outcome.sections.append(summary_view(results, metric, group=group, summary=summary))
    rows: np.ndarray | None = None
    common: CommonConfig | None = None
    for result in shown:
        outcome.sections += result.sections
        rows = result.rows if result.rows is not None else rows
        common = result.common or common
    if options.output and options.write_selection:
        assert rows is not None  # check_options: --write-selection needs a view
        selected.append(np.sort(rows))
        return []
    where = f"{results.path}{f' [{group}]' if group else ''}"
    config = chosen_config(summary, common)
    if config is None:
        sink = "-o" if options.output else "--update"
        if options.output or options.update is not None:
            outcome.note(f"{where}: no successful run; left out of {sink}")
        return []
    if options.output:
        outcome.entries.append(config)
        if common is not None:
            outcome.note(_measured_note(where, common))
    return [config]


def chosen_config(
    summary: Summary, common: CommonConfig | None
) -> dict[str, Any] | None:
    """The one config a file (or ``-p`` group) stands for: the common config of
    ``--top``/``--top-fraction``/``--within`` if given, else the best entry; missing
    values left out.
    None when no run succeeded."""
    if common is not None:
        config = common.config if len(common.subset) else None
    else:
        config = summary.config if summary.best is not None else None
    return None if config is None else entry(config)


def _pivots_first(config: dict[str, Any], pivots: Sequence[str]) -> dict[str, Any]:
    ordered = {p: config[p] for p in pivots if p in config}
    ordered.update((k, v) for k, v in config.items() if k not in ordered)
    return ordered


def _measured_note(where: str, common: CommonConfig) -> str:
    """What -o says about a common config: its ratio, or that it never ran."""
    if common.measured is None:
        return (
            f"{where}: warning: the common config was never benchmarked; "
            "-o writes it unmeasured"
        )
    if math.isnan(common.ratio):
        return f"{where}: warning: the common config was measured, but its run failed"
    return f"{where}: the common config was measured: ratio {common.ratio:.3f}"


def _records(results: Results, positions: np.ndarray) -> list[dict[str, Any]]:
    if not results.params or not len(positions):
        return []
    return entries(results.frame.iloc[positions][list(results.params)])
