"""How a table is cut to fit a terminal: whole, in blocks of columns, or records."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from kprofile.render.layout import column_blocks, key_columns, table_width
from kprofile.render.section import Section
from kprofile.render.text import render_rich


def test_table_width_is_cells_padding_and_gaps() -> None:
    assert [table_width(w) for w in ([], [5], [5, 5], [5, 5, 5])] == [0, 7, 15, 23]


@pytest.mark.parametrize(
    ("widths", "width", "blocks"),
    [
        ([8, 4, 4], 80, [[0, 1, 2]]),  # fits: one block
        ([8, 4, 4], 24, [[0, 1, 2]]),  # exactly
        ([8, 4, 4], 23, [[0, 1], [0, 2]]),
        ([8, 10, 10, 3, 3], 30, [[0, 1], [0, 2, 3], [0, 4]]),
        ([8, 30], 30, None),  # the first column and one other never fit
        ([8, 4, 30], 30, None),
        ([100], 30, [[0]]),  # one column: as it is
    ],
)
def test_column_blocks(
    widths: list[int], width: int, blocks: list[list[int]] | None
) -> None:
    assert column_blocks(widths, width) == blocks
    for block in blocks or []:
        if len(block) > 1:
            assert table_width([widths[i] for i in block]) <= width


def test_continuation_blocks_start_with_the_key_columns() -> None:
    assert column_blocks([4, 5, 5, 10, 10], 30, key=(1, 2)) == [
        [0, 1, 2],
        [1, 2, 3],
        [1, 2, 4],
    ]
    assert column_blocks([4, 5, 5, 20], 30, key=(1, 2)) is None  # key + one: too wide


@pytest.mark.parametrize(
    ("rows", "numeric", "key"),
    [
        ([["1", "a"], ["2", "a"]], [True, False], [0]),  # the first column names rows
        ([["1", "BN", "16"], ["1", "BN", "32"], ["2", "BM", "16"]],
         [True, False, False], [1, 2]),  # param and value, not rank
        ([["s", "f", "0.5"], ["s", "g", "0.5"]], [False, False, True], [1]),
        ([["s", "0.5"], ["s", "0.7"]], [False, True], None),  # a float is no name
        ([["a", "x"], ["a", "x"]], [False, False], None),  # no column tells them apart
    ],
)  # fmt: skip
def test_key_columns(
    rows: list[list[str]], numeric: list[bool], key: list[int] | None
) -> None:
    assert key_columns(rows, numeric) == key


def _rich(table: pd.DataFrame, width: int, monkeypatch: pytest.MonkeyPatch) -> str:
    """``table`` (row 1 highlighted) as rich shows it without colour, ``width``
    cells wide."""
    monkeypatch.setenv("COLUMNS", str(width))
    stream = io.StringIO()
    render_rich([Section("head", "t", None, (), table, (1,))], stream, colour=False)
    return stream.getvalue()


def test_blocks_of_rows_no_column_tells_apart_repeat_a_row_number(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = pd.DataFrame(
        {"kind": ["a", "a", "a"], "time": [1.5, 1.5, 2.5], "note": ["x" * 30] * 3}
    )
    lines = _rich(table, 40, monkeypatch).splitlines()
    headers = [lines[i - 1].split() for i, line in enumerate(lines) if "━━" in line]
    assert headers == [["#", "kind", "time"], ["#", "note"]]
    rows = [
        line.split()[:2]
        for line in lines
        if line.strip().startswith(("1", "2", "3", "*"))
    ]
    assert rows == [
        ["1", "a"],
        ["*", "2"],
        ["3", "a"],
        ["1", "x" * 30],
        ["*", "2"],
        ["3", "x" * 30],
    ]


def test_records_mark_the_highlighted_row_without_colour(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = pd.DataFrame({"name": ["p", "q"], "value": ["v" * 30, "w" * 30]})
    text = _rich(table, 30, monkeypatch)
    assert "  name   p\n" in text and "* name   q\n" in text
    assert "* value  " + "w" * 30 in text
