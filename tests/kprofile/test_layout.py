"""How a table is cut to fit a terminal: whole, in blocks of columns, or records."""

from __future__ import annotations

import pytest

from kprofile.render.layout import column_blocks, key_columns, table_width


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
