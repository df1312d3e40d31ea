"""One conversion for values taken out of a table, and one way to label them.

``plain`` turns numpy and pandas scalars into Python values (missing values become
None); every writer (manifests, JSON, charts, labels) starts from it. ``entry`` makes
a row of a results table a manifest entry (missing values left out: a spec string
spells no null and no NaN); ``exact`` converts a value that came from a YAML input,
where null and ``.nan`` are values, without turning either into "missing".
``value_label`` spells a value as a spec string does (``128``, ``True``,
``ws_pingpong``), with ``NA`` for a missing value; ``shape_label`` joins labels into
``M=256/N=20480``. ``canon_codes`` numbers a column's values by
``tuning_codegen.values.value_key``, the one definition of "the same value" (matching a
table's entries against results).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from tuning_codegen.values import value_key

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


def exact(value: Any) -> Any:
    """numpy/pandas scalars as Python values, keeping None, NaN and -0.0 as they are;
    a pandas Timestamp as a ``datetime`` when it has no nanoseconds."""
    if isinstance(value, np.datetime64):
        value = pd.Timestamp(value)
    elif isinstance(value, np.generic):
        return value.item()
    if isinstance(value, pd.Timestamp) and value is not pd.NaT:
        return value.to_pydatetime() if not value.nanosecond else value
    return value


def is_missing(value: Any) -> bool:
    """pandas' missing markers, which are never a value (None and NaN may be)."""
    return value is pd.NA or value is pd.NaT


def entry(values: Mapping[Any, Any]) -> dict[str, Any]:
    """A row of a results table as a manifest entry: Python values, missing values
    (None, NA, NaN) left out."""
    out = {}
    for key, value in values.items():
        value = plain(value)
        if value is not None:
            out[str(key)] = value
    return out


def entries(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of a results table as manifest entries (see ``entry``)."""
    return [entry(row) for row in frame.to_dict("records")]


def value_label(value: Any) -> str:
    """A parameter value as it reads in a spec string; ``NA`` when missing."""
    value = plain(value)
    return MISSING_LABEL if value is None else str(value)


def counted(number: int, one: str, many: str) -> str:
    """``1 entry``, ``3 entries``: a count and its noun."""
    return f"{number} {one if number == 1 else many}"


def shape_label(values: Mapping[str, Any]) -> str:
    """``M=256/N=20480/K=5376`` for a mapping of column to value."""
    return "/".join(f"{k}={value_label(v)}" for k, v in values.items())


def canon_codes(column: pd.Series, vocabulary: dict[Hashable, int]) -> np.ndarray:
    """One integer per row of ``column``: the code of its value as ``same_value``
    means it (``vocabulary`` maps ``value_key(plain(value))`` to codes and grows with
    new values). A typed column converts each distinct value once; an object column is
    converted value by value, since hashing would make ``True`` and ``1`` one value."""
    if column.dtype == object:
        keys = [value_key(plain(v)) for v in column.to_numpy(dtype=object)]
        return np.array(
            [vocabulary.setdefault(k, len(vocabulary)) for k in keys], dtype=np.int64
        )
    local, uniques = pd.factorize(column, use_na_sentinel=False)
    codes = np.array(
        [vocabulary.setdefault(value_key(plain(u)), len(vocabulary)) for u in uniques],
        dtype=np.int64,
    )
    return codes[local] if len(codes) else np.zeros(len(column), dtype=np.int64)


def canon_code(value: Any, vocabulary: dict[Hashable, int]) -> int:
    """``canon_codes`` for one value (an entry's, say)."""
    return vocabulary.setdefault(value_key(plain(value)), len(vocabulary))


def canon_code_list(values: list[Any], vocabulary: dict[Hashable, int]) -> np.ndarray:
    """``canon_code`` of each of ``values`` (an entry's, say), each distinct
    ``(type, value)`` converted once (the type keeps ``True`` and ``1`` apart)."""
    seen: dict[Hashable, int] = {}
    codes = []
    for value in values:
        try:
            memo: Hashable = (type(value), value)
            code = seen.get(memo)
        except TypeError:  # a list or a mapping: converted every time
            memo, code = None, None
        if code is None:
            code = canon_code(value, vocabulary)
            if memo is not None:
                seen[memo] = code
        codes.append(code)
    return np.array(codes, dtype=np.int64)
