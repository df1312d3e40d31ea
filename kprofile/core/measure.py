"""Measurements reduced to one ratio per (shape, config): what ``--cover`` and
``--importance`` share.

Input: one row per measured (shape, config). A shape is the tuple of ``shape_cols``
values, a config the tuple of ``param_cols`` values (NaN counts as a value of its own).
Failed runs (metric 0, negative, NaN or infinite) are dropped; a (shape, config)
measured twice keeps its best measurement. Ratio convention: 1.0 is the shape's best,
worse is above 1.0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from kprofile.core.metric import Metric, ratio_to
from kprofile.errors import column_list, usage_error
from kprofile.inputs.limits import MAX_MATRIX_CELLS, MAX_SHAPES


@dataclass(frozen=True, eq=False)
class Measured:
    """Successful measurements reduced to one row per (shape, config), with ratios.

    ``table`` columns: ``shape`` and ``config`` (integer ids, numbered in order of first
    appearance in the input), ``value`` (the best measurement), ``best`` (the shape's
    best value) and ``ratio`` (1.0 for the shape's best). Sorted by shape, then config.
    ``shapes`` / ``configs`` map those ids (their index) to the shape / parameter
    columns, including shapes and configs that only had failed runs. ``failed``: the
    (``shape``, ``config``) pairs whose every run failed (kbench's recorded failures
    among them), which therefore have no row in ``table``, with ``kind``: what kbench
    recorded of the failure ("" where it recorded nothing).
    """

    table: pd.DataFrame
    shapes: pd.DataFrame
    configs: pd.DataFrame
    failed: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(
            {
                "shape": np.array([], dtype=np.int64),
                "config": np.array([], dtype=np.int64),
                "kind": np.array([], dtype=object),
            }
        )
    )


def measure(
    df: pd.DataFrame,
    *,
    shape_cols: Sequence[str],
    param_cols: Sequence[str],
    metric: Metric,
    failure: str | None = None,
) -> Measured:
    """Validate the input and compute every (shape, config) ratio, vectorized.
    ``failure``: the column holding what kbench recorded of a failed run (its kind),
    kept with the failed pairs."""
    shape_cols, param_cols = list(shape_cols), list(param_cols)
    column = metric.column
    check_columns(df, shape_cols=shape_cols, param_cols=param_cols, metric=column)
    shape_id = group_ids(df, shape_cols)
    check_shapes(int(shape_id.max()) + 1 if len(shape_id) else 0, shape_cols)
    config_id = group_ids(df, param_cols)
    value = pd.to_numeric(df[column], errors="coerce").astype(float)
    ok = np.isfinite(value.to_numpy()) & (value.to_numpy() > 0)
    if not ok.any():
        raise usage_error(
            f"no successful run: every {column!r} value is 0, negative or missing"
        )
    best_of = "max" if metric.higher_is_better else "min"
    table = (
        pd.DataFrame(
            {"shape": shape_id[ok], "config": config_id[ok], "value": value[ok]}
        )
        .groupby(["shape", "config"], sort=True)["value"]
        .agg(best_of)
        .reset_index()
    )
    by_shape = table.groupby("shape")["value"]
    highest = metric.higher_is_better
    table["best"] = by_shape.transform("max") if highest else by_shape.transform("min")
    best = table["best"].to_numpy(dtype=np.float64)
    table["ratio"] = ratio_to(table["value"].to_numpy(dtype=np.float64), best, metric)
    return Measured(
        table=table,
        shapes=_first_rows(df, shape_cols, shape_id),
        configs=_first_rows(df, param_cols, config_id),
        failed=_only_failed(
            shape_id[~ok],
            config_id[~ok],
            table,
            df[failure].to_numpy(dtype=object)[~ok] if failure in df.columns else None,
        ),
    )


def _only_failed(
    shape_id: pd.Series,
    config_id: pd.Series,
    table: pd.DataFrame,
    kinds: np.ndarray | None,
) -> pd.DataFrame:
    """The (shape, config) pairs of the failed runs that have no successful run, each
    with the kind kbench recorded for one of its runs (``kind``; "" where none)."""
    kind = [k if isinstance(k, str) else "" for k in kinds] if kinds is not None else ""
    pairs = (
        pd.DataFrame(
            {"shape": shape_id.to_numpy(), "config": config_id.to_numpy(), "kind": kind}
        )
        .sort_values("kind", ascending=False, kind="stable")  # a recorded kind first
        .drop_duplicates(["shape", "config"])
    )
    ran = pd.MultiIndex.from_frame(table[["shape", "config"]])
    keep = ~pd.MultiIndex.from_frame(pairs[["shape", "config"]]).isin(ran)
    return pairs[keep].sort_values(["shape", "config"]).reset_index(drop=True)


def check_shapes(count: int, columns: Sequence[str]) -> None:
    """Refuse more than MAX_SHAPES shapes (or groups) before anything is made per
    shape."""
    if count > MAX_SHAPES:
        names = ", ".join(columns) or "(none)"
        raise usage_error(
            f"{count:,} distinct shapes ({names}), over the limit of {MAX_SHAPES:,}"
        )


def check_matrix(cells: int, what: str) -> None:
    """Refuse a dense ratio matrix of more than MAX_MATRIX_CELLS cells before it is
    allocated."""
    if cells > MAX_MATRIX_CELLS:
        raise usage_error(
            f"{what}: {cells:,} (shape, config) ratios to hold, over the limit of "
            f"{MAX_MATRIX_CELLS:,}"
        )


def check_columns(
    df: pd.DataFrame,
    *,
    shape_cols: Sequence[str],
    param_cols: Sequence[str],
    metric: str,
) -> None:
    """Refuse empty input and columns the frame lacks (a usage error)."""
    if len(df) == 0:
        raise usage_error("no results: the table is empty")
    if not param_cols:
        raise usage_error("no parameter columns to analyze")
    wanted = [*shape_cols, *param_cols, metric]
    unknown = [c for c in dict.fromkeys(wanted) if c not in df.columns]
    if unknown:
        why = " to group by (-p)" if set(unknown) <= set(shape_cols) else ""
        named = {*shape_cols, *param_cols}  # the parameters first, in frame order
        offered = [*(c for c in df.columns if c in named), *df.columns]
        raise usage_error(
            f"no column {', '.join(map(repr, unknown))}{why}; {column_list(offered)}"
        )
    both = sorted(
        set(shape_cols) & set(param_cols) | ({metric} & set([*shape_cols, *param_cols]))
    )
    if both:
        raise usage_error(
            f"column(s) {', '.join(map(repr, both))} used in more than one role"
        )


def group_ids(df: pd.DataFrame, cols: list[str]) -> pd.Series:
    """Integer id per row for the tuple of ``cols``, numbered by first appearance; NaN
    is a value."""
    if not cols:
        return pd.Series(0, index=df.index, dtype="int64")
    ids = df.groupby(cols, sort=False, dropna=False).ngroup()
    return ids.astype("int64")


def _first_rows(df: pd.DataFrame, cols: list[str], ids: pd.Series) -> pd.DataFrame:
    first = ~ids.duplicated()
    out = df.loc[first.to_numpy(), cols].copy()
    out.index = pd.Index(ids[first].to_numpy(), name=None)
    return out.sort_index()
