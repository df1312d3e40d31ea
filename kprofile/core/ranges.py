"""``--ranges COL``, the analysis: the fewest ``[COL, COL_END)`` ranges per group that
keep one config within tolerance at every swept value of ``COL``.

The groups are ``-p`` (default: the shape columns of ``kprofile.core.combine`` but
``COL``); the configs are the other parameter columns. ``kprofile.core.sweep`` turns the
rows into one ratio matrix per group and ``kprofile.core.partition`` partitions it
exactly (``ranged_groups`` does both).
Each range becomes one manifest entry: the group's values, ``COL`` (the range's first
point), ``COL_END`` (exclusive: the next range's first point; for the last range its
last point + 1, or ``--range-end``) and the config's parameters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kprofile.core.columns import end_column
from kprofile.core.combine import combine
from kprofile.core.metric import Metric, within_tolerance
from kprofile.core.partition import Partition, partition
from kprofile.core.sweep import Sweep, SweepGroup, build_sweep
from kprofile.core.values import plain, value_label
from kprofile.errors import KprofileError, column_list, usage_error
from kprofile.inputs.load import Results
from kprofile.progress import SILENT, Progress


@dataclass(frozen=True, eq=False)
class RangedGroup:
    """One group's sweep, its partition and the manifest entries it makes."""

    group: SweepGroup
    ranges: Partition
    entries: tuple[dict[str, Any], ...]


@dataclass(frozen=True, eq=False)
class RangesResult:
    """Every group's ranges over one sweep, and what they were computed with."""

    sweep: Sweep
    groups: tuple[RangedGroup, ...]
    column: str
    group_cols: tuple[str, ...]
    tol: float

    @property
    def entries(self) -> list[dict[str, Any]]:
        """The manifest entries of every range, group by group."""
        return [entry for group in self.groups for entry in group.entries]


def ranged_groups(
    inputs: Sequence[Results],
    *,
    column: str,
    pivots: Sequence[str],
    metric: Metric,
    tol: float,
    range_end: float | None,
    progress: Progress = SILENT,
) -> RangesResult:
    """Combine ``inputs``, sweep ``column`` per group of ``pivots`` (``column`` left
    out of them) and partition each group's points into the fewest ranges."""
    column = range_column(column, inputs)
    group_cols = tuple(c for c in pivots if c != column)
    combined = combine(inputs, (*group_cols, column))
    end = end_column(column)
    if end in (*group_cols, *combined.param_cols):
        raise usage_error(f"--ranges: {end} is already a column of the input")
    try:
        sweep = build_sweep(
            combined.frame,
            column=column,
            group_cols=group_cols,
            param_cols=combined.param_cols,
            metric=metric,
            tol=tol,
        )
    except KprofileError as exc:
        raise usage_error(f"--ranges: {exc.message}") from None
    check_range_end(sweep, column, range_end)
    groups = []
    with progress("ranges: partitioning each group", len(sweep.groups)) as advance:
        for group in sweep.groups:
            groups.append(_ranged(group, sweep, column, range_end))
            advance(1)
    return RangesResult(sweep, tuple(groups), column, group_cols, tol)


def range_column(name: str, inputs: Sequence[Results]) -> str:
    """``name`` if it is a parameter column of some input, else a usage error."""
    column = name.strip()
    params = list(dict.fromkeys(p for r in inputs for p in r.params))
    if column not in params:
        raise usage_error(
            f"--ranges: no parameter column {column!r}; "
            f"{column_list(params, 'parameter columns')}"
        )
    return column


def check_range_end(sweep: Sweep, column: str, range_end: float | None) -> None:
    """``--range-end`` must lie beyond every point; without it the points must be whole
    numbers (the last range then ends at its last point + 1)."""
    if not sweep.groups:
        return
    largest = max(g.points[-1] for g in sweep.groups)
    if range_end is None:
        if not sweep.integral:
            raise usage_error(
                f"--ranges: {column} has values that are not whole numbers, so the "
                "last range has no natural end; give it with --range-end VALUE"
            )
        return
    if not range_end > largest:
        raise usage_error(
            f"--range-end {value_label(range_end)} must be greater than every "
            f"{column} (the largest is {value_label(largest)})"
        )


def _ranged(
    group: SweepGroup, sweep: Sweep, column: str, range_end: float | None
) -> RangedGroup:
    ranges = partition(group.ratio)
    points = group.points
    last = points[-1] + 1 if range_end is None else range_end
    firsts = points[ranges.starts].tolist()
    ends = [*points[ranges.stops[:-1]].tolist(), plain(last)]
    params = sweep.configs.loc[group.configs[ranges.configs]].to_dict("records")
    end = end_column(column)
    entries = tuple(
        {
            **group.values,
            column: first,
            end: stop,
            **{str(k): plain(v) for k, v in config.items() if plain(v) is not None},
        }
        for first, stop, config in zip(firsts, ends, params)
    )
    return RangedGroup(group, ranges, entries)


def borderline(ranges: Partition, points: np.ndarray, tol: float) -> list[str]:
    """Per range, its points whose ratio is above half the tolerance (not within
    ``tol / 2`` by the tolerance rule): ``96, 112``."""
    above = ~within_tolerance(ranges.ratios, tol / 2)
    out = []
    for start, stop in zip(ranges.starts.tolist(), ranges.stops.tolist()):
        hits = points[start:stop][above[start:stop]]
        out.append(", ".join(value_label(v) for v in hits.tolist()))
    return out
