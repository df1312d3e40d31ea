"""``-d --out-dir``: each shape's comparison table, written as ``<shape>.csv``: every
configuration with its metric in each run and its ratio to the same configuration in
the baseline, the baseline's best first (failed runs empty). Made only when asked
for: one pandas table per shape.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from kprofile.core.diff import DiffResult
from kprofile.core.metric import Metric, metric_values, rank_order, ratio_to, valid_mask
from kprofile.inputs.load import Results


def shape_tables(result: DiffResult) -> dict[str, pd.DataFrame]:
    """Each shape's table, by its label (``""`` for whole files), its baseline's
    column first."""
    tables = {}
    for shape in result.shapes:
        members = ([shape.base] if shape.base is not None else []) + list(shape.later)
        parts = [
            (result.runs[i].name, result.runs[i].grouping.part(g)) for i, g in members
        ]
        label = shape.label if result.keys else ""
        tables[label] = shape_table(parts, result.metric, result.keys)
    return tables


def shape_table(
    parts: Sequence[tuple[str, Results]], metric: Metric, pivots: Sequence[str]
) -> pd.DataFrame:
    """One shape: every configuration, its metric per file, ratio to the baseline's."""
    params = [
        p
        for p in parts[0][1].params
        if p not in pivots and all(p in r.params for _, r in parts)
    ]
    per_file = []
    for name, part in parts:
        frame = part.frame[params].copy()
        frame[f"{metric.column} [{name}]"] = np.where(
            valid_mask(v := metric_values(part.frame, metric)), v, np.nan
        )
        per_file.append(_best_per_config(frame, params, metric))
    if not params:
        table = pd.concat(per_file, axis=1)
    else:
        table = pd.concat(
            [f[params] for f in per_file], ignore_index=True
        ).drop_duplicates(ignore_index=True)
        for frame in per_file:
            table = table.merge(frame, how="left", on=params, sort=False)
    base_column = f"{metric.column} [{parts[0][0]}]"
    base = table[base_column].to_numpy(dtype=np.float64)
    for name, _ in parts[1:]:
        column = table[f"{metric.column} [{name}]"].to_numpy(dtype=np.float64)
        ratio = ratio_to(column, base, metric)  # NaN where this file's run failed
        table[f"ratio [{name}]"] = np.where(valid_mask(base), ratio, np.nan)
    order = rank_order(base, metric)
    rest = np.setdiff1d(np.arange(len(table)), order, assume_unique=True)
    return table.iloc[np.concatenate([order, rest])].reset_index(drop=True)


def _best_per_config(
    frame: pd.DataFrame, params: list[str], metric: Metric
) -> pd.DataFrame:
    value = frame.columns[-1]
    ordered = frame.sort_values(
        value, ascending=not metric.higher_is_better, kind="stable", na_position="last"
    )
    if not params:
        return ordered.iloc[:1].reset_index(drop=True)
    return ordered.drop_duplicates(subset=params, keep="first")
