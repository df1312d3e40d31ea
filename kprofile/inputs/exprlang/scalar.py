"""The language's meaning for one row: Python's own operators on exact values, bounded.

Values are ``bool``, ``int`` (exact, at most ``MAX_INT_BITS`` bits), ``float``, ``str``
(at most ``MAX_LEN`` characters) and ``NA`` (a missing value: ``None``, pandas' NA, the
literal ``None``). Operators behave as in Python, except that:

- an operation with NA gives NA; ``not NA`` is NA; ``and``/``or`` and chained
  comparisons use three-valued logic (``False and NA`` is False, ``True or NA`` is
  True) and short-circuit as Python does, so ``B != 0 and A / B > 1`` never divides
  by zero;
- comparisons and ``and``/``or``/``not`` give ``True``/``False`` (or NA);
- ``str % x`` (string formatting) is refused, and so is a complex result
  (``(-8) ** 0.5``);
- a value of any other type (a list, a date...) is refused when it is read.

Errors (``1 / 0``, ``'a' < 1``, a value over a limit) are ExprError. This module is
the reference the column evaluator (``vector``) must agree with, row by row, and the
per-value fallback it uses for rows numpy cannot compute exactly.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from kprofile.inputs.exprlang.limits import MAX_INT_BITS, MAX_LEN, ExprError, amount
from kprofile.inputs.exprlang.parse import operands

NA: Any = pd.NA
SCALARS = (bool, int, float, str)

BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}
SIGN: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}


def normalize(value: Any) -> Any:
    """``value`` as an exact bool/int/float/str within the limits, or NA; other types
    are refused."""
    if type(value) in SCALARS:
        return checked(value)
    if value is None or value is pd.NA or value is pd.NaT:
        return NA
    if isinstance(value, np.generic):
        value = value.item()
        if type(value) in SCALARS or value is None:
            return NA if value is None else checked(value)
    for kind in SCALARS:  # subclasses (np.float64 is a float, enums are ints...)
        if isinstance(value, kind):
            return checked(kind(value))
    raise ExprError(f"a value of type {type(value).__name__} is not supported")


def binary(op: type[ast.operator], left: Any, right: Any) -> Any:
    """``left op right`` with Python's semantics, within the limits."""
    if left is NA or right is NA:
        return NA
    _precheck(op, left, right)
    try:
        result = BINARY[op](left, right)
    except (ArithmeticError, TypeError, ValueError) as exc:
        raise ExprError(str(exc) or type(exc).__name__) from None
    return checked(result)


def _precheck(op: type[ast.operator], left: Any, right: Any) -> None:
    """Refuse, from the operands' sizes alone, what would build a value over a limit."""
    if op is ast.Mod and isinstance(left, str):
        raise ExprError("string formatting with % is not allowed")
    if op is ast.Mult:
        text, count = (left, right) if isinstance(left, str) else (right, left)
        if isinstance(text, str) and isinstance(count, int) and count > 0:
            if len(text) * count > MAX_LEN:
                raise ExprError(
                    f"a string of {amount(len(text) * count)} characters is over "
                    f"the limit of {MAX_LEN:,}"
                )
    if op is ast.Pow and isinstance(left, int) and isinstance(right, int):
        if right > 0 and abs(left) > 1:
            bits = (abs(left).bit_length() - 1) * right + 1  # at least this many
            if bits > MAX_INT_BITS:
                raise ExprError(_too_many_bits(bits))


def _too_many_bits(bits: int) -> str:
    return f"an integer of {amount(bits)} bits is over the limit of {MAX_INT_BITS:,}"


def checked(result: Any) -> Any:
    """``result`` if within the limits (an exact int or str, a real number)."""
    kind = type(result)
    if kind is int and result.bit_length() > MAX_INT_BITS:
        raise ExprError(_too_many_bits(result.bit_length()))
    if kind is str and len(result) > MAX_LEN:
        raise ExprError(
            f"a string of {len(result):,} characters is over the limit of {MAX_LEN:,}"
        )
    if kind is complex:
        raise ExprError("the result is a complex number")
    return result


def compare(op: type[ast.cmpop], left: Any, right: Any) -> Any:
    """``left op right`` as True/False, or NA."""
    if left is NA or right is NA:
        return NA
    try:
        return bool(COMPARE[op](left, right))
    except TypeError as exc:
        raise ExprError(str(exc)) from None


def unary(op: type[ast.unaryop], value: Any) -> Any:
    if value is NA:
        return NA
    if op is ast.Not:
        return not value
    try:
        return SIGN[op](int(value) if type(value) is bool else value)
    except TypeError as exc:
        raise ExprError(str(exc)) from None


def both(left: Any, right: Any, *, conjunction: bool) -> Any:
    """Three-valued ``and`` (``conjunction``) or ``or`` of True/False/NA."""
    decisive = not conjunction  # False decides an 'and', True an 'or'
    if left is decisive or right is decisive:
        return decisive
    if left is NA or right is NA:
        return NA
    return conjunction


def truth(value: Any) -> Any:
    return NA if value is NA else bool(value)


def evaluate_row(node: ast.AST, lookup: Callable[[str], Any]) -> Any:
    """Value of ``node`` for one row; ``lookup(name)`` reads a (normalized) value.

    Recursive: the depth was bounded when the expression was compiled.
    """
    if isinstance(node, ast.Constant):
        return normalize(node.value)
    if isinstance(node, ast.Name):
        return lookup(node.id)
    if isinstance(node, ast.UnaryOp):
        return unary(type(node.op), evaluate_row(node.operand, lookup))
    if isinstance(node, ast.BinOp):
        left = evaluate_row(node.left, lookup)
        return binary(type(node.op), left, evaluate_row(node.right, lookup))
    if isinstance(node, ast.BoolOp):
        conjunction = isinstance(node.op, ast.And)
        result: Any = conjunction
        for value in node.values:
            step = truth(evaluate_row(value, lookup))
            result = both(result, step, conjunction=conjunction)
            if result is (not conjunction):
                return result
        return result
    assert isinstance(node, ast.Compare), type(node)
    return _chain(node, lookup)


def _chain(node: ast.Compare, lookup: Callable[[str], Any]) -> Any:
    values = operands(node)
    left = evaluate_row(values[0], lookup)
    result: Any = True
    for op, right_node in zip(node.ops, values[1:]):
        right = evaluate_row(right_node, lookup)
        result = both(result, compare(type(op), left, right), conjunction=True)
        if result is False:
            return False
        left = right
    return result
