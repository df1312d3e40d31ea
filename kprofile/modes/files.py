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
from collections.abc import Sequence
from typing import Any

import numpy as np

from kprofile.core.columns import common_shape_columns, split_by
from kprofile.core.metric import Metric, metric_values, rank_order
from kprofile.core.select import CommonConfig, best_row, common_config
from kprofile.core.values import records
from kprofile.inputs.load import Results
from kprofile.modes.views import (
    common_view,
    group_label,
    head_view,
    ratio_view,
    summary_view,
    tail_view,
)
from kprofile.options import Options
from kprofile.outcome import Outcome


def run(options: Options, outcome: Outcome, metric: Metric | None) -> None:
    assert metric is not None  # the mode table says this mode needs one
    pivots = options.pivots or common_shape_columns(outcome.inputs)
    for results in outcome.inputs:
        for part in split_by(results, options.pivots):
            _group(options, outcome, metric, part, pivots)


def _group(
    options: Options,
    outcome: Outcome,
    metric: Metric,
    part: Results,
    pivots: Sequence[str],
) -> None:
    group = group_label(part, options.pivots)
    outcome.sections.append(summary_view(part, metric, group=group))
    if options.ratio:
        outcome.sections.append(ratio_view(part, metric, group=group))
    if options.head is not None:
        outcome.sections.append(head_view(part, metric, options.head, group=group))
    if options.tail is not None:
        outcome.sections.append(tail_view(part, metric, options.tail, group=group))
    common = _common(options, outcome, metric, part, group)
    if options.output and options.write_selection:
        outcome.entries += _records(part, _selection(options, metric, part, common))
        return
    where = f"{part.path}{f' [{group}]' if group else ''}"
    config = chosen_config(part, metric, common)
    if config is None:
        sink = "-o" if options.output else "--update"
        if options.output or options.update is not None:
            outcome.note(f"{where}: no successful run; left out of {sink}")
        return
    if options.update is not None:
        outcome.upserts.append(_pivots_first(config, pivots))
    if options.output:
        outcome.entries.append(config)
        if common is not None:
            outcome.note(_measured_note(where, common))


def _common(
    options: Options, outcome: Outcome, metric: Metric, part: Results, group: str
) -> CommonConfig | None:
    common = None
    for kind, amount in (
        ("top", options.top),
        ("top-fraction", options.top_fraction),
        ("within", options.within),
    ):
        if amount is None:
            continue
        common = common_config(part, metric, kind=kind, amount=amount)
        outcome.sections += common_view(
            common, metric, kind=kind, amount=amount, group=group,
            verbose=options.verbose,
        )  # fmt: skip
    return common


def chosen_config(
    results: Results, metric: Metric, common: CommonConfig | None
) -> dict[str, Any] | None:
    """The one config a file (or ``-p`` group) stands for: the common config of
    ``--top``/``--top-fraction``/``--within`` if given, else the best entry; missing
    values left out.
    None when no run succeeded."""
    if common is not None:
        config = common.config if len(common.subset) else None
    else:
        best = best_row(results, metric)
        config = best.config() if best.position is not None else None
    if config is None:
        return None
    return {k: v for k, v in config.items() if v is not None}


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


def _selection(
    options: Options, metric: Metric, part: Results, common: CommonConfig | None
) -> np.ndarray:
    """Row positions of what --head, --tail, --top, --top-fraction or --within
    selected."""
    if common is not None:
        return np.sort(common.subset)
    order = rank_order(metric_values(part.frame, metric), metric)
    if options.head is not None:
        return np.sort(order[: options.head])
    assert options.tail is not None  # check_options: --write-selection needs a view
    return np.sort(order[max(len(order) - options.tail, 0) :])


def _records(results: Results, positions: np.ndarray) -> list[dict[str, Any]]:
    if not results.params or not len(positions):
        return []
    return records(results.frame.iloc[positions][list(results.params)])
