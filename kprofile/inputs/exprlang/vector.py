"""Evaluating a checked tree over whole columns, in blocks of rows.

The result for each row is what ``scalar.evaluate_row`` gives for that row alone:
missing values, short-circuits and errors included. A row whose evaluation fails is
only marked; ``Verdict.check`` raises the failure of the first marked row (among the
rows the caller cares about), re-evaluating that one row with ``scalar`` for its exact
message. Rows are evaluated ``BLOCK`` at a time so intermediate arrays stay small
whatever the table's size; sub-expressions without names are computed once.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from kprofile.inputs.exprlang import ops, scalar
from kprofile.inputs.exprlang.columns import BOOL, Coded, Col, Mask, failed, full
from kprofile.inputs.exprlang.limits import Budget, ExprError
from kprofile.inputs.exprlang.parse import operands

BLOCK = 1 << 15
_FAILED = object()


@dataclass(frozen=True, eq=False)
class Verdict:
    """Per row: the expression is true, missing (NA), or failed (an error)."""

    true: np.ndarray
    missing: np.ndarray
    failed: np.ndarray
    explain: Callable[[int], ExprError]

    def check(self, where: Mask = None) -> None:
        """Raise the error of the first failed row (among ``where``, if given)."""
        rows = self.failed if where is None else self.failed & where
        if rows.any():
            raise self.explain(int(np.argmax(rows)))


def evaluate_columns(
    tree: ast.Expression,
    columns: Mapping[str, Col | Coded],
    size: int,
    budget: Budget,
) -> Verdict:
    """Evaluate ``tree`` (names already mapped to ``columns``) on ``size`` rows."""
    true = np.zeros(size, dtype=bool)
    missing = np.zeros(size, dtype=bool)
    failed_rows = np.zeros(size, dtype=bool)
    block = _Block(tree, columns, budget)
    for start in range(0, size, BLOCK):
        stop = min(start + BLOCK, size)
        budget.new_block()
        result = block.run(start, stop)
        err = np.zeros(stop - start, bool) if result.err is None else result.err
        na = np.zeros(stop - start, bool) if result.na is None else result.na & ~err
        failed_rows[start:stop] = err
        missing[start:stop] = na
        true[start:stop] = ops.truth(result) & ~na & ~err

    def explain(row: int) -> ExprError:
        try:
            scalar.evaluate_row(tree.body, lambda name: columns[name].value(row))
        except ExprError as exc:
            return exc
        return ExprError(f"row {row} cannot be evaluated")  # pragma: no cover

    return Verdict(true, missing, failed_rows, explain)


class _Block:
    """One block of rows: the recursive walk (depth bounded at compile time)."""

    def __init__(
        self,
        tree: ast.Expression,
        columns: Mapping[str, Col | Coded],
        budget: Budget,
    ) -> None:
        self.tree = tree
        self.columns = columns
        self.budget = budget
        self.constant = _constant_nodes(tree)
        self.values: dict[int, Any] = {}
        self.part: dict[str, Col] = {}
        self.size = 0

    def run(self, start: int, stop: int) -> Col:
        self.part = {k: c.rows(start, stop) for k, c in self.columns.items()}
        self.size = stop - start
        return self.value_of(self.tree.body, None)

    def value_of(self, node: ast.AST, care: Mask) -> Col:
        if id(node) in self.constant:
            return self._constant(node)
        if isinstance(node, ast.Name):
            return self.part[node.id]
        if isinstance(node, ast.UnaryOp):
            value = self.value_of(node.operand, care)
            return ops.unary(type(node.op), value, care, self.budget)
        if isinstance(node, ast.BinOp):
            left = self.value_of(node.left, care)
            right = self.value_of(node.right, care)
            return ops.binary(type(node.op), left, right, care, self.budget)
        if isinstance(node, ast.BoolOp):
            conjunction = isinstance(node.op, ast.And)
            return self._fold(node.values, care, conjunction=conjunction)
        assert isinstance(node, ast.Compare), type(node)
        return self._chain(node, care)

    def _constant(self, node: ast.AST) -> Col:
        if id(node) not in self.values:
            try:
                self.values[id(node)] = scalar.evaluate_row(node, _no_names)
            except ExprError:
                self.values[id(node)] = _FAILED
        value = self.values[id(node)]
        return failed(self.size) if value is _FAILED else full(value, self.size)

    def _fold(self, nodes: list[ast.expr], care: Mask, *, conjunction: bool) -> Col:
        """``and``/``or`` over ``nodes``: three-valued, short-circuiting per row."""
        logic = _Logic(self.size, care, conjunction)
        for node in nodes:
            logic.add(ops.truth_col(self.value_of(node, logic.active)))
            if not logic.active.any():
                break
        return logic.result()

    def _chain(self, node: ast.Compare, care: Mask) -> Col:
        """``a < b <= c``: ``a < b and b <= c`` with ``b`` evaluated once."""
        logic = _Logic(self.size, care, True)
        values = operands(node)
        left = self.value_of(values[0], care)
        for op, right_node in zip(node.ops, values[1:]):
            right = self.value_of(right_node, logic.active)
            logic.add(ops.compare(type(op), left, right, logic.active, self.budget))
            if not logic.active.any():
                break
            left = right
        return logic.result()


class _Logic:
    """Three-valued ``and`` (or ``or``) accumulated step by step over rows."""

    def __init__(self, size: int, care: Mask, conjunction: bool) -> None:
        self.conjunction = conjunction
        self.active = np.ones(size, dtype=bool) if care is None else care.copy()
        self.decided = np.zeros(size, dtype=bool)  # False for 'and', True for 'or'
        self.na = np.zeros(size, dtype=bool)
        self.err = np.zeros(size, dtype=bool)

    def add(self, step: Col) -> None:
        """One more operand (a BOOL column) for the rows still undecided."""
        active = self.active
        if step.err is not None:
            self.err |= active & step.err
            active = active & ~step.err
        if step.na is not None:
            self.na |= active & step.na
            known = active & ~step.na
        else:
            known = active
        hit = known & (step.data != self.conjunction)
        self.decided |= hit
        self.active = active & ~hit

    def result(self) -> Col:
        na = self.na & ~self.decided & ~self.err
        data = self.decided if not self.conjunction else ~self.decided
        return Col(
            data, BOOL, na if na.any() else None, self.err if self.err.any() else None
        )


def _no_names(name: str) -> Any:
    raise AssertionError(f"constant sub-expression reads {name!r}")  # pragma: no cover


def _constant_nodes(tree: ast.Expression) -> set[int]:
    """Ids of the nodes whose subtree reads no name (computed once, then broadcast)."""
    order: list[ast.AST] = []
    stack: list[ast.AST] = [tree.body]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(operands(node))
    named: set[int] = set()
    for node in reversed(order):  # children come after their parent in ``order``
        if isinstance(node, ast.Name) or any(id(c) in named for c in operands(node)):
            named.add(id(node))
    return {id(node) for node in order if id(node) not in named}
