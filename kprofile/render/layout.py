"""How a table fits a terminal of a given width without breaking a cell.

A table is shown whole when it fits. Otherwise its columns are split into blocks
shown one below the other, each block repeating the first column (what names the
row: ``mesh_idx``, ``parameter``, ``config``, the first shape column) so a row can be
followed from block to block. When even the first column and one other do not fit
side by side, each row is shown as a record of ``name  value`` lines instead. A cell is
never broken across lines by kprofile; a single value wider than the terminal is
left whole, for the terminal to wrap.

Widths are in terminal cells. A table of columns ``w1..wn`` wide (their widest cell or
header) takes ``sum(w) + 3n - 1`` cells: one space of padding on either side of every
cell and one between columns (rich's ``SIMPLE_HEAVY`` box without its edge).
"""

from __future__ import annotations

from collections.abc import Sequence


def table_width(widths: Sequence[int]) -> int:
    """Cells a table of columns this wide takes."""
    return sum(widths) + 3 * len(widths) - 1 if widths else 0


def column_blocks(widths: Sequence[int], width: int) -> list[list[int]] | None:
    """The columns of each block, so that every block fits ``width``: one block of
    all columns when they fit; else the first column repeated in each block and the
    others packed in order; None when the first column and one other never fit (show
    records instead). A table of one column is one block, fitting or not."""
    columns = list(range(len(widths)))
    if len(columns) <= 1 or table_width(widths) <= width:
        return [columns]
    blocks: list[list[int]] = []
    block = [0]
    for column in columns[1:]:
        if table_width([widths[i] for i in (*block, column)]) > width:
            if len(block) == 1:
                return None
            blocks.append(block)
            block = [0]
            if table_width([widths[0], widths[column]]) > width:
                return None
        block.append(column)
    blocks.append(block)
    return blocks
