"""Sections as text: rich tables on a terminal, aligned plain text when piped.

On a terminal nothing is ever broken inside a value: a table wider than the terminal
is shown in blocks of columns, or one record per row (``kprofile.render.layout``);
facts, notes and titles too long for a line are left whole for the terminal to wrap.
Sections are separated by one blank line. Colour is rich's styles, off with
``--color never`` or ``NO_COLOR`` (``tuning_codegen.colour.wants_colour``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, TYPE_CHECKING

from kprofile.render.cells import cell, note_lines, table_cells
from kprofile.render.layout import column_blocks, key_columns, table_width
from kprofile.render.section import Section, Tabular
from tuning_codegen.colour import colour_diff
from tuning_codegen.errors import one_line

if TYPE_CHECKING:
    from rich.console import Console

HIGHLIGHT = "bold green"


def render_plain(sections: Sequence[Section]) -> str:
    """Plain text: a title line, aligned facts, an aligned table; ``*`` marks the
    highlighted rows."""
    blocks = []
    for section in sections:
        lines = [f"== {one_line(section.title)} =="]
        if section.facts:
            keys = [one_line(k) for k, _ in section.facts]
            width = max(len(k) for k in keys)
            lines += [
                f"{k.ljust(width)}  {cell(v)}" for k, (_, v) in zip(keys, section.facts)
            ]
        if section.table is not None:
            if section.facts:
                lines.append("")
            lines += _plain_table(section.table, section.highlight)
        for note in section.notes:
            lines += note_lines(note)
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + ("\n" if blocks else "")


def _plain_table(table: Tabular, highlight: Sequence[int]) -> list[str]:
    header, rows, numeric = table_cells(table)
    if not header:
        return []
    marks = set(highlight)
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(header)]

    def line(cells: Sequence[str], mark: str) -> str:
        padded = [
            c.rjust(w) if num else c.ljust(w)
            for c, w, num in zip(cells, widths, numeric)
        ]
        return (mark + " " + "  ".join(padded)).rstrip()

    out = [line(header, " ")]
    out += [line(r, "*" if i in marks else " ") for i, r in enumerate(rows)]
    if not rows:
        out.append("  (no entries)")
    return out


def render_rich(sections: Sequence[Section], stream: IO[str], *, colour: bool) -> None:
    """Rich tables (imported only when a terminal asks for them), as wide as the
    terminal allows. Text from the data is never read as rich markup: ``[M=64]`` or a
    diff line ``- [a, b]`` prints as written."""
    from rich.console import Console

    console = Console(
        file=stream,
        highlight=False,
        markup=False,
        emoji=False,
        force_terminal=True if colour else None,
        color_system="auto" if colour else None,
        no_color=not colour,  # decided here: --color always overrides NO_COLOR
    )
    for number, section in enumerate(sections):
        if number:
            console.print()
        _rich_section(console, section, colour=colour)


def _rich_section(console: Console, section: Section, *, colour: bool) -> None:
    from rich.text import Text

    title = one_line(section.title)
    if len(title) + 6 <= console.width:
        console.rule(Text(title, style="bold"))
    else:  # a rule would cut the title short
        console.rule()
        console.print(Text(title, style="bold"), soft_wrap=True)
    if section.facts:
        keys = [one_line(k) for k, _ in section.facts]
        width = max(_cells(k) for k in keys)
        for key, (_, value) in zip(keys, section.facts):
            line = Text.assemble(("  " + _pad(key, width), "cyan"), "  ", cell(value))
            console.print(line, soft_wrap=True)
    if section.table is not None:
        if section.facts:
            console.print()
        _rich_table(console, section.table, set(section.highlight), colour=colour)
        if section.notes:
            console.print()
    for note in section.notes:
        lines = [line.removesuffix("\r") for line in note_lines(note)]
        text = "\n".join(lines)
        if len(lines) > 1 and text.startswith("--- "):
            console.print(Text.from_ansi(colour_diff(text)), soft_wrap=True)
        else:
            console.print(Text(text), soft_wrap=True)


def _rich_table(
    console: Console, table: Tabular, marks: set[int], *, colour: bool
) -> None:
    header, rows, numeric = table_cells(table)
    if not header:
        return
    records = header, rows
    marked = not colour and bool(marks)
    if marked:  # what colour shows, a ``*`` column says
        header, numeric = ["", *header], [False, *numeric]
        rows = [["*" if i in marks else "", *r] for i, r in enumerate(rows)]
    widths = _widths(header, rows)
    key = [0]
    if table_width(widths) > console.width:  # in blocks: each repeats the row's key
        header, rows, numeric, key = _keyed(header, rows, numeric, marked=marked)
        widths = _widths(header, rows)
    blocks = column_blocks(widths, console.width, key)
    if blocks is None or len(blocks) > max(len(rows), 1):  # records read better
        _rich_records(console, *records, marks, colour=colour)
        return
    for number, block in enumerate(blocks):
        if number:
            console.print()
        _rich_block(console, block, header, rows, numeric, widths, marks)


def _keyed(
    header: list[str], rows: list[list[str]], numeric: list[bool], *, marked: bool
) -> tuple[list[str], list[list[str]], list[bool], list[int]]:
    """The table and the columns that tell its rows apart (``layout.key_columns``),
    the ``*`` column first when there is one; a row number ``#`` when no column
    does."""
    skip = 1 if marked else 0
    key = key_columns([r[skip:] for r in rows], numeric[skip:])
    if key is not None:
        return header, rows, numeric, [*range(skip), *(k + skip for k in key)]
    header = [*header[:skip], "#", *header[skip:]]
    rows = [[*r[:skip], str(n), *r[skip:]] for n, r in enumerate(rows, 1)]
    return header, rows, [*numeric[:skip], True, *numeric[skip:]], [*range(skip + 1)]


def _widths(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[int]:
    return [
        max([_cells(h), *(_cells(r[i]) for r in rows)]) for i, h in enumerate(header)
    ]


def _rich_block(
    console: Console,
    block: Sequence[int],
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    numeric: Sequence[bool],
    widths: Sequence[int],
    marks: set[int],
) -> None:
    """The columns ``block`` of the table, which fit the terminal as they are."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(box=box.SIMPLE_HEAVY, show_edge=False)
    for i in block:
        table.add_column(
            Text(header[i]),
            justify="right" if numeric[i] else "left",
            no_wrap=True,
            min_width=widths[i],
        )
    for number, row in enumerate(rows):
        style = HIGHLIGHT if number in marks else None
        table.add_row(*(Text(row[i]) for i in block), style=style)
    console.print(table)
    if not rows:
        console.print("  (no entries)")


def _rich_records(
    console: Console,
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    marks: set[int],
    *,
    colour: bool,
) -> None:
    """One record per row, ``name  value`` lines, for a table no block of columns
    fits; without colour the best record's lines start with ``*``."""
    from rich.text import Text

    width = max(_cells(h) for h in header)
    for number, row in enumerate(rows):
        if number:
            console.print()
        style = HIGHLIGHT if number in marks else ""
        lead = "* " if number in marks and not colour else "  "
        for name, value in zip(header, row):
            line = Text.assemble(
                (lead + _pad(name, width), "cyan"), "  ", (value, style)
            )
            console.print(line, soft_wrap=True)
    if not rows:
        console.print("  (no entries)")


def _cells(text: str) -> int:
    """Terminal cells ``text`` takes (wide characters take two)."""
    from rich.cells import cell_len

    return cell_len(text)


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _cells(text))
