"""The per-file views (summary, ratio, head, tail, top/within): data in, sections and
what each selects out.

Every view named in ``kprofile.modes.VIEWS`` is a ``Builder``: one file (or ``-p``
group), the metric and the flag's value in, a ``ViewResult`` out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import pandas as pd

from kprofile.core.columns import row_label, tuning_columns
from kprofile.core.metric import (
    Metric,
    best_position,
    metric_values,
    rank_order,
    ratio_to,
    valid_mask,
)
from kprofile.core.select import CommonConfig, common_config
from kprofile.core.summary import Summary, summary_of
from kprofile.core.values import shape_label, value_label
from kprofile.inputs.load import Results
from kprofile.render.section import Section

RATIO = "ratio"


@dataclass(frozen=True, eq=False)
class ViewResult:
    """A view's sections; the rows it selects (positions, best first), if it selects
    rows; and the common config it chose, if it chooses one."""

    sections: list[Section]
    rows: np.ndarray | None = None
    common: CommonConfig | None = None


class Builder(Protocol):
    def __call__(
        self,
        results: Results,
        metric: Metric,
        amount: Any,
        *,
        group: str,
        verbose: bool,
    ) -> ViewResult: ...


def summary_view(
    results: Results,
    metric: Metric,
    *,
    group: str = "",
    summary: Summary | None = None,
) -> Section:
    """Entries, best mesh_idx, worst and best metric, worst/best, shape, best config.
    ``summary``: the group's, when the caller computed every group's at once."""
    found = summary_of(results, metric) if summary is None else summary
    shape = shape_label(found.shape)
    facts: list[tuple[str, object]] = [
        ("entries", found.entries),
        ("failed", found.failed),
    ]
    if found.best is None:
        return Section(
            "summary",
            _title(results, group),
            results.path,
            tuple(facts + [("shape", shape or "-")]),
            notes=("every run failed: no best entry",),
        )
    what, name = found.best_row
    facts += [
        (f"best {what}", name),
        (f"worst {metric.column}", found.worst_value),
        (f"best {metric.column}", found.best_value),
        ("worst/best", found.worst_ratio),
        ("shape", shape or "-"),
    ]
    tuning = found.tuning
    table = None
    if tuning:
        config = np.empty(len(tuning), dtype=object)
        config[:] = [found.config[p] for p in tuning]
        table = pd.DataFrame({"parameter": list(tuning), "value": config})
    notes: tuple[str, ...] = ()
    if found.best_spec is not None:
        notes = (f"best spec: {found.best_spec}",)
    return Section(
        "summary",
        _title(results, group),
        results.path,
        tuple(facts),
        table,
        notes=notes,
    )


def entries_table(
    results: Results,
    positions: np.ndarray,
    metric: Metric,
    *,
    with_failed: bool = False,
) -> pd.DataFrame:
    """The row key (mesh_idx, or a CSV's line), tuning parameters, metric and ratio
    for ``positions`` (that order)."""
    frame = results.frame
    values = metric_values(frame, metric)
    best = best_position(values, metric)
    best_value = math.nan if best is None else float(values[best])
    if with_failed:
        positions = np.concatenate([positions, np.flatnonzero(~valid_mask(values))])
    positions = np.asarray(positions, dtype=np.intp)
    data: dict[str, Any] = {
        c: frame[c].array.take(positions)
        for c in [results.row_key, *tuning_columns(results)]
    }
    data[metric.column] = values[positions]  # in place of a column of that name
    data[RATIO] = ratio_to(values[positions], best_value, metric)
    return pd.DataFrame(data, copy=False)


def ratio_view(
    results: Results, metric: Metric, amount: Any, *, group: str, verbose: bool
) -> ViewResult:
    """``--ratio``: every entry with its ratio to the best, best first; failed runs
    last without ratio."""
    order = rank_order(metric_values(results.frame, metric), metric)
    table = entries_table(results, order, metric, with_failed=True)
    section = Section(
        "ratio",
        _title(results, group, "ratio to best"),
        results.path,
        (),
        table,
        highlight=(0,) if len(order) else (),
    )
    return ViewResult([section])


def head_view(
    results: Results, metric: Metric, count: int, *, group: str, verbose: bool
) -> ViewResult:
    """``--head N``: the best ``count`` entries."""
    order = rank_order(metric_values(results.frame, metric), metric)[:count]
    table = entries_table(results, order, metric)
    section = Section(
        "head",
        _title(results, group, f"best {count}"),
        results.path,
        (),
        table,
        highlight=(0,) if len(order) else (),
    )
    return ViewResult([section], rows=order)


def tail_view(
    results: Results, metric: Metric, count: int, *, group: str, verbose: bool
) -> ViewResult:
    """``--tail N``: the worst ``count`` entries that ran, worst last."""
    order = rank_order(metric_values(results.frame, metric), metric)
    chosen = order[max(len(order) - count, 0) :]
    table = entries_table(results, chosen, metric)
    section = Section(
        "tail", _title(results, group, f"worst {count}"), results.path, (), table
    )
    return ViewResult([section], rows=chosen)


def top_view(
    results: Results, metric: Metric, amount: float, *, group: str, verbose: bool
) -> ViewResult:
    """``--top X``: the common config of the reference's band (below min + X x max)."""
    return _common_view(results, metric, "top", amount, group=group, verbose=verbose)


def top_fraction_view(
    results: Results, metric: Metric, amount: float, *, group: str, verbose: bool
) -> ViewResult:
    """``--top-fraction X``: the common config of the best X of the ranked entries."""
    return _common_view(
        results, metric, "top-fraction", amount, group=group, verbose=verbose
    )


def within_view(
    results: Results, metric: Metric, amount: float, *, group: str, verbose: bool
) -> ViewResult:
    """``--within X``: the common config of the entries within X of the best."""
    return _common_view(results, metric, "within", amount, group=group, verbose=verbose)


def _common_view(
    results: Results,
    metric: Metric,
    kind: str,
    amount: float,
    *,
    group: str,
    verbose: bool,
) -> ViewResult:
    common = common_config(results, metric, kind=kind, amount=amount)
    sections = common_view(
        common, metric, kind=kind, amount=amount, group=group, verbose=verbose
    )
    return ViewResult(sections, rows=common.subset, common=common)


def common_view(
    common: CommonConfig,
    metric: Metric,
    *,
    kind: str,
    amount: float,
    group: str = "",
    verbose: bool = False,
) -> list[Section]:
    """``--top``/``--top-fraction``/``--within``: per-parameter mode and share, the
    common config, measured or not."""
    results = common.results
    what = _selection_label(kind, amount, metric)
    config = "/".join(f"{k}={value_label(v)}" for k, v in common.config.items())
    facts = (
        ("selection", what),
        ("entries", f"{len(common.subset)} of {common.valid_count} that ran"),
        ("common config", config or "-"),
        ("measured", _measured(common)),
    )
    table = pd.DataFrame(
        {
            "parameter": [m.name for m in common.modes],
            "most frequent": pd.Series([m.value for m in common.modes], dtype=object),
            "share": [m.share for m in common.modes],
        }
    )
    sections = [Section(kind, _title(results, group, what), results.path, facts, table)]
    if verbose:
        subset = entries_table(results, common.subset, metric)
        sections.append(
            Section(
                f"{kind}-subset",
                _title(results, group, f"{kind} subset"),
                results.path,
                (),
                subset,
                highlight=(0,) if len(subset) else (),
            )
        )
    return sections


def _selection_label(kind: str, amount: float, metric: Metric) -> str:
    if kind == "top":
        band = (
            f"above max - {amount:g} x max"
            if metric.higher_is_better
            else f"below min + {amount:g} x max"
        )
        return f"top {amount:g} ({band})"
    if kind == "top-fraction":
        return f"top fraction {amount:g} ({amount * 100:g}% of ranked entries)"
    return f"within {amount:g} of the best (ratio <= {1 + amount:g})"


def _measured(common: CommonConfig) -> str:
    """Whether the common config was benchmarked, where, and its ratio (the fact is
    already labelled ``measured``)."""
    if not len(common.subset):
        return "no run succeeded"
    if common.measured is None:
        return "never benchmarked"
    row = row_label(common.results, common.measured)
    if math.isnan(common.ratio):
        return f"{row}, but the run failed"
    return f"{row}, ratio {common.ratio:.3f}"


def _title(results: Results, group: str, what: str = "") -> str:
    parts = [results.path + (f" [{group}]" if group else "")]
    if what:
        parts.append(what)
    return ": ".join(parts)
