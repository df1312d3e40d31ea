"""How a table is cut to fit a terminal: whole, in blocks of columns, or records."""

from __future__ import annotations

import pytest

from kprofile.render.layout import column_blocks, table_width


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
