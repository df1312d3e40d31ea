"""A small expression language for kbench ``rules`` and ``--query``, never ``eval``.

Allowed: parameter names (``$NAME`` is ``NAME``; any column name in backticks),
numbers, strings, True, False, None, arithmetic (``+ - * / // % **``, unary ``+ -``),
comparisons (``== != < <= > >=``, chained), ``and``/``or``/``not`` and parentheses.
Anything else (calls, attributes, subscripts, lambdas, comprehensions...) is refused
when the expression is compiled, before any value is looked at.

Meaning: Python's, on exact values (see ``exprlang.scalar``): integers never wrap,
``2**N > 0`` is true for every N, ``M * N`` is exact beyond 2**63. Missing values (None,
NA, an empty cell) make an operation missing, with three-valued and/or/not. The same
expression gives the same result for one row (``evaluate``, what a rule checks on a
spec instance) and for every row of a table at once (``evaluate_columns``/``select``,
numpy where exact, Python's integers where not).

Bounded (see ``exprlang.limits``): at most 10,000 characters and 100 levels of
nesting; integers of at most 4,096 bits and strings of at most 1,000,000 characters,
refused before they are built; and a work and memory budget per table.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from kprofile.inputs.exprlang import scalar
from kprofile.inputs.exprlang.columns import Coded, Col, coded, convert
from kprofile.inputs.exprlang.limits import Budget, ExprError
from kprofile.inputs.exprlang.parse import parse, shown
from kprofile.inputs.exprlang.vector import Verdict
from kprofile.inputs.exprlang.vector import evaluate_columns as _evaluate_columns

__all__ = [
    "Coded",
    "Expr",
    "ExprError",
    "Verdict",
    "coded",
    "compile_expr",
    "evaluate",
    "evaluate_columns",
    "select",
]


@dataclass(frozen=True)
class Expr:
    text: str
    tree: ast.Expression
    aliases: Mapping[str, str]  # placeholder identifier -> backticked column name

    @cached_property
    def names(self) -> frozenset[str]:
        """Every name the expression reads."""
        found = {n.id for n in ast.walk(self.tree) if isinstance(n, ast.Name)}
        return frozenset(self.aliases.get(n, n) for n in found)

    def failure(self, exc: ExprError) -> ExprError:
        return ExprError(f"cannot evaluate {shown(self.text)}: {exc}")


def compile_expr(text: str) -> Expr:
    """Parse and check ``text``; raises ExprError naming the first thing not allowed."""
    tree, aliases = parse(text)
    return Expr(text, tree, aliases)


def evaluate(expr: Expr, names: Mapping[str, Any]) -> Any:
    """Value of ``expr`` for one row of scalars (NA if missing); raises ExprError."""

    unknown = sorted(expr.names - set(names))
    if unknown:
        raise ExprError(
            f"unknown name {', '.join(map(repr, unknown))} in {shown(expr.text)}"
        )

    def lookup(name: str) -> Any:
        return scalar.normalize(names[expr.aliases.get(name, name)])

    try:
        return scalar.evaluate_row(expr.tree.body, lookup)
    except ExprError as exc:
        raise expr.failure(exc) from None


def evaluate_columns(
    expr: Expr,
    columns: Mapping[str, Any],
    size: int,
    *,
    budget: Budget | None = None,
) -> Verdict:
    """Per-row verdict of ``expr`` over ``size`` rows of ``columns`` (name -> array,
    Series, or ``coded`` table and codes).

    Failed rows are marked, not raised: ``Verdict.check`` raises the first one.
    """
    missing = sorted(expr.names - set(columns))
    if missing:
        raise ExprError(
            f"unknown name {', '.join(map(repr, missing))} in {shown(expr.text)}"
        )
    ids = {n.id for n in ast.walk(expr.tree) if isinstance(n, ast.Name)}
    try:
        converted = {i: _source(columns[expr.aliases.get(i, i)]) for i in ids}
        verdict = _evaluate_columns(
            expr.tree, converted, size, budget if budget is not None else Budget()
        )
    except ExprError as exc:
        raise expr.failure(exc) from None

    def explain(row: int) -> ExprError:
        return expr.failure(verdict.explain(row))

    return dataclasses.replace(verdict, explain=explain)


def _source(column: Any) -> Col | Coded:
    return column if isinstance(column, Coded) else convert(column)


def select(expr: Expr, columns: Mapping[str, Any], size: int) -> np.ndarray:
    """Rows where ``expr`` is true (missing is not true); raises ExprError if a row
    fails."""
    verdict = evaluate_columns(expr, columns, size)
    verdict.check()
    return verdict.true
