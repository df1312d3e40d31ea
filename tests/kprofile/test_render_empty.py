"""An empty table renders the same whether a view built it as a DataFrame or as a
``Table`` of numpy columns (the ``-p`` views build the latter)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest

from kprofile.render import render_json, render_markdown, render_plain
from kprofile.render.section import Section, Table

EMPTY_FRAME = pd.DataFrame({"BM": pd.Series([], dtype="int64"), "met (ms)": []})
EMPTY_TABLE = Table(
    ("BM", "met (ms)"),
    (np.array([], dtype="int64"), np.array([], dtype="float64")),
    (np.dtype("int64"), np.dtype("float64")),
)


def _json(sections: list[Section]) -> str:
    return render_json(sections, {})


@pytest.mark.parametrize("render", [render_markdown, render_plain, _json])
def test_an_empty_table_renders_as_an_empty_frame(
    render: Callable[[list[Section]], str],
) -> None:
    as_frame = render([Section("top", "top", table=EMPTY_FRAME)])
    assert render([Section("top", "top", table=EMPTY_TABLE)]) == as_frame


def test_markdown_says_an_empty_table_has_no_entries() -> None:
    out = render_markdown([Section("top", "top", table=EMPTY_TABLE)])
    assert out == "### top\n\n(no entries)\n"


def test_a_table_is_empty_without_rows_or_without_columns() -> None:
    assert EMPTY_TABLE.empty and Table((), (), ()).empty
    one = Table(("BM",), (np.array([1]),), (np.dtype("int64"),))
    assert not one.empty
