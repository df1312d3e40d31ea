"""A small expression language for kbench ``rules`` and ``--query``, evaluated without ``eval``.

Allowed: parameter names (or any column name in backticks), numbers, strings, True,
False, None, arithmetic (``+ - * / // % **``, unary ``+ -``), comparisons (``== != < <=
> >=``, chained), ``and``/``or``/``not`` and parentheses. Anything else (calls,
attributes, subscripts, lambdas, comprehensions...) is refused when the expression is
compiled, before any value is looked at.

The same compiled expression works on scalars (one spec instance) and on pandas Series
or numpy arrays (a whole table at once): ``and``/``or``/``not`` become element-wise then.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}
_BACKTICK = re.compile(r"`([^`]*)`")
_MAX_POWER = 1024
_MAX_REPEAT = 100_000


class ExprError(ValueError):
    """An expression outside the language, or one that cannot be evaluated."""


@dataclass(frozen=True)
class Expr:
    text: str
    tree: ast.Expression
    aliases: Mapping[str, str]  # placeholder identifier -> backticked column name

    @property
    def names(self) -> frozenset[str]:
        """Every name the expression reads."""
        found = {n.id for n in ast.walk(self.tree) if isinstance(n, ast.Name)}
        return frozenset(self.aliases.get(n, n) for n in found)


def compile_expr(text: str) -> Expr:
    """Parse and check ``text``; raises ExprError naming the first construct not allowed."""
    aliases: dict[str, str] = {}

    def alias(match: re.Match[str]) -> str:
        key = f"__column_{len(aliases)}__"
        aliases[key] = match.group(1)
        return key

    source = _BACKTICK.sub(alias, text.strip())
    source = re.sub(r"\$(?=[A-Za-z_])", "", source)  # kbench runtime names: $M is M
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as exc:
        raise ExprError(f"invalid expression {text!r}: {exc.msg}") from None
    for node in ast.walk(tree):
        _check(node, text)
    return Expr(text, tree, aliases)


def _check(node: ast.AST, text: str) -> None:
    allowed = (
        ast.Expression,
        ast.Name,
        ast.Load,
        ast.Constant,
        ast.BinOp,
        ast.UnaryOp,
        ast.BoolOp,
        ast.Compare,
        ast.And,
        ast.Or,
        ast.Not,
        *_BINARY,
        *_COMPARE,
        *_UNARY,
    )
    if not isinstance(node, allowed):
        what = type(node).__name__.lower()
        raise ExprError(
            f"{what} is not allowed in {text!r} (only names, literals, arithmetic, comparisons, and/or/not)"
        )
    if isinstance(node, ast.Constant) and not isinstance(
        node.value, (int, float, str, bool, type(None))
    ):
        raise ExprError(f"literal {node.value!r} is not allowed in {text!r}")


def evaluate(expr: Expr, names: Mapping[str, Any]) -> Any:
    """Value of ``expr`` with ``names`` bound (scalars or arrays); unknown names are errors."""
    try:
        return _eval(expr.tree.body, names, expr)
    except ExprError:
        raise
    except (TypeError, ValueError, ZeroDivisionError, OverflowError) as exc:
        raise ExprError(f"cannot evaluate {expr.text!r}: {exc}") from None


def _is_array(value: Any) -> bool:
    return isinstance(value, (pd.Series, np.ndarray, pd.api.extensions.ExtensionArray))


def _eval(node: ast.AST, names: Mapping[str, Any], expr: Expr) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        key = expr.aliases.get(node.id, node.id)
        if key not in names:
            raise ExprError(f"unknown name {key!r} in {expr.text!r}")
        return names[key]
    if isinstance(node, ast.UnaryOp):
        operand = _eval(node.operand, names, expr)
        if isinstance(node.op, ast.Not):
            return np.logical_not(operand) if _is_array(operand) else not operand
        return _UNARY[type(node.op)](operand)
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left, names, expr), _eval(node.right, names, expr)
        _guard(node.op, left, right, expr)
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.Compare):
        return _compare(node, names, expr)
    if isinstance(node, ast.BoolOp):
        return _boolop(node, names, expr)
    raise ExprError(f"{type(node).__name__.lower()} is not allowed in {expr.text!r}")


def _guard(op: ast.operator, left: Any, right: Any, expr: Expr) -> None:
    """Refuse scalar operations that would take unbounded time or memory."""
    if (
        isinstance(op, ast.Pow)
        and not _is_array(right)
        and isinstance(right, (int, float))
        and abs(right) > _MAX_POWER
    ):
        raise ExprError(f"exponent {right} too large in {expr.text!r}")
    if isinstance(op, ast.Mult) and any(isinstance(v, str) for v in (left, right)):
        count = right if isinstance(left, str) else left
        if isinstance(count, int) and count > _MAX_REPEAT:
            raise ExprError(f"string repeated {count} times in {expr.text!r}")


def _compare(node: ast.Compare, names: Mapping[str, Any], expr: Expr) -> Any:
    left = _eval(node.left, names, expr)
    result: Any = True
    for op, right_node in zip(node.ops, node.comparators):
        right = _eval(right_node, names, expr)
        step = _COMPARE[type(op)](left, right)
        result = step if result is True else _and(result, step)
        if not _is_array(result) and not result:
            return False
        left = right
    return result


def _and(a: Any, b: Any) -> Any:
    return np.logical_and(a, b) if _is_array(a) or _is_array(b) else bool(a) and bool(b)


def _boolop(node: ast.BoolOp, names: Mapping[str, Any], expr: Expr) -> Any:
    conjunction = isinstance(node.op, ast.And)
    result: Any = None
    for value_node in node.values:
        value = _eval(value_node, names, expr)
        if result is None:
            result = value if _is_array(value) else bool(value)
        elif _is_array(result) or _is_array(value):
            result = (
                np.logical_and(result, value)
                if conjunction
                else np.logical_or(result, value)
            )
        else:
            result = result and bool(value) if conjunction else result or bool(value)
        if not _is_array(result) and result is not conjunction:
            return result  # short-circuit: False for and, True for or
    return result
