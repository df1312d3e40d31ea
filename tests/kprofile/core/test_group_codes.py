"""group_codes: one code per row for its tuple of columns, numbered by first
appearance, NaN a value like any other, checked against tuples counted in Python."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from kprofile.core.columns import group_codes

CELLS = st.one_of(st.integers(-3, 3), st.sampled_from([math.nan, 0.5]))


def _expected(rows: list[tuple]) -> list[int]:
    """Codes by first appearance of each row's tuple (NaN equal to NaN)."""
    seen: dict[tuple, int] = {}
    keyed = [tuple("nan" if v != v else v for v in row) for row in rows]
    return [seen.setdefault(key, len(seen)) for key in keyed]


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 3).flatmap(lambda n: st.lists(st.tuples(*[CELLS] * n))))
def test_codes_number_tuples_by_first_appearance(rows: list[tuple]) -> None:
    width = len(rows[0]) if rows else 1
    frame = pd.DataFrame(rows, columns=[f"c{i}" for i in range(width)])
    codes = group_codes(frame, list(frame.columns))
    assert codes.dtype == np.int64
    assert codes.tolist() == _expected(rows)


def test_one_column_of_text_with_missing_values() -> None:
    frame = pd.DataFrame({"M": pd.array(["b", None, "a", "b", None], dtype="string")})
    assert group_codes(frame, ["M"]).tolist() == [0, 1, 2, 0, 1]
