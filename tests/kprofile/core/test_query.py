"""--query: rows where an expression is true, with the rules' exact meaning."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from kprofile.core.query import query_rows
from kprofile.errors import KprofileError

FRAME = pd.DataFrame(
    {
        "M": np.array([8, 256, 2**62, 2**63 - 1], dtype=np.int64),
        "N": pd.array([1, None, 3, 4], dtype="Int64"),
        "SCHEDULE": pd.array(["default", "$default", "ws", None], dtype="str"),
        "met (ms)": [0.5, np.nan, 1.5, 2.0],
    }
)


@pytest.mark.parametrize(
    ("query", "rows"),
    [
        ("M > 64", [1, 2, 3]),
        ("M * 2 >= 2**63", [2, 3]),  # int64 would wrap to negative
        ("2**(M % 100) > 0", [0, 1, 2, 3]),
        ("M + 1 == 2**63", [3]),
        ("SCHEDULE == '$default'", [1]),
        ("SCHEDULE == 'default'", [0]),
        ("N > 2", [2, 3]),  # missing is not true
        ("not N > 2", [0]),
        ("N > 2 or M == 256", [1, 2, 3]),
        ("`met (ms)` < 1.0", [0]),
        ("$M == 8", [0]),
    ],
)
def test_query_selects_rows(query: str, rows: list[int]) -> None:
    result = query_rows(FRAME, query)
    assert result.equals(FRAME.iloc[rows].reset_index(drop=True))


@pytest.mark.parametrize(
    ("query", "message"),
    [
        (
            "X > 1",
            "r.pkl: error: --query: unknown column 'X' in 'X > 1'; columns: M, N, "
            "SCHEDULE, met (ms)",
        ),
        ("1 > 0", "r.pkl: error: --query: '1 > 0' does not depend on any column"),
        (
            "M / (M - 8) > 0",
            "r.pkl: error: --query: cannot evaluate 'M / (M - 8) > 0': division by zero",
        ),
        (
            "SCHEDULE < 1",
            "r.pkl: error: --query: cannot evaluate 'SCHEDULE < 1': '<' not supported "
            "between instances of 'str' and 'int'",
        ),
        (
            "M ** M > 0",
            "r.pkl: error: --query: cannot evaluate 'M ** M > 0': an integer of about "
            "2^67 bits is over the limit of 4,096",
        ),
    ],
)
def test_query_errors_are_one_line(query: str, message: str) -> None:
    with pytest.raises(KprofileError) as caught:
        query_rows(FRAME, query, path="r.pkl")
    assert str(caught.value) == message


def test_repeated_column_names_use_the_first() -> None:
    frame = pd.DataFrame([[1, 2]], columns=["A", "A"])
    assert len(query_rows(frame, "A == 1")) == 1
