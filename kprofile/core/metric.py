"""The metric: which column, which direction, which rows count, and ratios to the best.

Ratio convention (whole project): the best entry has ratio 1.0, worse entries > 1.0
(lower-is-better: value / best; higher-is-better: best / value). Failed runs (metric
0, negative, missing or not finite) never rank as best and get no ratio (NaN).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from kprofile.core.defaults import DEFAULT_METRIC
from kprofile.errors import usage_error

_HIGHER = re.compile(
    r"/\s*s\b|/\s*sec\b|per[ _-]?s(ec(ond)?)?\b|throughput|flops|bandwidth|gb/s",
    re.IGNORECASE,
)
_EXCLUDED = ("mesh_idx",)
_MET_UNIT = re.compile(r"met \([^()]+\)", re.IGNORECASE)  # met (s), met (us), ...


@dataclass(frozen=True)
class Metric:
    column: str
    higher_is_better: bool

    @property
    def direction(self) -> str:
        return "higher is better" if self.higher_is_better else "lower is better"

    def quotient(self, value: str, best: str, sep: str = "/") -> str:
        """How ``ratio_to(value, best)`` divides, named: ``worst/best`` when lower
        is better, ``best/worst`` when higher is (so that it is >= 1 either way)."""
        first, second = (best, value) if self.higher_is_better else (value, best)
        return f"{first}{sep}{second}"


def higher_is_better(column: str) -> bool:
    """Per-second units (``GElems/s``, ``GB/s``, ``GFLOPS/s``) and throughput are
    higher-is-better; times (``met (ms)``, ``us``, ``s``) and anything else are
    lower-is-better."""
    return bool(_HIGHER.search(column))


def numeric_columns(frame: pd.DataFrame, exclude: Collection[str] = ()) -> list[str]:
    """Columns that can serve as a metric: numeric, not boolean, not a row id
    (``mesh_idx``, or the columns in ``exclude``)."""
    return [
        str(c)
        for c, dtype in frame.dtypes.items()
        if pd.api.types.is_numeric_dtype(dtype)
        and not pd.api.types.is_bool_dtype(dtype)
        and c not in _EXCLUDED
        and c not in exclude
    ]


def resolve_metric(
    frames: Sequence[pd.DataFrame],
    query: str,
    *,
    higher: bool | None = None,
    exclude: Collection[str] = (),
) -> Metric:
    """The column ``query`` names in every frame: exact name, else the only column it is
    a case-insensitive prefix of (an exact case-insensitive match wins over prefixes).
    ``exclude`` names row-id columns, which are never a metric.
    """
    common = _common_columns(frames, exclude)
    column = _match(common, query)
    if column is None:
        available = (
            ", ".join(repr(c) for c in _numeric_common(frames, common)) or "none"
        )
        raise usage_error(
            f"no column matches metric {query!r}; numeric columns: {available}",
        )
    not_numeric = [f for f in frames if str(column) not in numeric_columns(f)]
    if not_numeric:
        available = (
            ", ".join(repr(c) for c in _numeric_common(frames, common)) or "none"
        )
        raise usage_error(
            f"metric {column!r} is not numeric; numeric columns: {available}",
        )
    return Metric(column, higher_is_better(column) if higher is None else higher)


def default_metric(
    frames: Sequence[pd.DataFrame],
    *,
    higher: bool | None = None,
    exclude: Collection[str] = (),
) -> tuple[Metric, bool]:
    """The metric when ``-m`` is not given, and whether it is not ``met (ms)``.

    ``met (ms)`` (Mojo's ``std.benchmark``) when every frame has it; else the only
    numeric ``met (<unit>)`` column (Modular's Python harness writes ``met (s)``), a
    time: lower is better unless ``higher`` says otherwise. Several such columns and
    none of them ``met (ms)``: the user must choose with ``-m``.
    """
    common = _common_columns(frames, exclude)
    if _match(common, DEFAULT_METRIC) is not None:
        metric = resolve_metric(frames, DEFAULT_METRIC, higher=higher, exclude=exclude)
        return metric, False
    timed = [c for c in _numeric_common(frames, common) if _MET_UNIT.fullmatch(c)]
    if len(timed) > 1:
        names = ", ".join(repr(c) for c in timed)
        raise usage_error(
            f"no {DEFAULT_METRIC!r} column and several metric columns: {names}; "
            "choose one with -m"
        )
    if not timed:  # the usual message: no such column, and the numeric ones
        return resolve_metric(frames, DEFAULT_METRIC, exclude=exclude), False
    return Metric(timed[0], False if higher is None else higher), True


def _common_columns(
    frames: Sequence[pd.DataFrame], exclude: Collection[str]
) -> list[str]:
    return [
        str(c)
        for c in frames[0].columns
        if c not in exclude and all(c in f.columns for f in frames[1:])
    ]


def _numeric_common(frames: Sequence[pd.DataFrame], common: list[str]) -> list[str]:
    return [c for c in common if all(c in numeric_columns(f) for f in frames)]


def _match(columns: list[str], query: str) -> str | None:
    if query in columns:
        return query
    folded = query.casefold()
    exact = [c for c in columns if c.casefold() == folded]
    if len(exact) == 1:
        return exact[0]
    prefixed = [c for c in columns if c.casefold().startswith(folded)]
    if len(prefixed) > 1:
        raise usage_error(
            f"metric {query!r} is ambiguous: {', '.join(repr(c) for c in prefixed)}",
        )
    return prefixed[0] if prefixed else None


def metric_values(frame: pd.DataFrame, metric: Metric) -> np.ndarray:
    """The metric column as float64 (missing -> NaN)."""
    column = frame[metric.column]
    if column.dtype == np.float64:  # the usual case, without to_numeric's checks
        return column.to_numpy(dtype=np.float64, copy=True)
    return pd.to_numeric(column, errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan
    )


def valid_mask(values: np.ndarray) -> np.ndarray:
    """Rows that ran: finite and strictly positive."""
    with np.errstate(invalid="ignore"):
        return np.isfinite(values) & (values > 0)


def best_position(values: np.ndarray, metric: Metric) -> int | None:
    """Position of the best valid row (first one on ties), or None if no row ran."""
    valid = valid_mask(values)
    if not valid.any():
        return None
    if metric.higher_is_better:
        return int(np.argmax(np.where(valid, values, -np.inf)))
    return int(np.argmin(np.where(valid, values, np.inf)))


def worst_position(values: np.ndarray, metric: Metric) -> int | None:
    """Position of the worst valid row (first one on ties), or None if no row ran."""
    valid = valid_mask(values)
    if not valid.any():
        return None
    if metric.higher_is_better:
        return int(np.argmin(np.where(valid, values, np.inf)))
    return int(np.argmax(np.where(valid, values, -np.inf)))


def ratio_to(
    values: np.ndarray | float, best: np.ndarray | float, metric: Metric
) -> np.ndarray:
    """Ratio of each value to ``best`` (1.0 = as good, > 1.0 = worse); NaN for failed
    values, ``inf`` where the ratio is beyond the largest float (1e308 against 5e-324:
    an overflow is a well-defined answer here, not a warning)."""
    array = np.asarray(values, dtype=np.float64)
    with np.errstate(all="ignore"):
        ratio = best / array if metric.higher_is_better else array / best
    return np.where(valid_mask(array), ratio, np.nan)


#: How far above ``1 + X`` a ratio may land and still be within X of the best: a ratio
#: computed as value / best can come out one rounding above the band's edge.
BAND_SLACK = 1e-12


def within_band(ratios: np.ndarray, tol: float) -> np.ndarray:
    """The ratios within ``tol`` of the best, ``ratio <= 1 + tol``: the rule of
    ``--within``, ``--keep-within`` and ``--rerun-within`` (NaN, a failed run: no)."""
    with np.errstate(invalid="ignore"):
        return np.asarray(ratios, dtype=np.float64) <= 1.0 + tol + BAND_SLACK


def rank_order(values: np.ndarray, metric: Metric) -> np.ndarray:
    """Positions of the valid rows, best first; ties keep input order."""
    valid = np.flatnonzero(valid_mask(values))
    keys = -values[valid] if metric.higher_is_better else values[valid]
    return valid[np.argsort(keys, kind="stable")]
