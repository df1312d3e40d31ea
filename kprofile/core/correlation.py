"""``-c``, the analysis: Kendall correlation of the numeric parameters with each run's
ratio to the best of its shape, over every input: raw times pooled over shapes would
correlate the problem's size, not the tuning (the metric's column holds the ratio).

Only runs that succeeded count. Boolean parameters count as 0/1; parameters that never
vary are left out (a correlation with a constant is undefined), and so are the shape
columns (constant in each file, or kbench runtime parameters: M, N, K) unless asked
for: across files they say which problem ran, not how it was tuned, and would rank
above the parameters. Parameters that are not numbers (a schedule name) cannot be
correlated; they are listed in ``not_numeric``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from kprofile.core.columns import group_codes
from kprofile.core.kendall import kendall_tau_b
from kprofile.core.metric import Metric, metric_values, ratio_to, valid_mask
from kprofile.errors import usage_error
from kprofile.inputs.load import Results


@dataclass(frozen=True, eq=False)
class Correlation:
    columns: tuple[str, ...]  # the numeric parameters, then the metric
    matrix: pd.DataFrame  # square, indexed and labelled by columns
    rows: int
    shapes: tuple[str, ...] = ()  # shape columns left out
    not_numeric: tuple[str, ...] = ()  # parameters that could not be correlated


def _numeric(column: pd.Series) -> bool:
    dtype = column.dtype
    return pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_numeric_dtype(dtype)


def numeric_table(
    inputs: Sequence[Results],
    metric: Metric,
    *,
    leave_out: Sequence[str] = (),
    by: Sequence[str] = (),
) -> pd.DataFrame:
    """Successful runs of every input: numeric, varying parameters (but those in
    ``leave_out``) as float, then the metric as each run's ratio to the best of its
    shape (the rows with the same ``by`` values, across inputs)."""
    parts, shapes = [], []
    for results in inputs:
        values = metric_values(results.frame, metric)
        keep = valid_mask(values)
        columns: dict[str, np.ndarray] = {}
        for name in results.params:
            column = results.frame[name]
            if name not in leave_out and _numeric(column):
                columns[name] = column.to_numpy(dtype=np.float64, na_value=np.nan)[keep]
        columns[metric.column] = values[keep]
        parts.append(pd.DataFrame(columns))
        shapes.append(results.frame.loc[keep, list(by)].reset_index(drop=True))
    table = pd.concat(parts, ignore_index=True, sort=False)
    table[metric.column] = _ratios(table[metric.column], pd.concat(shapes), metric)
    varying = [
        c
        for c in table.columns
        if c == metric.column or table[c].nunique(dropna=True) > 1
    ]
    ordered = [c for c in varying if c != metric.column] + [metric.column]
    return table[ordered]


def _ratios(values: pd.Series, shapes: pd.DataFrame, metric: Metric) -> np.ndarray:
    """Each value's ratio to the best of its shape (one shape without columns)."""
    codes = group_codes(shapes, list(shapes.columns)) if len(shapes.columns) else (
        np.zeros(len(values), dtype=np.int64))  # fmt: skip
    grouped = values.groupby(codes)
    best = grouped.transform("max" if metric.higher_is_better else "min")
    return ratio_to(values.to_numpy(), best.to_numpy(), metric)


def not_numeric(inputs: Sequence[Results], leave_out: Sequence[str]) -> tuple[str, ...]:
    """Parameters (but ``leave_out``) that are not numbers in some input."""
    names = (
        p
        for r in inputs
        for p in r.params
        if p not in leave_out and not _numeric(r.frame[p])
    )
    return tuple(dict.fromkeys(names))


def correlate(
    inputs: Sequence[Results],
    metric: Metric,
    *,
    shapes: Sequence[str] = (),
    by: Sequence[str] = (),
) -> Correlation:
    """The correlations of every numeric parameter but the shape columns ``shapes``
    with each run's ratio to the best of its shape (by ``by``)."""
    table = numeric_table(inputs, metric, leave_out=shapes, by=by)
    skipped = not_numeric(inputs, shapes)
    if len(table.columns) < 2:
        what = f" ({', '.join(skipped)}: not numeric)" if skipped else ""
        raise usage_error(
            f"-c: no numeric parameter varies across the inputs{what}; nothing to "
            "correlate",
        )
    if len(table) < 2:
        raise usage_error("-c: fewer than two successful runs")
    names = tuple(str(c) for c in table.columns)
    arrays = [table[c].to_numpy(dtype=np.float64) for c in names]
    size = len(names)
    matrix = np.eye(size)
    for i in range(size):
        for j in range(i + 1, size):
            matrix[i, j] = matrix[j, i] = kendall_tau_b(arrays[i], arrays[j])
    return Correlation(
        names,
        pd.DataFrame(matrix, index=list(names), columns=list(names)),
        len(table),
        tuple(shapes),
        skipped,
    )
