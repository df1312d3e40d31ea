"""Every input's runs per (shape, config), for the pictures: what each run measured
for each config of each shape, and why it has no measurement where it failed.

Shapes are ``kprofile.core.columns.shape_keys`` (through ``combine``), as every mode
finds them; a config is the tuple of the other parameters. Each input is a run: a
shape's runs are the inputs that hold it, in argument order (its *slots*: slot 0 is
the first input with the shape, as ``-d``'s baseline). A (shape, config) run twice in
one input keeps its best run; one without a valid run keeps the kind kbench recorded
(``build``, ``execution``, ``timeout``), else ``failed``. All of it is vectorized: one
sort of the rows, then reductions over its groups.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from kprofile.core.columns import group_codes
from kprofile.core.combine import combine
from kprofile.core.metric import Metric, metric_values, ratio_to, valid_mask
from kprofile.core.values import entries, shape_label
from kprofile.inputs.load import Results

FAILED = "failed"


@dataclass(frozen=True, eq=False)
class RunTable:
    """One row per (shape, config, input) that has a row, sorted so: ``shape``,
    ``config``, ``run`` (the input's index), ``value`` (its best valid measurement,
    NaN for none) and ``failure`` (why none: a kind, else ``failed``; empty where it
    ran). ``starts[s]``: shape ``s``'s first row. ``shapes``/``configs``: the columns'
    values of each id (its index)."""

    shapes: pd.DataFrame
    configs: pd.DataFrame
    runs: tuple[str, ...]
    shape: np.ndarray
    config: np.ndarray
    run: np.ndarray
    value: np.ndarray
    failure: np.ndarray
    metric: Metric

    @cached_property
    def starts(self) -> np.ndarray:
        return np.searchsorted(self.shape, np.arange(len(self.shapes) + 1))

    def rows(self, s: int) -> slice:
        """Shape ``s``'s rows."""
        return slice(int(self.starts[s]), int(self.starts[s + 1]))

    def shape_label(self, s: int) -> str:
        return shape_label(entries(self.shapes.iloc[[s]])[0]) or "all rows"

    def config_labels(self, ids: Sequence[int] | np.ndarray) -> list[str]:
        rows = entries(self.configs.iloc[np.asarray(ids, dtype=np.int64)])
        return [shape_label(r) or "-" for r in rows]

    def slots(self, s: int) -> np.ndarray:
        """The inputs holding shape ``s``, in argument order."""
        return np.unique(self.run[self.rows(s)])

    def pooled(self, s: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Shape ``s``'s configs, each one's best value over its runs (NaN: none
        valid) and its ratio to the shape's best (NaN: none)."""
        part = self.rows(s)
        config, value = self.config[part], self.value[part]
        ids, first = np.unique(config, return_index=True)
        best = _reduce(value, first, self.metric)
        valid = best[np.isfinite(best)]
        top = _best(valid, self.metric) if valid.size else np.nan
        return ids, best, ratio_to(best, top, self.metric)


def _best(values: np.ndarray, metric: Metric) -> float:
    return float(values.max() if metric.higher_is_better else values.min())


def _reduce(values: np.ndarray, starts: np.ndarray, metric: Metric) -> np.ndarray:
    """Each group's best (groups start at ``starts``, rows in order), NaN ignored."""
    if not len(values):
        return values
    pick = np.fmax if metric.higher_is_better else np.fmin
    return pick.reduceat(values, starts)


def run_table(
    inputs: Sequence[Results],
    pivots: Sequence[str],
    metric: Metric,
    runs: Sequence[str],
) -> RunTable:
    """Every input's rows reduced to one per (shape, config); ``runs``: each input's
    label."""
    combined = combine(inputs, pivots)
    frame = combined.frame
    shape = _codes(frame, combined.shape_cols)
    config = _codes(frame, combined.param_cols)
    run = np.repeat(np.arange(len(inputs)), [len(r.frame) for r in inputs])
    value = metric_values(frame, metric)
    value[~valid_mask(value)] = np.nan
    order = np.lexsort((run, config, shape))
    keys = np.stack([shape[order], config[order], run[order]])
    change = np.r_[True, (keys[:, 1:] != keys[:, :-1]).any(axis=0)]
    starts = np.flatnonzero(change)
    best = _reduce(value[order], starts, metric)
    kinds = _failures(inputs)[order[starts]]
    kinds = np.where(np.isfinite(best), "", np.where(kinds == "", FAILED, kinds))
    return RunTable(
        _first_rows(frame, combined.shape_cols, shape),
        _first_rows(frame, combined.param_cols, config),
        tuple(runs),
        shape[order][starts],
        config[order][starts],
        run[order][starts],
        best,
        kinds.astype(object),
        metric,
    )


def _first_rows(
    frame: pd.DataFrame, columns: Sequence[str], codes: np.ndarray
) -> pd.DataFrame:
    """Each code's ``columns`` from its first row (codes number rows by first
    appearance)."""
    first = np.unique(codes, return_index=True)[1]
    return frame[list(columns)].iloc[first].reset_index(drop=True)


def _codes(frame: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    if not columns:
        return np.zeros(len(frame), dtype=np.int64)
    return group_codes(frame, columns)


def _failures(inputs: Sequence[Results]) -> np.ndarray:
    """Every row's recorded failure kind (empty where none), input after input."""
    parts = []
    for results in inputs:
        if results.failure is None:
            parts.append(np.full(len(results.frame), "", dtype=object))
            continue
        kinds = results.frame[results.failure].to_numpy(dtype=object, na_value="")
        parts.append(np.where(pd.isna(kinds), "", kinds).astype(object))
    return np.concatenate(parts) if parts else np.empty(0, dtype=object)
