"""The selection rules written the direct way, one file (or one group split off) at a
time, as the reference kprofile.py applies them: the oracle that ``core.ranked``
(every group's rows at once) and ``core.select.common_configs`` (every group's common
config at once) are checked against. Test code only: nothing in ``kprofile`` calls it.

``select_top`` keeps the rows whose metric is below ``min + X * max``,
``select_top_fraction`` the best ``floor(X x rows that ran)``, ``select_within`` the
rows within ``1 + X`` of the best; ``common_config`` takes each tuning parameter's most
frequent value among them (first in rank order on a tie) and looks the combination up
in the whole file.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from support import within_exactly

from kprofile.core.columns import shape_columns, tuning_columns
from kprofile.core.metric import (
    Metric,
    best_position,
    metric_values,
    rank_order,
    ratio_to,
    valid_mask,
)
from kprofile.core.select import CommonConfig, ParamMode
from kprofile.core.values import plain
from kprofile.inputs.load import Results


def select_top(values: np.ndarray, metric: Metric, band: float) -> np.ndarray:
    """``--top X`` as Modular's kprofile.py selects: the rows that ran whose metric is
    below ``min + X * max``, best first.

    The edge is computed as the reference writes it, ``(X + min / max) * max``, so a
    row on it is in or out for both tools alike. The best row is always in. For a
    higher-is-better metric the band is mirrored, above ``max - X * max``: both keep
    the rows whose distance to the best is under X times the largest value. (The
    reference applies the lower band there too, which selects the worst rows.)
    """
    order = rank_order(values, metric)
    if not len(order):
        return order
    ran = values[order]
    low, high = float(ran.min()), float(ran.max())
    if metric.higher_is_better:
        return order[ran > high - band * high]
    return order[ran < (band + low / high) * high]


def select_top_fraction(
    values: np.ndarray, metric: Metric, fraction: float
) -> np.ndarray:
    """The best ``floor(fraction x rows that ran)`` rows (at least one), best first."""
    order = rank_order(values, metric)
    count = max(1, math.floor(fraction * len(order) + 1e-9)) if len(order) else 0
    return order[:count]


def select_within(values: np.ndarray, metric: Metric, band: float) -> np.ndarray:
    """Rows whose ratio to the best is at most ``1 + band`` (exactly), best first."""
    order = rank_order(values, metric)
    if not len(order):
        return order
    best, higher = float(values[order[0]]), metric.higher_is_better
    kept = [within_exactly(v, best, band, higher=higher) for v in values[order]]
    return order[np.array(kept, dtype=bool)]


SELECTIONS: dict[str, Callable[[np.ndarray, Metric, float], np.ndarray]] = {
    "top": select_top,
    "top-fraction": select_top_fraction,
    "within": select_within,
}


def common_config(
    results: Results, metric: Metric, *, kind: str, amount: float
) -> CommonConfig:
    """The "common config" of the best entries: the rows ``SELECTIONS[kind]`` selects
    with ``amount`` (``--top``'s band, ``--top-fraction``, ``--within``).

    For each tuning parameter the most frequent value among the subset's rows that
    set it wins (missing only when none does); on a tie, the value that appears first
    in rank order (the better entry's), as pandas' ``value_counts().idxmax()`` over
    the reference's ranked subset. Whether that combination was measured is looked
    up over the whole file.
    """
    values = metric_values(results.frame, metric)
    subset = SELECTIONS[kind](values, metric, amount)
    tuning = tuning_columns(results)
    modes = tuple(_mode(results.frame[p], subset, p) for p in tuning)
    config = {p: plain(results.frame[p].iloc[0]) for p in shape_columns(results)}
    config.update(
        {m.name: m.value for m in modes if m.value is not None}
    )  # None: the parameter is absent
    measured, ratio = _find_measured(results.frame, modes, values, metric)
    return CommonConfig(
        results, subset, int(valid_mask(values).sum()), modes, config, measured, ratio
    )


def _mode(column: pd.Series, subset: np.ndarray, name: str) -> ParamMode:
    if not len(subset):
        return ParamMode(name, None, 0, math.nan)
    codes, uniques = pd.factorize(column.iloc[subset])  # missing: -1
    present = codes[codes >= 0]
    if not len(present):  # no row of the subset sets it
        return ParamMode(name, None, len(subset), 1.0)
    counts = np.bincount(present, minlength=len(uniques))
    winner = int(np.argmax(counts))  # the first of the most frequent
    return ParamMode(
        name,
        plain(uniques[winner]),
        int(counts[winner]),
        float(counts[winner] / len(subset)),
    )


def matching_rows(frame: pd.DataFrame, config: dict[str, Any]) -> np.ndarray:
    """Positions of rows whose columns equal every value of ``config`` (None matches
    missing)."""
    mask = np.ones(len(frame), dtype=bool)
    for name, value in config.items():
        column = frame[name]
        hit = column.isna() if value is None else column.eq(value)
        mask &= hit.to_numpy(dtype=bool, na_value=False)
    return np.flatnonzero(mask)


def _find_measured(
    frame: pd.DataFrame, modes: Sequence[ParamMode], values: np.ndarray, metric: Metric
) -> tuple[int | None, float]:
    if any(m.count == 0 for m in modes):
        return None, math.nan
    rows = matching_rows(
        frame, {m.name: m.value for m in modes}
    )  # no tuning columns: every row
    if not len(rows):
        return None, math.nan
    ran = rows[valid_mask(values[rows])]
    position = int(rows[0])
    if len(ran):
        position = int(ran[best_position(values[ran], metric) or 0])
    best_overall = best_position(values, metric)
    if best_overall is None:
        return position, math.nan
    return position, float(
        ratio_to(values[position], float(values[best_overall]), metric)
    )
