"""The summary of every group of a file at once: entries, failed runs, the best and
the worst run, the best run's parameters and the group's shape.

One pass over the whole file for all its ``-p`` groups (``core.columns.Grouping``):
the best and worst row of each group come from one ``reduceat`` over the metric, the
values at those rows from one gather per column, so 10,000 groups cost about as much
as one file of the same rows. Ties go to the first row, as ``best_position`` and
``worst_position`` break them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from kprofile.core.columns import Grouping, first_minimum, group_rows, row_name
from kprofile.core.metric import Metric, metric_values, ratio_to, valid_mask
from kprofile.core.values import plain
from kprofile.inputs.failures import KINDS, OTHER
from kprofile.inputs.load import SPEC, Results


@dataclass(frozen=True)
class Summary:
    """One group. ``best``/``worst`` are positions in the group's rows (None when no
    run succeeded); ``config`` every parameter at the best row; ``shape`` the values
    of the parameters constant in the group; ``tuning`` those that vary (all of them
    when none does)."""

    entries: int
    failed: int
    best: int | None
    worst: int | None
    best_value: float
    worst_value: float
    worst_ratio: float
    best_row: tuple[str, Any]  # what the best row is called, and its name (row_id)
    best_spec: str | None
    config: dict[str, Any]
    shape: dict[str, Any]
    tuning: tuple[str, ...]
    failed_by: dict[str, int] | None = None  # kbench's failures by kind, if read


def summary_of(results: Results, metric: Metric) -> Summary:
    """The summary of a whole file (or of one group already split off)."""
    return summaries(group_rows(results, ()), metric)[0]


def summaries(grouping: Grouping, metric: Metric) -> list[Summary]:
    """The summary of every group of ``grouping``, in its order. Where kbench's
    record of failures was read (``Results.failure``), each group's failed points
    are also counted by kind (``build``, ``execution``, ``timeout``; ``other`` only
    when there is one)."""
    frame = grouping.results.frame
    order, starts = grouping.order, grouping.starts
    sizes = grouping.stops - starts
    values = metric_values(frame, metric)[order]
    valid = valid_mask(values)
    ran = np.add.reduceat(valid.astype(np.int64), starts)
    lower = -values if metric.higher_is_better else values
    best = first_minimum(np.where(valid, lower, np.inf), starts)
    worst = first_minimum(np.where(valid, -lower, np.inf), starts)
    best_value = np.where(ran > 0, values[best], np.nan)
    worst_value = np.where(ran > 0, values[worst], np.nan)
    worst_ratio = ratio_to(worst_value, best_value, metric)
    at_best = order[best]
    config = {p: _gather(frame, p, at_best) for p in grouping.results.params}
    firsts = order[starts]
    firsts_of = {p: _gather(frame, p, firsts) for p in grouping.results.params}
    keys = _gather(frame, grouping.results.row_key, at_best)
    spec = _gather(frame, SPEC, at_best) if SPEC in frame.columns else None
    params = grouping.results.params
    by_kind = failures_by_kind(grouping)
    out = []
    for g in range(len(grouping)):
        has = bool(ran[g])
        steady = grouping.constant_in(g)
        out.append(
            Summary(
                entries=int(sizes[g]),
                failed=int(sizes[g] - ran[g]),
                best=int(best[g] - starts[g]) if has else None,
                worst=int(worst[g] - starts[g]) if has else None,
                best_value=float(best_value[g]),
                worst_value=float(worst_value[g]),
                worst_ratio=float(worst_ratio[g]) if has else math.nan,
                best_row=row_name(grouping.results, keys[g]) if has else ("", None),
                best_spec=spec[g] if has and spec is not None else None,
                config={p: v[g] for p, v in config.items()} if has else {},
                shape={p: firsts_of[p][g] for p in steady},
                tuning=tuple(p for p in params if p not in steady) or params,
                failed_by=None
                if by_kind is None
                else {k: int(n[g]) for k, n in by_kind.items()},
            )
        )
    return out


def failures_by_kind(grouping: Grouping) -> dict[str, np.ndarray] | None:
    """How many of each group's rows kbench recorded as failed, kind by kind."""
    column = grouping.results.failure
    if column is None:
        return None
    kinds = grouping.results.frame[column].to_numpy(dtype=object)[grouping.order]
    counts = {
        kind: np.add.reduceat((kinds == kind).astype(np.int64), grouping.starts)
        for kind in (*KINDS, OTHER)
    }
    if not counts[OTHER].any():
        del counts[OTHER]
    return counts


def _gather(frame: pd.DataFrame, column: str, rows: np.ndarray) -> list[Any]:
    """``column`` at ``rows`` as Python values (``plain``)."""
    return [plain(v) for v in frame[column].iloc[rows].tolist()]
