"""The per-file views that choose a common config: ``--top``, ``--top-fraction`` and
``--within``. Each selects its rows of every group at once (``core.ranked``), takes
each tuning parameter's most frequent value among them
(``core.select.common_configs``) and reports that config, whether it was measured,
and with ``-v`` the subset it came from.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from kprofile.core.columns import row_label
from kprofile.core.values import value_label
from kprofile.modes.views import Groups, ViewResult, entries_table
from kprofile.render.section import Section, Table

if TYPE_CHECKING:
    from kprofile.core.select import CommonConfig

_TEXT = np.dtype(object)  # names and values: shown as they are, left-aligned
_FLOAT = np.dtype(np.float64)


def top_view(
    groups: Groups, amount: float, *, verbose: bool
) -> Callable[[int], ViewResult]:
    """``--top X``: the common config of the reference's band (below min + X x max)."""
    band = (
        f"above max - {amount:g} x max"
        if groups.metric.higher_is_better
        else f"below min + {amount:g} x max"
    )
    label = f"top {amount:g} ({band})"
    return _common_view(groups, "top", amount, label, verbose=verbose)


def top_fraction_view(
    groups: Groups, amount: float, *, verbose: bool
) -> Callable[[int], ViewResult]:
    """``--top-fraction X``: the common config of the best X of the ranked entries."""
    label = f"top fraction {amount:g} ({amount * 100:g}% of ranked entries)"
    return _common_view(groups, "top-fraction", amount, label, verbose=verbose)


def within_view(
    groups: Groups, amount: float, *, verbose: bool
) -> Callable[[int], ViewResult]:
    """``--within X``: the common config of the entries within X of the best."""
    label = f"within {amount:g} of the best (ratio <= {1 + amount:g})"
    return _common_view(groups, "within", amount, label, verbose=verbose)


def _common_view(
    groups: Groups, kind: str, amount: float, label: str, *, verbose: bool
) -> Callable[[int], ViewResult]:
    """The common config of the rows selection ``kind`` keeps with ``amount``, shown
    as ``label``, for every group."""
    from kprofile.core.select import common_configs  # start-up: these views only

    commons = common_configs(groups.ranked, kind=kind, amount=amount)

    def view(g: int) -> ViewResult:
        common = commons[g]
        sections = common_view(groups, g, common, kind=kind, label=label)
        if verbose:
            sections.append(subset_section(groups, g, common, kind))
        return ViewResult(sections, rows=common.subset, common=common)

    return view


def common_view(
    groups: Groups, g: int, common: CommonConfig, *, kind: str, label: str
) -> list[Section]:
    """``--top``/``--top-fraction``/``--within``: per-parameter mode and share, the
    common config, measured or not. ``label``: the selection, as the view says it."""
    what = label
    config = "/".join(f"{k}={value_label(v)}" for k, v in common.config.items())
    facts = (
        ("selection", what),
        ("entries", f"{len(common.subset)} of {common.valid_count} that ran"),
        ("common config", config or "-"),
        ("measured", _measured(common)),
    )
    modes = common.modes
    listed = _TEXT if modes else _empty_list_dtype()
    table = Table(
        ("parameter", "most frequent", "share"),
        ([m.name for m in modes], [m.value for m in modes], [m.share for m in modes]),
        (listed, _TEXT, _FLOAT if modes else listed),
    )
    path = groups.results.path
    return [Section(kind, groups.title(g, what), path, facts, table)]


def subset_section(groups: Groups, g: int, common: CommonConfig, kind: str) -> Section:
    """``-v``: the subset a common config was chosen from, best first."""
    return Section(
        f"{kind}-subset",
        groups.title(g, f"{kind} subset"),
        groups.results.path,
        (),
        entries_table(groups, g, common.subset),
        highlight=(0,) if len(common.subset) else (),
    )


@cache
def _empty_list_dtype() -> Any:
    """The dtype pandas gives a column made from an empty list (float64 in pandas 3,
    object before): what a table without rows showed when it was a DataFrame."""
    return pd.DataFrame({"": []}).dtypes.iloc[0]


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
