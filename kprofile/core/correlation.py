"""``-c``, the analysis: Kendall correlation of the numeric parameters with the metric,
over every input.

Only runs that succeeded count. Boolean parameters count as 0/1; parameters that never
vary are left out (a correlation with a constant is undefined).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from kprofile.core.kendall import kendall_tau_b
from kprofile.core.metric import Metric, metric_values, valid_mask
from kprofile.errors import usage_error
from kprofile.inputs.load import Results


@dataclass(frozen=True, eq=False)
class Correlation:
    columns: tuple[str, ...]  # the numeric parameters, then the metric
    matrix: pd.DataFrame  # square, indexed and labelled by columns
    rows: int


def numeric_table(inputs: Sequence[Results], metric: Metric) -> pd.DataFrame:
    """Successful runs of every input: numeric, varying parameters as float, then the
    metric."""
    parts = []
    for results in inputs:
        values = metric_values(results.frame, metric)
        keep = valid_mask(values)
        columns: dict[str, np.ndarray] = {}
        for name in results.params:
            column = results.frame[name]
            if pd.api.types.is_bool_dtype(
                column.dtype
            ) or pd.api.types.is_numeric_dtype(column.dtype):
                columns[name] = column.to_numpy(dtype=np.float64, na_value=np.nan)[keep]
        columns[metric.column] = values[keep]
        parts.append(pd.DataFrame(columns))
    table = pd.concat(parts, ignore_index=True, sort=False)
    varying = [
        c
        for c in table.columns
        if c == metric.column or table[c].nunique(dropna=True) > 1
    ]
    ordered = [c for c in varying if c != metric.column] + [metric.column]
    return table[ordered]


def correlate(inputs: Sequence[Results], metric: Metric) -> Correlation:
    table = numeric_table(inputs, metric)
    if len(table.columns) < 2:
        raise usage_error(
            "-c: no numeric parameter varies across the inputs; nothing to correlate",
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
        names, pd.DataFrame(matrix, index=list(names), columns=list(names)), len(table)
    )
