"""``--diff``, the analysis: each later file's best against the baseline's best, shape
by shape.

Shapes are the distinct values of the pivots (``-p``; by default what every mode tells
shapes apart by, ``kprofile.core.problems.shape_keys``: kbench's runtime parameters,
else the parameter columns constant within every file). For each shape the baseline
is the first file, in argument order, that has it; so ``kprofile -d base.pkl new.pkl``
compares two runs, and per-shape files (``-d run1/*.pkl run2/*.pkl``) pair up by
shape. Ratios follow the project convention: above 1.0 the later file is worse than
the baseline.

Besides the summary table, one ``<shape>.csv`` per shape holds every configuration
with its metric in each file and its ratio to the same configuration in the baseline.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from kprofile.core.columns import (
    frame_shape_label,
    row_id,
    split_by,
)
from kprofile.core.metric import Metric, metric_values, rank_order, ratio_to, valid_mask
from kprofile.core.problems import shape_keys
from kprofile.core.select import best_row
from kprofile.core.values import plain
from kprofile.errors import usage_error
from kprofile.inputs.load import MESH_IDX, Results


@dataclass(frozen=True, eq=False)
class DiffResult:
    """One row per (shape, file): its best and ratio to the baseline's best (the
    baseline rows are ``baselines``); and per shape its comparison table."""

    rows: pd.DataFrame
    baselines: tuple[int, ...]
    keys: tuple[str, ...]  # the columns shapes are told apart by
    tables: dict[str, pd.DataFrame]  # shape label -> per-shape comparison


def labels(inputs: Sequence[Results]) -> list[str]:
    """Short distinct names for the inputs: file stems; else the shortest path
    suffix that tells them apart (``out.pkl`` and ``out.csv``; ``A/out.pkl`` and
    ``B/out.pkl``); a file given twice as ``out#1``, ``out#2``."""
    stems = [Path(r.path).stem for r in inputs]
    if len(set(stems)) == len(stems):
        return stems
    parts = [Path(r.path).parts for r in inputs]
    for length in range(1, max(len(p) for p in parts) + 1):
        suffixes = ["/".join(p[-length:]) for p in parts]
        if len(set(suffixes)) == len(suffixes):
            return suffixes
    return [f"{s}#{i + 1}" for i, s in enumerate(stems)]


def diff(
    inputs: Sequence[Results], metric: Metric, pivots: Sequence[str]
) -> DiffResult:
    if len(inputs) < 2:
        raise usage_error("--diff needs a baseline and at least one more file")
    keys = list(shape_keys(inputs, pivots))
    names = labels(inputs)
    shapes: dict[tuple[Any, ...], list[tuple[str, Results]]] = {}
    for name, results in zip(names, inputs):
        for part in split_by(results, keys):
            key = tuple(plain(part.frame[k].iloc[0]) for k in keys)
            shapes.setdefault(key, []).append((name, part))
    rows: list[dict[str, Any]] = []
    highlight: list[int] = []
    mesh = all(r.kind != "csv" and r.row_key == MESH_IDX for r in inputs)
    best_row_column = "best mesh_idx" if mesh else "best row"
    tables: dict[str, pd.DataFrame] = {}
    for parts in shapes.values():
        shape = frame_shape_label(parts[0][1].frame, keys) or "(all)"
        base_best = best_row(parts[0][1], metric)
        for index, (name, part) in enumerate(parts):
            best = best_row(part, metric)
            ratio = math.nan
            if best.position is not None and base_best.position is not None:
                ratio = float(ratio_to(best.value, base_best.value, metric))
            if index == 0:
                highlight.append(len(rows))
            rows.append(
                {
                    "shape": shape,
                    "file": name + (" (baseline)" if index == 0 else ""),
                    f"best {metric.column}": best.value,
                    "ratio": ratio,
                    best_row_column: _best_row(part, best.position, mesh=mesh),
                }
            )
        tables[shape if keys else ""] = shape_table(parts, metric, keys)
    return DiffResult(pd.DataFrame(rows), tuple(highlight), tuple(keys), tables)


def _best_row(results: Results, position: int | None, *, mesh: bool) -> Any:
    """The best row's mesh_idx when every input has one, else what names it in its
    file (the ``file`` column): ``mesh_idx 12``, ``line 17`` of a CSV (never shown
    as a mesh_idx), ``row 17``."""
    if position is None:
        return None
    what, value = row_id(results, position)
    if mesh:
        return value
    if results.kind == "csv":
        return f"line {plain(results.frame[results.row_key].iloc[position])}"
    return f"{what} {value}"


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
