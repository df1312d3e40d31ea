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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from kprofile.core.columns import (
    Grouping,
    frame_shape_label,
    group_rows,
    row_label,
    varying,
)
from kprofile.core.defaults import Closeness
from kprofile.core.metric import Metric
from kprofile.core.problems import problem, shape_keys
from kprofile.core.summary import Summary, summaries
from kprofile.core.values import entries, entry
from kprofile.errors import Notice
from kprofile.inputs.load import Results
from kprofile.manifest.change import Entry, Upserts
from kprofile.modes.pictures import shape_pictures
from kprofile.modes.request import Data, origin_of
from kprofile.modes.rerun import Rerun, keep_rule, rerun_spec
from kprofile.modes.result import ModeResult
from kprofile.modes.shapes import shapes_pictures_of, shapes_section
from kprofile.modes.views import Builder, Groups, ViewResult, summary_view
from kprofile.render.section import Section

if TYPE_CHECKING:
    from kprofile.core.runs import CombinedRuns
    from kprofile.core.select import CommonConfig


class FilesRequest(NamedTuple):
    data: Data  # pivots: the -p groups (none: each file is one)
    views: tuple[tuple[Builder, Any], ...] = ()  # each view asked for, and its value
    verbose: bool = False
    sink: str | None = None  # "-o" or "--update": where each group's config goes
    rows: bool = False  # -o --write-selection: the rows the views select instead
    keep: Closeness | None = None  # --update --keep-within
    rerun: Rerun | None = None  # --rerun: the spec of the contenders
    runs: CombinedRuns | None = None  # --combine's runs: their noise


@dataclass
class _Made:
    """What the groups of every file add up to, in the order they are shown."""

    sections: list[Section] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    configs: list[Entry] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def run(request: FilesRequest) -> ModeResult:
    data = request.data
    made = _Made()
    pivots = _groups_by(request)
    groupings: dict[int, Grouping] = {}
    for i, results in enumerate(data.inputs):
        grouping = group_rows(results, pivots)
        if pivots and pivots == tuple(data.pivots):
            groupings[i] = grouping  # by the shape's columns: the per-shape view's
        found = summaries(grouping, data.metric)
        built = _views(grouping, data.metric, request)
        selected: list[np.ndarray] = []
        with data.progress(f"views of {results.path}", len(found)) as advance:
            for g, summary in enumerate(found):
                shown = [view(g) for view in built]
                _group(request, made, (grouping, g, summary), shown, selected)
                advance(1)
        if selected:
            made.entries += _records(results, np.concatenate(selected))
    made.notes += _whole_file_notes(request)
    shapes = shapes_section(data, groupings)
    if shapes is not None:
        made.sections.append(shapes)
    shape = problem(data.inputs, data.pivots)
    change = Upserts(
        tuple(_pivots_first(c, shape.matched) for c in made.configs),
        shape.matched,
        origin_of(data.inputs, shape),
        shape.fixed,
        None if request.keep is None else keep_rule(data, request.runs, request.keep),
    )
    spec = None
    if request.rerun is not None:
        spec, section = rerun_spec(data, request.runs, request.rerun)
        made.sections.append(section)
    pictures, drawn = shape_pictures(data) if data.charts is not None else ((), ())
    if shapes is not None and data.charts is not None:
        keys = shape_keys(data.inputs, data.pivots)
        pictures = (*shapes_pictures_of(shapes, keys), *pictures)
    return ModeResult(
        tuple(made.sections),
        tuple(made.entries),
        change,
        notes=(*made.notes, *drawn),
        pictures=pictures,
        rerun=spec,
    )


def _groups_by(request: FilesRequest) -> tuple[str, ...]:
    """The columns each file is split by: ``-p``; for ``--update``, which matches one
    config per shape, the shapes every mode finds (``shape_keys``) without it too.
    Otherwise none, as Modular's kprofile: one summary (and ``-o`` entry) per file."""
    data = request.data
    if data.pivots or request.sink != "--update":
        return tuple(data.pivots)
    shape = shape_keys(data.inputs)  # those that vary: a file of one shape stays whole
    return tuple(p for p in shape if any(varying(r, (p,)) for r in data.inputs))


FAR = 1.10  # a written common config slower than this times the best: a warning


def _views(
    grouping: Grouping, metric: Metric, request: FilesRequest
) -> list[Callable[[int], ViewResult]]:
    """Each view of every group, what the groups share computed once: a function of
    the group per view."""
    if not request.views:
        return []
    from kprofile.core.ranked import rank_groups  # start-up: the views only

    groups = Groups(rank_groups(grouping, metric))
    verbose = request.verbose
    return [build(groups, value, verbose=verbose) for build, value in request.views]


def _group(
    request: FilesRequest,
    made: _Made,
    grouped: tuple[Grouping, int, Summary],
    shown: Sequence[ViewResult],
    selected: list[np.ndarray],
) -> None:
    """Group ``g``'s sections, and what it selects: its config (for ``-o`` and
    ``--update``; none when no run succeeded), or with ``--write-selection`` the
    rows its view selected (to ``selected``). ``shown``: each view's result for the
    group."""
    grouping, g, summary = grouped
    group = grouping.label(g)
    results = grouping.results
    made.sections.append(
        summary_view(results, request.data.metric, group=group, summary=summary)
    )
    rows: np.ndarray | None = None
    common: CommonConfig | None = None
    for result in shown:
        made.sections += result.sections
        rows = result.rows if result.rows is not None else rows
        common = result.common or common
    if request.rows:
        assert rows is not None  # check_options: --write-selection needs a view
        selected.append(np.sort(rows))
        return
    where = f"{results.path}{f' [{group}]' if group else ''}"
    config = chosen_config(summary, common)
    if config is None:
        if request.sink is not None:
            where = _whole_shape(grouping, g, request.data) or where
            made.notes.append(f"{where}: no successful run; left out of {request.sink}")
        return
    if request.sink == "-o":
        made.entries.append(config)
        if common is not None:
            made.notes.append(_measured_note(where, common))
    elif request.sink is not None and common is not None and _far(common):
        made.notes.append(_measured_note(where, common))
    made.configs.append(config)


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


def _whole_file_notes(request: FilesRequest) -> list[str]:
    """``-o`` without ``-p`` writes one entry per file, as Modular's kprofile does:
    where a file holds several shapes, a line that says so and names the ``-p``
    that writes one per shape."""
    data = request.data
    if request.sink != "-o" or data.pivots:
        return []
    shape = shape_keys(data.inputs)
    return [
        f"{r.path}: note: -o writes one entry for the whole file, its best over all "
        f"its shapes; -p {','.join(shape)} writes one per shape"
        for r in data.inputs
        if varying(r, shape)
    ]


def _whole_shape(grouping: Grouping, g: int, data: Data) -> str | None:
    """``path [M=32/N=64/K=64]``: group ``g`` named by every column of the problem,
    those the grouping left out because no input varies them (K) included; None
    when the group is the whole file."""
    if not grouping.values[g]:
        return None
    frame = grouping.part(g).frame
    named = [c for c in shape_keys(data.inputs, data.pivots) if c in frame.columns]
    return f"{grouping.results.path} [{frame_shape_label(frame, named)}]"


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
    if _far(common):
        return (
            f"{where}: warning: the common config is {common.ratio:.3f}x the best "
            f"(its run: {row_label(common.results, common.measured)}; warned above "
            f"{FAR:.2f}x); a smaller --top/--within, or none (the best entry), "
            "gives a closer one"
        )
    return Notice(f"{where}: the common config was measured: ratio {common.ratio:.3f}")


def _far(common: CommonConfig) -> bool:
    """Whether a measured common config is so far from the best that writing it
    deserves a warning (a failed or unmeasured one has its own)."""
    return common.measured is not None and common.ratio > FAR


def _records(results: Results, positions: np.ndarray) -> list[dict[str, Any]]:
    if not results.params or not len(positions):
        return []
    return entries(results.frame.iloc[positions][list(results.params)])
