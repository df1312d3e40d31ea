"""``--ranges COL``: the handler, and its sections: ``ranges`` (facts, one row per group
and the summary line), one ``ranges-group`` per group (its ranges and their configs)
and ``ranges-skipped`` (points where nothing ran, rows with no value of the range
column). The analysis is ``kprofile.core.ranges``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import pandas as pd

from kprofile.core.columns import end_column
from kprofile.core.defaults import RANGES_TOL
from kprofile.core.metric import Metric
from kprofile.core.problems import problem
from kprofile.core.values import counted, entry, shape_label
from kprofile.manifest.change import GroupRanges, RangeReplacement, RangeTable
from kprofile.modes.pictures_judged import ranges_pictures
from kprofile.modes.request import Data, origin_of
from kprofile.modes.result import ModeResult
from kprofile.render.section import Section

if TYPE_CHECKING:
    from kprofile.core.ranges import RangedGroup
    from kprofile.core.sweep import Sweep

TIES = "lowest worst ratio, then earliest configs"


class RangesRequest(NamedTuple):
    data: Data
    column: str  # the range column (COL of --ranges COL)
    tol: float = RANGES_TOL
    range_end: int | float | None = None  # where each group's last range ends


def run(request: RangesRequest) -> ModeResult:
    """``--ranges COL``: sections per group, entries for ``-o`` and ``--update``."""
    from kprofile.core.ranges import ranged_groups  # start-up: --ranges only

    data = request.data
    found = problem(data.inputs, data.pivots)
    result = ranged_groups(
        data.inputs,
        column=request.column,
        pivots=found.matched,  # a group is the problem: N, K held fixed too
        metric=data.metric,
        tol=request.tol,
        range_end=request.range_end,
        progress=data.progress,
    )
    sections = ranges_sections(
        result.groups,
        result.sweep,
        column=result.column,
        group_cols=result.group_cols,
        tol=result.tol,
        metric=data.metric,
    )
    groups = tuple(GroupRanges(g.group.values, g.entries) for g in result.groups)
    table = RangeTable(
        result.column, result.group_cols, groups, end_column(result.column)
    )
    entries = tuple(entry(e) for e in result.entries)
    change = RangeReplacement(table, origin_of(data.inputs, found))
    pictures = () if data.charts is None else tuple(ranges_pictures(result))
    return ModeResult(tuple(sections), entries, change, pictures=pictures)


def ranges_sections(
    ranged: Sequence[RangedGroup],
    sweep: Sweep,
    *,
    column: str,
    group_cols: Sequence[str],
    tol: float,
    metric: Metric,
) -> list[Section]:
    """The ``ranges`` section, a ``ranges-group`` per group, then ``ranges-skipped``."""
    entries = sum(len(r.ranges) for r in ranged)
    points = sum(len(r.group.points) for r in ranged)
    groups_by = ", ".join(group_cols) or "- (one group: no other shape column; give -p)"
    facts: tuple[tuple[str, Any], ...] = (
        ("entries", entries),
        ("one per point", points),
        ("groups", len(ranged)),
        ("tol", f"{tol:g} (ratio <= {1 + tol:g})"),
        ("range column", f"{column}, ends in {end_column(column)} (exclusive)"),
        ("groups by", groups_by),
        ("ties", TIES),
        ("metric", f"{metric.column} ({metric.direction})"),
        ("skipped", len(sweep.skipped)),
    )
    summary = (
        f"{counted(entries, 'entry', 'entries')} with ranges, against {points} "
        "with one entry per point"
    )
    title = f"ranges: fewest {column} ranges within {tol:g} of each point's best"
    table = _groups_table(ranged, group_cols)
    out = [Section("ranges", title, None, facts, table, notes=(summary,))]
    out += [_group_section(r, sweep, column, tol) for r in ranged]
    out.append(
        Section(
            "ranges-skipped",
            f"ranges: left out (no successful run, or no {column} value)",
            None,
            (),
            sweep.skipped,
        )
    )
    return out


def _groups_table(
    ranged: Sequence[RangedGroup], group_cols: Sequence[str]
) -> pd.DataFrame:
    table = pd.DataFrame([r.group.values for r in ranged], columns=list(group_cols))
    table["points"] = [len(r.group.points) for r in ranged]
    table["ranges"] = [len(r.ranges) for r in ranged]
    table["worst"] = [float(r.ranges.worst.max()) for r in ranged]
    return table


def _group_section(item: RangedGroup, sweep: Sweep, column: str, tol: float) -> Section:
    from kprofile.core.ranges import borderline  # start-up: --ranges only

    group, ranges = item.group, item.ranges
    end = end_column(column)
    table = pd.DataFrame(
        {
            column: [e[column] for e in item.entries],
            end: [e[end] for e in item.entries],
            "points": (ranges.stops - ranges.starts).tolist(),
        }
    )
    configs = sweep.configs.loc[group.configs[ranges.configs]].reset_index(drop=True)
    table = pd.concat([table, configs], axis=1)
    table["worst"] = ranges.worst
    table["borderline"] = borderline(ranges, group.points, tol)
    label = shape_label(group.values) or "all rows"
    facts = (
        *group.values.items(),
        ("points", len(group.points)),
        ("ranges", len(ranges)),
        ("worst", float(ranges.worst.max())),
    )
    return Section("ranges-group", f"ranges: {label}", None, facts, table)
