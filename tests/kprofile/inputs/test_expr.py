"""The rules/--query language: what it allows, what it refuses, its limits, and one
meaning for one row and for whole columns."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from kprofile.inputs.expr import ExprError, compile_expr, evaluate, select

NA = pd.NA

SCALAR = [
    ("BM * BN <= 32768", {"BM": 128, "BN": 256}, True),
    ("BM * BN <= 32768", {"BM": 256, "BN": 256}, False),
    ("K % BK == 0 and not SWAP", {"K": 4096, "BK": 64, "SWAP": False}, True),
    ("M > 64 or N < 8", {"M": 8, "N": 4}, True),
    ("1 < M <= 256", {"M": 256}, True),
    ("1 < M <= 256", {"M": 512}, False),
    ("S == 'ws'", {"S": "ws"}, True),
    ("-M + 2 ** 3 // 3 == -254", {"M": 256}, True),
    ("$M >= 8", {"M": 8}, True),
    ("`met (ms)` < 1.5", {"met (ms)": 1.0}, True),
    ("(A or B) and C", {"A": False, "B": True, "C": True}, True),
    # '$' is dropped from names only, never inside a string literal
    ("SCHEDULE == '$default'", {"SCHEDULE": "default"}, False),
    ("SCHEDULE == '$default'", {"SCHEDULE": "$default"}, True),
    ('S == "a $M b" and $M == 1', {"S": "a $M b", "M": 1}, True),
    ("S == '''$x'''", {"S": "$x"}, True),
    ("`$M` == 2", {"$M": 2, "M": 1}, True),
    ("`S == '$x'` == 3", {"S == '$x'": 3}, True),
    # exact integers: no wrapping at 2**63
    ("2 ** N > 0", {"N": 64}, True),
    ("M * M == 2 ** 126", {"M": 2**63}, True),
    ("M + 1 > M", {"M": 2**63 - 1}, True),
    ("-M > 0", {"M": -(2**63)}, True),
    ("2 ** 4095 > 0", {}, True),
    ("'a' * 1000000 == 'a' * 1000000", {}, True),
    # missing values: three-valued logic, short-circuits as in Python
    ("X == 1", {"X": None}, NA),
    ("not X > 1", {"X": None}, NA),
    ("X > 1 or True", {"X": None}, True),
    ("X > 1 and False", {"X": None}, False),
    ("B != 0 and A / B > 1", {"A": 1, "B": 0}, False),
    ("B == 0 or A // B > 1", {"A": 1, "B": 0}, True),
    # refused when compiled
    ("X is None", {"X": None}, ExprError),
    ("__import__('os').system('true')", {}, ExprError),
    ("M.__class__", {"M": 1}, ExprError),
    ("M[0]", {"M": [1]}, ExprError),
    ("[x for x in M]", {"M": [1]}, ExprError),
    ("lambda: 1", {}, ExprError),
    ("M in (1, 2)", {"M": 1}, ExprError),
    ("f'{M}'", {"M": 1}, ExprError),
    ("b'x' == M", {"M": 1}, ExprError),
    ("A$B > 1", {"A": 1}, ExprError),
    ("M >", {}, ExprError),
    # refused when evaluated
    ("UNKNOWN > 1", {"M": 1}, ExprError),
    ("2 ** 100000", {}, ExprError),
    ("2 ** 4096 > 0", {}, ExprError),
    ("'a' * 10000000", {}, ExprError),
    ("'a' * 1000001 == ''", {}, ExprError),
    ("M / 0", {"M": 1}, ExprError),
    ("'%d' % M == '1'", {"M": 1}, ExprError),
    ("(-8) ** 0.5 > 0", {}, ExprError),
    ("S < 1", {"S": "x"}, ExprError),
    ("L == 1", {"L": [1, 2]}, ExprError),
]


@pytest.mark.parametrize(("text", "names", "expected"), SCALAR)
def test_scalar_evaluation(text: str, names: dict[str, Any], expected: Any) -> None:
    if expected is ExprError:
        with pytest.raises(ExprError):
            evaluate(compile_expr(text), names)
    else:
        assert evaluate(compile_expr(text), names) is expected


@pytest.mark.parametrize(
    ("text", "names", "expected"),
    [case for case in SCALAR if case[2] is not ExprError],
)
def test_one_row_as_columns_gives_the_same(
    text: str, names: dict[str, Any], expected: Any
) -> None:
    columns = {k: _column([v]) for k, v in names.items()}
    assert select(compile_expr(text), columns, 1).tolist() == [expected is True]


@pytest.mark.parametrize(
    ("text", "names"),
    [(t, n) for t, n, e in SCALAR if e is ExprError and t != "M >"],
)
def test_one_row_as_columns_fails_the_same(text: str, names: dict[str, Any]) -> None:
    try:
        expr = compile_expr(text)
    except ExprError:
        return  # refused before any value is read: the same for both
    with pytest.raises(ExprError) as one:
        evaluate(expr, names)
    with pytest.raises(ExprError) as columns:
        select(expr, {k: _column([v]) for k, v in names.items()}, 1)
    assert str(columns.value) == str(one.value)


def _column(values: list[Any]) -> np.ndarray:
    column = np.empty(len(values), dtype=object)
    for i, value in enumerate(values):
        column[i] = value
    return column


def test_refusal_happens_at_compile_time_naming_the_construct() -> None:
    with pytest.raises(ExprError, match=r"^call is not allowed in"):
        compile_expr("open('x')")
    with pytest.raises(ExprError, match=r"^attribute is not allowed in"):
        compile_expr("a.b")


LIMITS = [
    (
        "not " * 20_000 + "BM",
        "expression of 80,002 characters is over the limit of 10,000",
    ),
    (
        "+".join(["BM"] * 5_000),
        "expression of 14,999 characters is over the limit of 10,000",
    ),
    ("not " * 2_400 + "BM", "is nested more than 100 levels deep"),
    ("+".join(["BM"] * 3_000), "is nested more than 100 levels deep"),
    ("-" * 9_990 + "1", "is nested more than 100 levels deep"),
    ("**".join(["2"] * 3_000), "is nested more than 100 levels deep"),
    ("(" * 300 + "BM" + ")" * 300, "too many nested parentheses"),
    ("0x" + "f" * 5_000 + " > BM", "integer literal of 20,000 bits in"),
    ("`BM > 1", "unclosed backtick in '`BM > 1'"),
    ("BM == 1\x00", "invalid expression"),
]


@pytest.mark.parametrize(("text", "message"), LIMITS)
def test_size_and_depth_are_limited_with_a_clean_error(text: str, message: str) -> None:
    with pytest.raises(ExprError) as caught:
        compile_expr(text)
    assert message in str(caught.value)
    assert len(str(caught.value)) < 300


def test_a_wide_flat_expression_is_fine() -> None:
    text = " and ".join(["BM > 1"] * 900)
    assert evaluate(compile_expr(text), {"BM": 2}) is True


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("((9**1024)**1024)**1024 > 0", "bits is over the limit of 4,096"),
        ("(2**4000) * (2**4000) > BM", "an integer of 8,001 bits is over the limit"),
        ("('a'*100000)*100000 == BM", "a string of 10,000,000,000 characters is over"),
        ("('a'*1000000) + 'b' == BM", "a string of 1,000,001 characters is over"),
    ],
)
def test_values_are_bounded_before_they_are_built(text: str, message: str) -> None:
    expr = compile_expr(text)
    with pytest.raises(ExprError, match=message):
        evaluate(expr, {"BM": 1})
    with pytest.raises(ExprError, match=message):
        select(expr, {"BM": np.arange(3)}, 3)


def test_columns_are_bounded_row_by_row() -> None:
    text = pd.array(["x" * 1000, "y"], dtype="str")
    expr = compile_expr("S * N == S")
    with pytest.raises(ExprError, match="a string of 2,000,000 characters"):
        select(expr, {"S": text, "N": np.array([2000, 2000])}, 2)
    assert select(expr, {"S": text, "N": np.array([1, 1])}, 2).tolist() == [True] * 2


def test_integer_columns_never_wrap() -> None:
    n = np.arange(0, 300, dtype=np.int64)
    assert select(compile_expr("2**N > 0"), {"N": n}, len(n)).all()
    big = np.array([2**62, 2**63 - 1, -(2**63), 3], dtype=np.int64)
    chosen = select(compile_expr("M * 4 > 2**63"), {"M": big}, 4)
    assert chosen.tolist() == [True, True, False, False]


def test_a_failing_row_only_counts_where_it_is_reached() -> None:
    columns = {"A": np.array([1, 2, 3]), "B": np.array([0, 1, 0])}
    assert select(compile_expr("B != 0 and A / B > 1"), columns, 3).tolist() == [
        False,
        True,
        False,
    ]
    with pytest.raises(ExprError, match=r"^cannot evaluate 'A / B > 1': division by"):
        select(compile_expr("A / B > 1"), columns, 3)


@pytest.mark.parametrize(
    "text", [t for t, _, e in SCALAR[:11] if e is not ExprError and "`" not in t]
)
def test_vector_evaluation_agrees_with_scalar(text: str) -> None:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "BM": rng.choice([64, 128, 256], 40),
            "BN": rng.choice([64, 128, 256], 40),
            "K": rng.choice([4096, 100], 40),
            "BK": 64,
            "SWAP": rng.choice([True, False], 40),
            "M": rng.choice([8, 256, 512], 40),
            "N": rng.choice([4, 16], 40),
            "S": rng.choice(["ws", "x"], 40),
            "A": rng.choice([True, False], 40),
            "B": rng.choice([True, False], 40),
            "C": True,
        }
    )
    expr = compile_expr(text)
    vector = select(expr, {c: frame[c] for c in frame.columns}, len(frame))
    scalar = [evaluate(expr, row) is True for row in frame.to_dict("records")]
    assert vector.tolist() == scalar


def test_names_lists_every_name_read() -> None:
    assert compile_expr("BM * `met (ms)` > $M").names == frozenset(
        {"BM", "met (ms)", "M"}
    )
