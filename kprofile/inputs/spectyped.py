"""A spec parameter's column from its value ids: the narrowest dtype its values allow
(int64, float64, bool, their nullable forms where a row lacks it, else object), and
its value codes (``value_codes``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

GATHER_ROWS = 1 << 16


def typed_column(
    ids: np.ndarray, values: list[Any], every_value_used: bool = False
) -> tuple[Any, np.ndarray]:
    """Turn value ids (-1: the row lacks the parameter) into the narrowest column:
    int64, float64, bool or object (each distinct value converted once; only the
    values some row has count), and the column's codes (``value_codes``). Every
    table has one more entry, at its end, for the missing value: an id of -1 reads
    it, so each column is one gather. ``every_value_used``: the caller knows each
    id in ``values`` is some row's (no pass over ``ids`` to find out)."""
    seen = _seen(ids, len(values), every_value_used)  # seen[-1]: some row lacks it
    present = np.flatnonzero(seen[:-1])
    used = [values[i] for i in present.tolist()]
    dtype = _narrowest(used)
    if dtype is not None:
        table = np.full(
            len(values) + 1, np.nan if dtype == np.float64 else 0, dtype=dtype
        )
        try:
            table[present] = np.array(used, dtype=dtype)
        except OverflowError:  # an int too large for a float
            dtype = None
    if dtype is None:
        table = np.empty(len(values) + 1, dtype=object)
        table[:-1] = values
        table[-1] = None
    codes = value_codes(ids, table[:-1])
    out = gather(table, ids)
    if not seen[-1] or dtype in (None, np.float64):  # None, NaN: missing already
        return out, codes
    missing = ids < 0
    if dtype == np.bool_:
        return pd.arrays.BooleanArray(out, missing), codes
    return pd.arrays.IntegerArray(out, missing), codes


def _seen(ids: np.ndarray, count: int, every_value_used: bool) -> np.ndarray:
    """Which of ``count`` value ids (and, last, the missing id -1) some row has."""
    if every_value_used:
        seen = np.ones(count + 1, dtype=bool)
        seen[-1] = bool(len(ids)) and int(ids.min()) < 0
    else:
        seen = np.zeros(count + 1, dtype=bool)
        seen[ids] = True
    return seen


def value_codes(ids: np.ndarray, table: np.ndarray) -> np.ndarray:
    """The codes ``pd.factorize`` gives the column ``table[ids]`` (-1 where an id is
    -1, a missing value), up to their numbering: equal values share a code, as
    pandas compares them (the table's values factorized, so ``1`` and ``1.0`` of an
    object column are one value there too). In the narrowest integer type."""
    narrow = np.min_scalar_type(-len(table) - 1)
    codes = pd.factorize(table)[0]
    if np.array_equal(codes, np.arange(len(table))):  # distinct values: ids are codes
        return ids.astype(narrow)
    lookup = np.empty(len(table) + 1, dtype=narrow)
    lookup[:-1] = codes
    lookup[-1] = -1
    return gather(lookup, ids)


def gather(table: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """``table[ids]`` a block of rows at a time: numpy turns an index array of
    int32 into one of int64 first, which for a whole column is a temporary as large
    as the column (page faults, at 5M rows 40 MB a column); a block's is small and
    reused. An id of -1 reads the table's last entry."""
    out = np.empty(len(ids), dtype=table.dtype)
    for start in range(0, len(ids), GATHER_ROWS):
        stop = start + GATHER_ROWS
        np.take(table, ids[start:stop], out=out[start:stop])
    return out


def _narrowest(used: list[Any]) -> Any:
    """bool, int64 or float64 for values all of that kind (ints within int64 for
    int64), None for anything else (object)."""
    kinds = {type(v) for v in used}
    if not kinds or type(None) in kinds:
        return None
    if kinds == {bool}:
        return np.bool_
    if kinds <= {int}:
        return np.int64 if all(-(2**63) < v < 2**63 for v in used) else np.float64
    return np.float64 if kinds <= {int, float} else None
