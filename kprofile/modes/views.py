"""The per-file views that list entries (``--ratio``, ``--head``, ``--tail``), the
summary every file or group gets, and what every view shares: data in, sections and
what each selects out (the common-config views are ``views_common``).

Every view named in ``kprofile.modes.VIEWS`` is a ``Builder``: a file's groups
(``Groups``: each ``-p`` group, or the whole file) and the flag's value in, and out
a function that gives group ``g``'s ``ViewResult``. What can be computed for all
groups at once is, before (rank orders, subsets, common configs: ``core.ranked``,
``core.select.common_configs``); each group then costs its sections, built as
``Table``s of numpy arrays and lists, never a pandas object per group.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pandas as pd

from kprofile.core.columns import Grouping
from kprofile.core.metric import Metric
from kprofile.core.scorecols import STATUS
from kprofile.core.summary import Summary, summary_of
from kprofile.core.values import shape_label
from kprofile.inputs.load import Results
from kprofile.render.section import Column, Section, Table, series_values

if TYPE_CHECKING:
    from kprofile.core.ranked import Ranked
    from kprofile.core.select import CommonConfig

RATIO = "ratio"
_TEXT = np.dtype(object)  # names and values: shown as they are, left-aligned
_FLOAT = np.dtype(np.float64)


@dataclass(frozen=True, eq=False)
class ViewResult:
    """A view's sections for one group; the rows it selects (positions in the file,
    best first), if it selects rows; and the common config it chose, if it chooses
    one."""

    sections: list[Section]
    rows: np.ndarray | None = None
    common: CommonConfig | None = None


@dataclass(frozen=True, eq=False)
class Groups:
    """What the views of one file need, computed once for all its ``-p`` groups (the
    whole file is one group without ``-p``): each group ranked, and the columns of
    the entries tables as the values their cells show."""

    ranked: Ranked
    columns: dict[str, tuple[np.ndarray, Any]] = field(default_factory=dict)

    @property
    def grouping(self) -> Grouping:
        return self.ranked.grouping

    @property
    def results(self) -> Results:
        return self.ranked.grouping.results

    @property
    def metric(self) -> Metric:
        return self.ranked.metric

    @cached_property
    def labels(self) -> list[str]:
        return [self.grouping.label(g) for g in range(len(self.grouping))]

    def title(self, g: int, what: str) -> str:
        return section_title(self.results, self.labels[g], what)

    def column(self, name: str, rows: np.ndarray) -> tuple[Column, Any]:
        """Column ``name`` of the file at ``rows``, and its dtype."""
        if name not in self.columns:
            self.columns[name] = _as_array(self.results.frame[name])
        values, dtype = self.columns[name]
        return values[rows], dtype


def _as_array(column: pd.Series) -> tuple[np.ndarray, Any]:
    """A column as a numpy array (its own when that is numbers, else its values as
    objects: see ``Table``), and its dtype."""
    values = series_values(column)
    if not isinstance(values, np.ndarray):
        array = np.empty(len(values), dtype=object)
        array[:] = values
        values = array
    return values, column.dtype


class Builder(Protocol):
    """A view of every group of a file: what the groups share is computed when it is
    called, and the function it returns makes group ``g``'s ``ViewResult``."""

    def __call__(
        self, groups: Groups, amount: Any, /, *, verbose: bool
    ) -> Callable[[int], ViewResult]: ...


def summary_view(
    results: Results,
    metric: Metric,
    *,
    group: str = "",
    summary: Summary | None = None,
) -> Section:
    """Entries, best mesh_idx, worst and best metric, worst/best (best/worst for a
    higher-is-better metric), shape, best config.
    ``summary``: the group's, when the caller computed every group's at once."""
    found = summary_of(results, metric) if summary is None else summary
    shape = shape_label(found.shape)
    facts: list[tuple[str, object]] = [
        ("entries", found.entries),
        ("failed", found.failed),
    ]
    if found.failed_by is not None:  # kbench's record of failures was read
        facts += [(f"failed {kind}", n) for kind, n in found.failed_by.items()]
    if found.best is None:
        return Section(
            "summary",
            section_title(results, group),
            results.path,
            tuple(facts + [("shape", shape or "-")]),
            notes=("every run failed: no best entry",),
        )
    what, name = found.best_row
    facts += [
        (f"best {what}", name),
        (f"worst {metric.column}", found.worst_value),
        (f"best {metric.column}", found.best_value),
        (metric.quotient("worst", "best"), found.worst_ratio),
        ("shape", shape or "-"),
    ]
    tuning = found.tuning
    table = None
    if tuning:
        config = [found.config[p] for p in tuning]
        table = Table(("parameter", "value"), (list(tuning), config), (_TEXT, _TEXT))
    notes: tuple[str, ...] = ()
    if found.best_spec is not None:
        notes = (f"best spec: {found.best_spec}",)
    return Section(
        "summary",
        section_title(results, group),
        results.path,
        tuple(facts),
        table,
        notes=notes,
    )


def entries_table(groups: Groups, g: int, rows: np.ndarray) -> Table:
    """The row key (mesh_idx, or a CSV's line), the parameters that vary in group
    ``g``, metric and ratio to the group's best, for ``rows`` of the file (that
    order)."""
    results, metric = groups.results, groups.metric
    rows = np.asarray(rows, dtype=np.intp)
    data = {
        c: groups.column(c, rows)
        for c in [results.row_key, *groups.grouping.varying_in(g)]
    }
    data[metric.column] = (groups.ranked.values[rows], _FLOAT)  # in its place
    data[RATIO] = (groups.ranked.ratios(rows), _FLOAT)
    if (status := groups.ranked.statuses(rows)) is not None:  # a failed run's kind
        data[STATUS] = (status, _TEXT)
    return Table(
        tuple(data),
        tuple(values for values, _ in data.values()),
        tuple(dtype for _, dtype in data.values()),
    )


def ratio_view(
    groups: Groups, amount: Any, *, verbose: bool
) -> Callable[[int], ViewResult]:
    """``--ratio``: every entry with its ratio to the best, best first; failed runs
    last without ratio."""

    def view(g: int) -> ViewResult:
        order = groups.ranked.ran.of(g)
        rows = np.concatenate([order, groups.ranked.failed.of(g)])
        section = Section(
            "ratio",
            groups.title(g, "ratio to best"),
            groups.results.path,
            (),
            entries_table(groups, g, rows),
            highlight=(0,) if len(order) else (),
        )
        return ViewResult([section])

    return view


def head_view(
    groups: Groups, count: int, *, verbose: bool
) -> Callable[[int], ViewResult]:
    """``--head N``: the best ``count`` entries."""

    def view(g: int) -> ViewResult:
        order = groups.ranked.ran.of(g)[:count]
        section = Section(
            "head",
            groups.title(g, f"best {count}"),
            groups.results.path,
            (),
            entries_table(groups, g, order),
            highlight=(0,) if len(order) else (),
        )
        return ViewResult([section], rows=order)

    return view


def tail_view(
    groups: Groups, count: int, *, verbose: bool
) -> Callable[[int], ViewResult]:
    """``--tail N``: the worst ``count`` entries that ran, worst last."""

    def view(g: int) -> ViewResult:
        order = groups.ranked.ran.of(g)
        chosen = order[max(len(order) - count, 0) :]
        section = Section(
            "tail",
            groups.title(g, f"worst {count}"),
            groups.results.path,
            (),
            entries_table(groups, g, chosen),
        )
        return ViewResult([section], rows=chosen)

    return view


def section_title(results: Results, group: str, what: str = "") -> str:
    """``PATH [GROUP]: WHAT``: a section's title."""
    parts = [results.path + (f" [{group}]" if group else "")]
    if what:
        parts.append(what)
    return ": ".join(parts)
