"""One conversion for values taken out of a table, and one way to label them.

``plain`` turns numpy and pandas scalars into Python values (missing values become
None); every writer (manifests, JSON, charts, labels) starts from it. ``value_label``
spells a value as a spec string does (``128``, ``True``, ``ws_pingpong``), with
``NA`` for a missing value; ``shape_label`` joins labels into ``M=256/N=20480``.
``same_value`` is the one definition of "the same value" as a tuning table means it
(manifest edits, and matching a table's entries against results).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

MISSING_LABEL = "NA"


def plain(value: Any) -> Any:
    """numpy/pandas scalars as Python values; None, NA, NaT and NaN as None."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of ``frame`` as dicts keyed by column name (values as pandas holds
    them)."""
    return [{str(k): v for k, v in row.items()} for row in frame.to_dict("records")]


def value_label(value: Any) -> str:
    """A parameter value as it reads in a spec string; ``NA`` when missing."""
    value = plain(value)
    return MISSING_LABEL if value is None else str(value)


def shape_label(values: Mapping[str, Any]) -> str:
    """``M=256/N=20480/K=5376`` for a mapping of column to value."""
    return "/".join(f"{k}={value_label(v)}" for k, v in values.items())


def canon(value: Any) -> tuple[Any, ...]:
    """Equality as a tuning table means it: 256 == 256.0, but True != 1 and '1' != 1.

    For Python scalars; values taken out of a table go through ``plain`` first."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("num", "nan") if value != value else ("num", value)
    if value is None:
        return ("null",)
    if isinstance(value, str):
        return ("str", value)
    return ("other", repr(value))


def same_value(a: Any, b: Any) -> bool:
    return canon(a) == canon(b)


def canon_codes(
    column: pd.Series, vocabulary: dict[tuple[Any, ...], int]
) -> np.ndarray:
    """One integer per row of ``column``: the code of its value as ``same_value``
    means it (``vocabulary`` maps ``canon(plain(value))`` to codes and grows with new
    values). A typed column converts each distinct value once; an object column is
    converted value by value, since hashing would make ``True`` and ``1`` one value."""
    if column.dtype == object:
        keys = [canon(plain(v)) for v in column.to_numpy(dtype=object)]
        return np.array(
            [vocabulary.setdefault(k, len(vocabulary)) for k in keys], dtype=np.int64
        )
    local, uniques = pd.factorize(column, use_na_sentinel=False)
    codes = np.array(
        [vocabulary.setdefault(canon(plain(u)), len(vocabulary)) for u in uniques],
        dtype=np.int64,
    )
    return codes[local] if len(codes) else np.zeros(len(column), dtype=np.int64)


def canon_code(value: Any, vocabulary: dict[tuple[Any, ...], int]) -> int:
    """``canon_codes`` for one value (an entry's, say)."""
    return vocabulary.setdefault(canon(plain(value)), len(vocabulary))
