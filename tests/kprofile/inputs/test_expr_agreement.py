"""One meaning for rules and --query: random expressions over integer columns (values
near 2**63 included), float, bool, text and nullable columns, evaluated row by row
(``evaluate``, what a spec rule does on one instance) and over whole columns
(``select``, what --query does) select the same rows or fail with the same error."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kprofile.inputs.expr import ExprError, compile_expr, evaluate, select

EDGES = [0, 1, -1, 2, 3, 7, 2**31, 2**53, 2**53 + 1, 2**62, 2**63 - 1, -(2**63)]
EDGES += [-(2**63) + 1, 3_037_000_499, 3_037_000_500, 10**18]
INTS = st.one_of(
    st.sampled_from(EDGES), st.integers(-(2**63), 2**63 - 1), st.integers(-5, 5)
)
FLOATS = st.one_of(
    st.sampled_from([0.0, -0.0, 0.5, -1.5, 1e308, 2.0**53, float("inf"), float("nan")]),
    st.floats(),
)
LEAVES = st.sampled_from(["A", "B", "F", "G", "N", "S"]) | st.sampled_from(
    ["0", "1", "-1", "2", "63", "64", "2**63", "0.5", "'x'", "True", "None"]
)


def _node(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    binary = st.sampled_from(["+", "-", "*", "/", "//", "%", "**"])
    compare = st.sampled_from(["<", "<=", "==", "!=", ">", ">="])
    logic = st.sampled_from(["and", "or"])
    unary = st.sampled_from(["-", "+", "not "])
    return st.one_of(
        st.tuples(children, binary | compare | logic, children).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"
        ),
        st.tuples(children, children, children).map(
            lambda t: f"({t[0]} < {t[1]} <= {t[2]})"
        ),
        st.tuples(unary, children).map(lambda t: f"({t[0]}{t[1]})"),
    )


EXPRESSIONS = st.recursive(LEAVES, _node, max_leaves=8)


@st.composite
def tables(draw: st.DrawFn) -> dict[str, list[Any]]:
    rows = draw(st.integers(1, 12))

    def column(values: st.SearchStrategy[Any]) -> list[Any]:
        return draw(st.lists(values, min_size=rows, max_size=rows))

    return {
        "A": column(INTS),
        "B": column(INTS),
        "F": column(FLOATS),
        "G": column(st.booleans()),
        "N": column(st.none() | INTS),
        "S": column(st.none() | st.sampled_from(["x", "y", ""])),
    }


def _row_by_row(text: str, table: dict[str, list[Any]]) -> list[bool] | str:
    expr = compile_expr(text)
    chosen = []
    for row in range(len(table["A"])):
        try:
            value = evaluate(expr, {k: v[row] for k, v in table.items()})
        except ExprError as exc:
            return str(exc)
        chosen.append(value is not pd.NA and bool(value))
    return chosen


def _columns(text: str, table: dict[str, list[Any]]) -> list[bool] | str:
    columns = {
        "A": np.array(table["A"], dtype=np.int64),
        "B": np.array(table["B"], dtype=np.int64),
        "F": np.array(table["F"], dtype=np.float64),
        "G": np.array(table["G"], dtype=bool),
        "N": pd.array(table["N"], dtype="Int64"),
        "S": pd.array(table["S"], dtype="str"),
    }
    try:
        return select(compile_expr(text), columns, len(table["A"])).tolist()
    except ExprError as exc:
        return str(exc)


@pytest.mark.slow  # a property run, or a real process under a limit
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(EXPRESSIONS, tables())
def test_rules_and_query_semantics_agree(text: str, table: dict[str, Any]) -> None:
    assert _columns(text, table) == _row_by_row(text, table)


def test_an_int_just_past_2_53_compares_exactly_with_a_float() -> None:
    """2**53 + 1 converts to the float 2**53: compared as floats it would equal it.
    (Found by the property test above.)"""
    table = {
        "A": [0, 2**53 + 1, -(2**53) - 1, 2**53],
        "B": [0, 0, 0, 0],
        "F": [0.0, 2.0**53, -(2.0**53), 2.0**53],
        "G": [False] * 4,
        "N": [None, 2**53 + 1, -(2**53) - 1, 2**53],
        "S": [None] * 4,
    }
    for text in (
        "F < A",
        "A > F",
        "A == F",
        "A != F",
        "F < N <= N",
        "N >= F",
        "A - 1 == F",
    ):
        assert _columns(text, table) == _row_by_row(text, table), text
    assert _columns("F < A", table) == [False, True, False, False]
