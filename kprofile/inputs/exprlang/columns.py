"""Columns as the evaluator sees them: one numpy array, a kind, and two row masks.

``Col.kind`` is BOOL (numpy bool), INT (int64, or object holding exact Python ints
when some do not fit), FLOAT (float64), STR (object holding str) or MIXED (object
holding any of bool/int/float/str). ``na`` marks missing rows, ``err`` rows whose
evaluation failed; either is None when no row is marked. Data in a marked row is a
placeholder of the column's kind (0, False, '', None), never read for a result.

Input columns (numpy arrays, pandas Series, masked and string arrays, object arrays)
are converted once. In an object column None, NaN, pd.NA and NaT are missing values;
in a float column NaN stays the float NaN.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from kprofile.inputs.exprlang.limits import MAX_INT_BITS, MAX_LEN, ExprError
from kprofile.inputs.exprlang.scalar import NA, normalize

BOOL, INT, FLOAT, STR, MIXED = "bool", "int", "float", "str", "mixed"
NUMERIC = (BOOL, INT, FLOAT)
PLACEHOLDER: dict[str, Any] = {BOOL: False, INT: 0, FLOAT: 0.0, STR: "", MIXED: None}
_NATIVE = {BOOL: np.bool_, INT: np.int64, FLOAT: np.float64}
Mask = np.ndarray | None
_MASKED: dict[str, tuple[Any, Any]] = {  # dtype kind -> numpy dtype, missing filler
    "i": (np.int64, 0),
    "u": (np.uint64, 0),
    "b": (np.bool_, False),
    "f": (np.float64, 0.0),
}


@dataclass(frozen=True, eq=False)
class Col:
    data: np.ndarray
    kind: str
    na: Mask = None
    err: Mask = None
    raw: np.ndarray | None = None  # MIXED input columns: the values as given

    @property
    def native(self) -> bool:
        return self.data.dtype != object

    def rows(self, start: int, stop: int) -> Col:
        def part(mask: Mask) -> Mask:
            return None if mask is None else mask[start:stop]

        raw = None if self.raw is None else self.raw[start:stop]
        data = self.data[start:stop]
        return Col(data, self.kind, part(self.na), part(self.err), raw)

    def value(self, row: int) -> Any:
        """Row ``row`` as the scalar evaluator reads it (may raise for MIXED input)."""
        if self.na is not None and self.na[row]:
            return NA
        return normalize(self.data[row] if self.raw is None else self.raw[row])

    def take(self, index: np.ndarray) -> Col:
        def part(mask: Mask) -> Mask:
            return None if mask is None else mask[index]

        raw = None if self.raw is None else self.raw[index]
        return Col(self.data[index], self.kind, part(self.na), part(self.err), raw)


@dataclass(frozen=True, eq=False)
class Coded:
    """A column as a small table of values and, block by block, each row's position
    in it: the whole column is never built (a spec rule reads millions of rows)."""

    table: Col
    codes: Callable[[int, int], np.ndarray]  # positions of rows [start, stop)

    def rows(self, start: int, stop: int) -> Col:
        return self.table.take(self.codes(start, stop))

    def value(self, row: int) -> Any:
        return self.table.value(int(self.codes(row, row + 1)[0]))


def coded(values: Sequence[Any], codes: Callable[[int, int], np.ndarray]) -> Coded:
    """``Coded`` from the table's values as given (any Python values)."""
    table = np.empty(len(values), dtype=object)
    for i, value in enumerate(values):
        table[i] = value
    return Coded(convert_objects(table), codes)


def any_of(*masks: Mask) -> Mask:
    """Rows marked in any of ``masks`` (None if none is given)."""
    present = [m for m in masks if m is not None]
    if not present:
        return None
    if len(present) == 1:
        return present[0]
    return np.logical_or.reduce(present)


def only(mask: Mask, where: Mask) -> Mask:
    """``mask & where``; None is no row as a ``mask``, every row as ``where``."""
    if mask is None or where is None:
        return mask
    return mask & where


def full(value: Any, size: int) -> Col:
    """A constant (a normalized scalar, or NA) as a column of ``size`` rows."""
    if value is NA:
        return Col(np.full(size, None, dtype=object), MIXED, na=np.ones(size, bool))
    kind = {bool: BOOL, int: INT, float: FLOAT, str: STR}[type(value)]
    if kind == INT and not -(2**63) <= value < 2**63:
        data = np.empty(size, dtype=object)
        data.fill(value)
        return Col(data, INT)
    if kind in _NATIVE:
        return Col(np.full(size, value, dtype=_NATIVE[kind]), kind)
    data = np.empty(size, dtype=object)
    data.fill(value)
    return Col(data, kind)


def failed(size: int) -> Col:
    """A column whose every row failed (a constant that cannot be evaluated)."""
    return Col(np.full(size, None, dtype=object), MIXED, err=np.ones(size, bool))


def convert(column: Any) -> Col:
    """An input column (array or Series) as a Col, converted once."""
    if isinstance(column, pd.Series):
        column = column.array
    if isinstance(column, pd.arrays.NumpyExtensionArray):
        column = column.to_numpy()
    if isinstance(column, np.ndarray) and column.dtype.kind in "biuf":
        return _native(column, None)
    dtype = getattr(column, "dtype", None)
    if isinstance(dtype, pd.api.extensions.ExtensionDtype) and dtype.kind in "biuf":
        missing = np.asarray(column.isna(), dtype=bool)
        target, filler = _MASKED[dtype.kind]
        data = column.to_numpy(dtype=target, na_value=filler)
        return _native(data, missing if missing.any() else None)
    return convert_objects(np.asarray(column, dtype=object))


def _native(data: np.ndarray, na: Mask) -> Col:
    kind = data.dtype.kind
    if kind == "b":
        return Col(data.astype(np.bool_, copy=False), BOOL, na)
    if kind == "f":
        return Col(data.astype(np.float64, copy=False), FLOAT, na)
    if kind == "u" and data.size and int(data.max()) >= 2**63:
        return convert_objects(data.astype(object), na)
    return Col(data.astype(np.int64, copy=False), INT, na)


def convert_objects(values: np.ndarray, na: Mask = None) -> Col:
    """An object array: missing values found, kind inferred, odd types normalized."""
    missing = np.asarray(pd.isna(values), dtype=bool)
    if na is not None:
        missing |= na
    marked = missing if missing.any() else None
    present = values[~missing] if marked is not None else values
    kinds = {type(v) for v in present}
    if len(kinds) == 1 or not kinds:
        kind = {bool: BOOL, int: INT, float: FLOAT, str: STR}.get(
            kinds.pop() if kinds else str, ""
        )
        if kind:
            return _typed(values, kind, marked)
    return _mixed(values, marked)


def _typed(values: np.ndarray, kind: str, na: Mask) -> Col:
    data = values.copy() if na is not None else values
    if na is not None:
        data[na] = PLACEHOLDER[kind]
    if kind in (BOOL, FLOAT):
        return Col(data.astype(_NATIVE[kind]), kind, na)
    if kind == INT:
        try:
            return Col(data.astype(np.int64), INT, na)
        except OverflowError:
            sizes = np.array([v.bit_length() for v in data.tolist()])
            return _within(values, Col(data, INT, na), sizes > MAX_INT_BITS)
    lengths = np.fromiter(map(len, data), int, len(data))
    return _within(values, Col(data, STR, na), lengths > MAX_LEN)


def _within(values: np.ndarray, column: Col, over: np.ndarray) -> Col:
    """``column`` where values over a size limit fail (as they do when read)."""
    if not over.any():
        return column
    data = column.data.copy()
    data[over] = PLACEHOLDER[column.kind]
    return Col(data, column.kind, column.na, err=over, raw=values)


def _mixed(values: np.ndarray, na: Mask) -> Col:
    data = np.empty(len(values), dtype=object)
    bad = np.zeros(len(values), dtype=bool)
    for row, value in enumerate(values.tolist()):
        if na is not None and na[row]:
            continue
        try:
            data[row] = normalize(value)
        except ExprError:
            bad[row] = True
    err = bad if bad.any() else None
    return Col(data, MIXED, na, err, raw=values)
