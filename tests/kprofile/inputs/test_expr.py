"""The rules/--query language: what it allows, what it refuses, scalar and vector agree."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from kprofile.inputs.expr import ExprError, compile_expr, evaluate

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
    ("X is None", {"X": None}, ExprError),
    ("__import__('os').system('true')", {}, ExprError),
    ("M.__class__", {"M": 1}, ExprError),
    ("M[0]", {"M": [1]}, ExprError),
    ("[x for x in M]", {"M": [1]}, ExprError),
    ("lambda: 1", {}, ExprError),
    ("M in (1, 2)", {"M": 1}, ExprError),
    ("f'{M}'", {"M": 1}, ExprError),
    ("UNKNOWN > 1", {"M": 1}, ExprError),
    ("2 ** 100000", {}, ExprError),
    ("'a' * 10000000", {}, ExprError),
    ("M / 0", {"M": 1}, ExprError),
    ("M >", {}, ExprError),
]


@pytest.mark.parametrize(("text", "names", "expected"), SCALAR)
def test_scalar_evaluation(text: str, names: dict[str, Any], expected: Any) -> None:
    if expected is ExprError:
        with pytest.raises(ExprError):
            evaluate(compile_expr(text), names)
    else:
        assert (
            evaluate(compile_expr(text), names) is expected
            or evaluate(compile_expr(text), names) == expected
        )


def test_refusal_happens_at_compile_time_naming_the_construct() -> None:
    with pytest.raises(ExprError, match=r"^call is not allowed in"):
        compile_expr("open('x')")
    with pytest.raises(ExprError, match=r"^attribute is not allowed in"):
        compile_expr("a.b")


@pytest.mark.parametrize(
    "text", [t for t, _, e in SCALAR if e is not ExprError and "`" not in t]
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
    vector = np.asarray(
        evaluate(expr, {c: frame[c] for c in frame.columns}), dtype=bool
    )
    scalar = [bool(evaluate(expr, row)) for row in frame.to_dict("records")]
    assert vector.tolist() == scalar


def test_names_lists_every_name_read() -> None:
    assert compile_expr("BM * `met (ms)` > $M").names == frozenset(
        {"BM", "met (ms)", "M"}
    )
