"""A sweep over one range column as ratio matrices, one per group: what ``--ranges``
partitions (``kprofile.core.partition``).

Rows are grouped by the group columns (e.g. ``N, K``); within a group the distinct
values of the range column (e.g. ``M``), ascending, are the *points*. A (point, config)
pair is measured with the project's definitions (``kprofile.core.measure``: failed runs
dropped, a config measured twice keeps its best run, ratios to the point's best) and a
config serves a point within the tolerance (``metric.within_tolerance``). Each group
becomes one ``points x configs`` matrix of ratios, ``inf`` where the config does not
serve.

Rows with no usable range value (missing, not finite) cannot be placed, and points
where no run succeeded have no best: both are reported in ``skipped`` and left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from kprofile.core.columns import group_codes
from kprofile.core.measure import check_columns, check_matrix, measure
from kprofile.core.metric import Metric, within_tolerance
from kprofile.core.values import plain, value_label
from kprofile.errors import usage_error

REASON = "reason"
NOTHING_RAN = "no successful run"


@dataclass(frozen=True, eq=False)
class SweepGroup:
    """One group: its values, its points (ascending) and the ratio matrix.

    ``configs`` holds the config ids (rows of ``Sweep.configs``, ascending: first
    appearance in the input) of the matrix columns: the configs that ran somewhere in
    the group."""

    values: dict[str, Any]
    points: np.ndarray
    configs: np.ndarray
    ratio: np.ndarray


@dataclass(frozen=True, eq=False)
class Sweep:
    """Every group's matrix; ``configs`` maps a config id to its parameter values;
    ``skipped`` lists what was left out (group columns, range column, reason);
    ``integral``: every point is a whole number (points are then int64)."""

    groups: tuple[SweepGroup, ...]
    configs: pd.DataFrame
    skipped: pd.DataFrame
    integral: bool


def build_sweep(
    frame: pd.DataFrame,
    *,
    column: str,
    group_cols: Sequence[str],
    param_cols: Sequence[str],
    metric: Metric,
    tol: float,
) -> Sweep:
    """The groups of ``frame`` as ratio matrices over the points of ``column``."""
    group_cols = list(group_cols)
    shape_cols = [*group_cols, column]
    check_columns(
        frame, shape_cols=shape_cols, param_cols=param_cols, metric=metric.column
    )
    points, integral = range_values(frame[column], column)
    placed = np.isfinite(points)
    left_out = _unplaced(frame.loc[~placed], group_cols, column)
    # only the columns measure reads: copying the spec strings would cost more
    rows = frame.loc[placed, [*shape_cols, *param_cols, metric.column]]
    rows[column] = points[placed].astype(np.int64 if integral else np.float64)
    measured = measure(
        rows, shape_cols=shape_cols, param_cols=param_cols, metric=metric
    )
    table, shapes = measured.table, measured.shapes
    codes = group_codes(shapes, group_cols)
    if np.bincount(codes).max() <= 1:  # one point per group, counting failed ones
        where = f" in every group ({', '.join(group_cols)})" if group_cols else ""
        raise usage_error(
            f"{column} is constant{where}: there is nothing to split into ranges"
        )
    ratio = table["ratio"].to_numpy(dtype=np.float64)
    ratio = np.where(within_tolerance(ratio, tol), ratio, np.inf)
    groups = _groups(table, ratio, shapes, codes, group_cols, column)
    ran = np.zeros(len(shapes), dtype=bool)
    ran[table["shape"].to_numpy()] = True
    failed = shapes.loc[~ran, shape_cols].assign(**{REASON: NOTHING_RAN})
    parts = [f for f in (failed, left_out) if not f.empty]
    skipped = (
        pd.concat(parts, ignore_index=True)
        if parts
        else pd.DataFrame(columns=[*shape_cols, REASON])
    )
    return Sweep(groups, measured.configs, skipped, integral)


def range_values(values: pd.Series, column: str) -> tuple[np.ndarray, bool]:
    """The range column as float64 (NaN where missing), and whether every value is a
    whole number. Numbers only: strings and booleans are refused."""
    kind = pd.api.types.infer_dtype(values, skipna=True)
    if kind not in ("integer", "floating", "mixed-integer-float", "empty"):
        example = next(
            (v for v in values.tolist() if plain(v) is not None), values.iloc[0]
        )
        raise usage_error(
            f"{column} must hold numbers to make ranges of; it holds {kind} values "
            f"(e.g. {value_label(example)})"
        )
    _check_exact(values, column)
    numbers = pd.to_numeric(values, errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan
    )
    finite = numbers[np.isfinite(numbers)]
    if not len(finite):
        raise usage_error(f"{column} has no value in any row")
    integral = bool((finite == np.round(finite)).all() and abs(finite).max() < 2**53)
    return numbers, integral


EXACT = 2**53  # every integer up to this is a float64 of its own


def _check_exact(values: pd.Series, column: str) -> None:
    """Refuse a whole number beyond +-2**53: as a point it would be rounded to a
    float64, and two values would share a range boundary (or, beyond float's range,
    not be a number at all)."""
    array = values.to_numpy()
    if array.dtype.kind in "iu":
        outside = array[(array > EXACT) | (array < -EXACT)] if len(array) else array
        found = outside[0].item() if len(outside) else None
    elif array.dtype.kind == "O":
        found = next((v for v in array if _whole(v) and abs(v) > EXACT), None)
    else:
        return
    if found is not None:
        digits = len(str(abs(found)))
        raise usage_error(
            f"{column} holds a whole number of {digits} digits; a range column's "
            f"values are placed exactly only up to 2**53 ({EXACT:,})"
        )


def _whole(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _unplaced(rows: pd.DataFrame, group_cols: list[str], column: str) -> pd.DataFrame:
    """Rows with no usable range value, counted per group."""
    if rows.empty:
        return rows.loc[:, []]
    codes = group_codes(rows, group_cols)
    first = rows.loc[~pd.Series(codes).duplicated().to_numpy(), group_cols]
    counts = np.bincount(codes)
    reasons = [f"{n} row{'s' if n != 1 else ''} with no {column} value" for n in counts]
    return first.assign(**{column: None, REASON: reasons}).reset_index(drop=True)


def _groups(
    table: pd.DataFrame,
    ratio: np.ndarray,
    shapes: pd.DataFrame,
    codes: np.ndarray,
    group_cols: list[str],
    column: str,
) -> tuple[SweepGroup, ...]:
    """One matrix per group that ran, groups in order of first appearance."""
    shape = table["shape"].to_numpy()
    group = codes[shape]
    point = shapes[column].to_numpy()[shape]
    order = np.lexsort((point, group))  # by group, then by point
    bounds = np.flatnonzero(np.diff(group[order])) + 1
    config = table["config"].to_numpy()
    out = []
    cells = 0
    for rows in np.split(order, bounds):
        points, point_index = np.unique(point[rows], return_inverse=True)
        configs, config_index = np.unique(config[rows], return_inverse=True)
        cells += len(points) * len(configs)
        check_matrix(cells, "--ranges")
        matrix = np.full((len(points), len(configs)), np.inf)
        matrix[point_index, config_index] = ratio[rows]
        first = shapes.loc[int(shape[rows[0]])]
        values = {c: plain(first[c]) for c in group_cols}
        out.append(SweepGroup(values, points, configs, matrix))
    return tuple(out)
