"""How a table fits a terminal of a given width without breaking a cell.

A table is shown whole when it fits. Otherwise its columns are split into blocks
shown one below the other, each block after the first repeating the columns that
tell its rows apart (``key_columns``: the first column when it does, as ``mesh_idx``
or ``parameter``; else the one or two columns that do, such as ``param`` and
``value``, or ``shape`` and ``file``; else a row number) so a row can be followed
from block to block. When even the first column and one other do not fit
side by side, each row is shown as a record of ``name  value`` lines instead. A cell is
never broken across lines by kprofile; a single value wider than the terminal is
left whole, for the terminal to wrap.

Widths are in terminal cells. A table of columns ``w1..wn`` wide (their widest cell or
header) takes ``sum(w) + 3n - 1`` cells: one space of padding on either side of every
cell and one between columns (rich's ``SIMPLE_HEAVY`` box without its edge).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

CANDIDATES = 10  # columns tried as keys: pairs of the first ten that are not floats
_WHOLE = re.compile(r"-?[0-9]+")


def table_width(widths: Sequence[int]) -> int:
    """Cells a table of columns this wide takes."""
    return sum(widths) + 3 * len(widths) - 1 if widths else 0


def column_blocks(
    widths: Sequence[int], width: int, key: Sequence[int] = (0,)
) -> list[list[int]] | None:
    """The columns of each block, so that every block fits ``width``: one block of
    all columns when they fit; else the columns packed in order, every block after
    the first starting with the ``key`` columns; None when the key columns and one
    other never fit (show records instead). A table of one column is one block,
    fitting or not."""
    columns = list(range(len(widths)))
    if len(columns) <= 1 or table_width(widths) <= width:
        return [columns]
    blocks: list[list[int]] = []
    rest, prefix = columns, list[int]()
    while rest:
        block = list(prefix)
        while rest and table_width([widths[i] for i in (*block, rest[0])]) <= width:
            block.append(rest.pop(0))
        if len(block) <= max(len(prefix), 1):  # no other column fits beside the key
            return None
        blocks.append(block)
        prefix = list(key)
        rest = [c for c in rest if c not in key]
    return blocks


def key_columns(
    rows: Sequence[Sequence[str]], numeric: Sequence[bool]
) -> list[int] | None:
    """The columns whose cells tell every row apart: the first, when it does; else
    the one or two columns that do, fewest numbers first, then the leftmost (floats
    never: a measurement is no name); None when none do."""
    if not rows or _distinct(rows, (0,)):
        return [0]
    candidates = [
        i
        for i, number in enumerate(numeric)
        if not number or all(_WHOLE.fullmatch(r[i]) for r in rows)
    ][:CANDIDATES]
    combos = [
        combo for size in (1, 2) for combo in itertools.combinations(candidates, size)
    ]
    combos.sort(key=lambda c: (sum(numeric[i] for i in c), sum(c)))
    return next((list(c) for c in combos if _distinct(rows, c)), None)


def _distinct(rows: Sequence[Sequence[str]], columns: Sequence[int]) -> bool:
    return len({tuple(row[i] for i in columns) for row in rows}) == len(rows)
