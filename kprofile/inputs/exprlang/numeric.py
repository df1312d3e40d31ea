"""numpy fast paths for arithmetic and comparisons on int64/float64/bool columns.

Each function computes what numpy computes exactly as Python would and reports the
rest instead of guessing: ``slow`` rows (int64 overflow, integers beyond 2**53 meeting
a float, powers that may not fit, non-finite float edge cases) are for the caller to
compute with Python's exact integers, and ``fail`` rows (division by zero) are errors.
numpy's integer division is never asked to divide by zero or INT64_MIN by -1.
"""

from __future__ import annotations

import ast
from typing import NamedTuple

import numpy as np

INT64_MIN = np.iinfo(np.int64).min
EXACT = 2.0**53  # floats hold every integer up to this exactly
_SAFE_PRODUCT = 2.0**62


class Fast(NamedTuple):
    data: np.ndarray
    slow: np.ndarray | None = None
    fail: np.ndarray | None = None


def arithmetic(op: type[ast.operator], left: np.ndarray, right: np.ndarray) -> Fast:
    """``left op right`` on int64/float64/bool arrays (bools count as 0 and 1)."""
    a, b = _number(left), _number(right)
    with np.errstate(all="ignore"):
        if a.dtype.kind == "i" and b.dtype.kind == "i" and op is not ast.Div:
            return _integer(op, a, b)
        return _real(op, a.astype(np.float64), b.astype(np.float64), a, b)


def _number(values: np.ndarray) -> np.ndarray:
    return values.astype(np.int64) if values.dtype.kind == "b" else values


def _integer(op: type[ast.operator], a: np.ndarray, b: np.ndarray) -> Fast:
    if op is ast.Add:
        result = a + b
        return Fast(result, ((a ^ result) & (b ^ result)) < 0)
    if op is ast.Sub:
        result = a - b
        return Fast(result, ((a ^ b) & (a ^ result)) < 0)
    if op is ast.Mult:
        estimate = np.abs(a.astype(np.float64) * b.astype(np.float64))
        return Fast(a * b, estimate >= _SAFE_PRODUCT)
    if op is ast.Pow:
        return _integer_power(a, b)
    zero = b == 0
    slow = (a == INT64_MIN) & (b == -1)
    divisor = np.where(zero | slow, 1, b)
    ufunc = np.floor_divide if op is ast.FloorDiv else np.remainder
    return Fast(ufunc(a, divisor), slow, zero)


def _integer_power(a: np.ndarray, b: np.ndarray) -> Fast:
    """Exact when ``|a| <= 1`` or ``bit_length(a) * b <= 62``; the rest is slow."""
    magnitude = np.abs(a.astype(np.float64))
    bits = np.frexp(magnitude)[1].astype(np.float64)  # >= bit_length(|a|)
    small = (magnitude <= 1) | (bits * b.astype(np.float64) <= 62)
    safe = (b >= 0) & small
    return Fast(np.power(a, np.where(safe, b, 0)), ~safe)


def _real(
    op: type[ast.operator],
    a: np.ndarray,
    b: np.ndarray,
    a_exact: np.ndarray,
    b_exact: np.ndarray,
) -> Fast:
    """Float arithmetic (an int operand is converted as Python converts it)."""
    if op is ast.Add:
        return Fast(a + b)
    if op is ast.Sub:
        return Fast(a - b)
    if op is ast.Mult:
        return Fast(a * b)
    if op is ast.Pow:
        result = np.power(a, b)
        odd = ~np.isfinite(result) | ~np.isfinite(a) | ~np.isfinite(b) | (a <= 0)
        return Fast(result, odd)
    zero = b == 0
    divisor = np.where(zero, 1.0, b)
    if op is ast.Div:
        big = _beyond_float(a_exact) | _beyond_float(b_exact)  # int / int, exact
        return Fast(a / divisor, big & ~zero, zero)
    ufunc = np.floor_divide if op is ast.FloorDiv else np.remainder
    result = ufunc(a, divisor)
    odd = (~np.isfinite(a) | ~np.isfinite(b) | (result == 0)) & ~zero  # signed zeros
    return Fast(result, odd, zero)


def _beyond_float(values: np.ndarray) -> np.ndarray:
    """The integers a float64 may not hold exactly. Compared as floats: 2**53 + 1
    converts to 2**53, so the test is ``>=``, not ``>``."""
    if values.dtype.kind != "i":
        return np.zeros(len(values), dtype=bool)
    return np.abs(values.astype(np.float64)) >= EXACT


def comparison(op: type[ast.cmpop], left: np.ndarray, right: np.ndarray) -> Fast:
    """``left op right``; an int beyond 2**53 against a float is slow (exact in
    Python)."""
    result = np.asarray(COMPARE_UFUNCS[op](left, right), dtype=bool)
    kinds = {left.dtype.kind, right.dtype.kind}
    if kinds == {"i", "f"}:
        integer = left if left.dtype.kind == "i" else right
        return Fast(result, _beyond_float(integer))
    return Fast(result)


COMPARE_UFUNCS = {
    ast.Eq: np.equal,
    ast.NotEq: np.not_equal,
    ast.Lt: np.less,
    ast.LtE: np.less_equal,
    ast.Gt: np.greater,
    ast.GtE: np.greater_equal,
}


EXACT_OPS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)
_OBJECT_UFUNCS = {
    ast.Add: np.add,
    ast.Sub: np.subtract,
    ast.Mult: np.multiply,
    ast.FloorDiv: np.floor_divide,
    ast.Mod: np.remainder,
}
_bit_length = np.frompyfunc(int.bit_length, 1, 1)


def exact(
    op: type[ast.operator], x: np.ndarray, y: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``x op y`` on object arrays of Python ints (exact); the rows dividing by 0."""
    zero = np.asarray(y == 0, dtype=bool)
    if op in (ast.FloorDiv, ast.Mod) and zero.any():
        y = np.where(zero, 1, y)
    else:
        zero = np.zeros(len(y), dtype=bool)
    return _OBJECT_UFUNCS[op](x, y), zero


def bit_lengths(values: np.ndarray) -> np.ndarray:
    """``int.bit_length`` of every Python int of an object array."""
    return np.asarray(_bit_length(values), dtype=np.int64).reshape(len(values))
