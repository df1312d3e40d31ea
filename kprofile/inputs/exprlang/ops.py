"""Operators on columns (``Col``), row by row equal to ``scalar``'s Python semantics.

numpy computes what it computes exactly (``numeric``); the rows it cannot (and every
row of text or mixed columns, except the comparisons numpy does the Python way) go
through ``scalar`` one value at a time, within ``care`` (the rows whose value can still
matter) and charged to the evaluation's ``Budget``. Missing rows stay missing, failed
rows stay failed, and a row's new failure is marked in ``err``, never raised: whether
it matters is decided by ``and``/``or`` above it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

import numpy as np

from kprofile.inputs.exprlang import numeric, scalar
from kprofile.inputs.exprlang.columns import (
    BOOL,
    FLOAT,
    INT,
    MIXED,
    NUMERIC,
    PLACEHOLDER,
    STR,
    Col,
    Mask,
    any_of,
    only,
)
from kprofile.inputs.exprlang.limits import (
    MAX_INT_BITS,
    OBJECT_COST,
    PY_COST,
    Budget,
    ExprError,
)

_KINDS = {bool: BOOL, int: INT, float: FLOAT, str: STR}


def live_rows(size: int, care: Mask, *columns: Col) -> np.ndarray:
    """Rows in ``care`` where no operand is missing or failed."""
    skip = any_of(*(m for c in columns for m in (c.na, c.err)))
    live = np.ones(size, dtype=bool) if care is None else care.copy()
    if skip is not None:
        live &= ~skip
    return live


def binary(op: type[ast.operator], a: Col, b: Col, care: Mask, budget: Budget) -> Col:
    size = len(a.data)
    live = live_rows(size, care, a, b)
    fail: Mask = None

    def function(x: Any, y: Any) -> Any:
        return scalar.binary(op, x, y)

    integers = {a.kind, b.kind} <= {INT, BOOL} and op in numeric.EXACT_OPS
    if a.kind in NUMERIC and b.kind in NUMERIC and a.native and b.native:
        budget.work(size)
        fast = numeric.arithmetic(op, a.data, b.data)
        fail = only(fast.fail, live)
        slow = np.zeros(size, dtype=bool) if fast.slow is None else fast.slow & live
        if fail is not None:
            slow &= ~fail
        base = Col(fast.data, _kind_of(fast.data))
        if integers:
            result = exact_integers(op, (a, b), slow, budget, base)
        else:
            result = by_python(function, (a, b), slow, budget, base)
    elif integers:
        result = exact_integers(op, (a, b), live, budget, None)
    else:
        result = by_python(function, (a, b), live, budget)
    return _joined(result, (a, b), fail)


def exact_integers(
    op: type[ast.operator],
    operands: tuple[Col, Col],
    rows: np.ndarray,
    budget: Budget,
    base: Col | None,
) -> Col:
    """``+ - * // %`` on Python's integers for ``rows`` (numpy object arithmetic)."""
    size = len(rows)
    index = np.flatnonzero(rows)
    if base is not None and not len(index):
        return base
    budget.work(len(index) * OBJECT_COST)
    x, y = (_python_ints(c.data[index]) for c in operands)
    values, bad = numeric.exact(op, x, y)
    bits = numeric.bit_lengths(values)
    budget.memory(int(bits.sum()) // 8 + 32 * len(index))
    bad |= bits > MAX_INT_BITS
    values[bad] = 0
    data = np.zeros(size, dtype=np.int64) if base is None else base.data
    try:
        data = data.copy()
        data[index] = values.astype(np.int64)
    except OverflowError:
        data = data.astype(object)
        data[index] = values
    err = np.zeros(size, dtype=bool)
    err[index[bad]] = True
    return Col(data, INT, err=err if err.any() else None)


def _python_ints(data: np.ndarray) -> np.ndarray:
    return data.astype(np.int64).astype(object) if data.dtype != object else data


def compare(op: type[ast.cmpop], a: Col, b: Col, care: Mask, budget: Budget) -> Col:
    with np.errstate(all="ignore"):  # NaN compares False, as in Python
        return _compare(op, a, b, care, budget)


def _compare(op: type[ast.cmpop], a: Col, b: Col, care: Mask, budget: Budget) -> Col:
    size = len(a.data)
    live = live_rows(size, care, a, b)
    budget.work(size)
    fail: Mask = None
    kinds = {a.kind, b.kind}
    if kinds <= set(NUMERIC) and a.native and b.native:
        fast = numeric.comparison(op, a.data, b.data)
        result = Col(fast.data, BOOL)
        slow = None if fast.slow is None else fast.slow & live
        if slow is not None and slow.any():
            pair = (a.data[slow].astype(object), b.data[slow].astype(object))
            result.data[slow] = numeric.COMPARE_UFUNCS[op](*pair)
    elif kinds <= set(NUMERIC) or kinds == {STR}:  # no error possible: numpy may do it
        objects = (a.data.astype(object), b.data.astype(object))
        result = Col(np.asarray(numeric.COMPARE_UFUNCS[op](*objects), dtype=bool), BOOL)
    elif STR in kinds and kinds - {STR} <= set(NUMERIC):
        result = Col(np.full(size, op is ast.NotEq), BOOL)
        fail = None if op in (ast.Eq, ast.NotEq) else live
    else:

        def function(x: Any, y: Any) -> Any:
            return scalar.compare(op, x, y)

        result = by_python(function, (a, b), live, budget)
    return _joined(result, (a, b), fail)


def unary(op: type[ast.unaryop], a: Col, care: Mask, budget: Budget) -> Col:
    size = len(a.data)
    budget.work(size)
    if op is ast.Not:
        return Col(~truth(a), BOOL, a.na, a.err)
    if a.kind in NUMERIC and a.native:
        data = a.data.astype(np.int64) if a.kind == BOOL else a.data
        if op is ast.USub:
            with np.errstate(all="ignore"):
                data = -data
        base = Col(data, _kind_of(data))
        slow = live_rows(size, care, a) & (data == numeric.INT64_MIN)
        if data.dtype.kind != "i" or not slow.any():
            return _joined(base, (a,), None)
    else:
        base, slow = None, live_rows(size, care, a)
    result = by_python(lambda x: scalar.unary(op, x), (a,), slow, budget, base)
    return _joined(result, (a,), None)


def truth(a: Col) -> np.ndarray:
    """Python truthiness of every row (missing and failed rows give False)."""
    if a.kind == BOOL:
        return a.data.astype(bool, copy=False)
    if a.native:
        return a.data != 0
    return a.data.astype(bool)


def _kind_of(data: np.ndarray) -> str:
    return {"b": BOOL, "i": INT, "f": FLOAT}.get(data.dtype.kind, MIXED)


def _joined(result: Col, operands: tuple[Col, ...], fail: Mask) -> Col:
    na = any_of(*(c.na for c in operands))
    err = any_of(*(c.err for c in operands), fail, result.err)
    return Col(result.data, result.kind, na, err)


def by_python(
    function: Callable[..., Any],
    operands: tuple[Col, ...],
    rows: np.ndarray,
    budget: Budget,
    base: Col | None = None,
) -> Col:
    """``function`` on the Python values of ``rows``, merged into ``base``."""
    size = len(operands[0].data)
    index = np.flatnonzero(rows)
    if base is not None and not len(index):
        return base
    budget.work(len(index) * PY_COST)
    inputs = [c.data[index].tolist() for c in operands]
    values: list[Any] = []
    bad = np.zeros(size, dtype=bool)
    spent, allowed = 0, budget.memory_left
    for position, args in enumerate(zip(*inputs)):
        try:
            value = function(*args)
        except ExprError:
            bad[index[position]] = True
            value = None
        if type(value) is str or type(value) is int:
            spent += _footprint(value)
            if spent > allowed:
                budget.memory(spent)
        values.append(value)
    budget.memory(spent)
    return _merge(size, index, values, bad, base)


def _footprint(value: Any) -> int:
    if type(value) is str:
        return 56 + len(value)
    if type(value) is int:
        return 32 + value.bit_length() // 8
    return 32


def _merge(
    size: int, index: np.ndarray, values: list[Any], bad: np.ndarray, base: Col | None
) -> Col:
    good = ~bad[index]
    kinds = {
        _KINDS[type(v)] for v, ok in zip(values, good) if ok and v is not scalar.NA
    }
    if base is not None and (index.size < size):
        kinds.add(base.kind)
    kind = kinds.pop() if len(kinds) == 1 else MIXED
    if base is None:
        data = np.full(size, PLACEHOLDER[kind], dtype=object)
    else:
        data = base.data.astype(object)
    chosen = index[good]
    picked = np.empty(len(chosen), dtype=object)
    picked[:] = [v for v, ok in zip(values, good) if ok]
    missing = np.array([v is scalar.NA for v in picked], dtype=bool)
    picked[missing] = PLACEHOLDER[kind]
    data[chosen] = picked
    data[index[~good]] = PLACEHOLDER[kind]
    na = np.zeros(size, dtype=bool)
    na[chosen[missing]] = True
    typed = _narrowed(data, kind)
    return Col(typed, kind, na if na.any() else None, bad if bad.any() else None)


def _narrowed(data: np.ndarray, kind: str) -> np.ndarray:
    """An object array of one kind as int64/float64/bool when the values allow it."""
    if kind in (BOOL, FLOAT):
        return data.astype(np.bool_ if kind == BOOL else np.float64)
    if kind == INT:
        try:
            return data.astype(np.int64)
        except OverflowError:
            return data
    return data


def truth_col(a: Col) -> Col:
    """``a`` as a BOOL column of its rows' truthiness (missing/failed rows kept)."""
    if a.kind == BOOL and a.native:
        return a
    return Col(truth(a), BOOL, a.na, a.err)
