"""Sections as text: rich tables on a terminal, aligned plain text when piped."""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO

import pandas as pd

from kprofile.render.cells import cell, table_cells
from kprofile.render.section import Section


def render_plain(sections: Sequence[Section]) -> str:
    """Plain text: a title line, aligned facts, an aligned table; ``*`` marks the
    highlighted rows."""
    blocks = []
    for section in sections:
        lines = [f"== {section.title} =="]
        if section.facts:
            width = max(len(k) for k, _ in section.facts)
            lines += [f"{k.ljust(width)}  {cell(v)}" for k, v in section.facts]
        if section.table is not None:
            if section.facts:
                lines.append("")
            lines += _plain_table(section.table, section.highlight)
        lines += [
            note.rstrip("\n") for note in section.notes
        ]  # a diff note ends with its own newline
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + ("\n" if blocks else "")


def _plain_table(table: pd.DataFrame, highlight: Sequence[int]) -> list[str]:
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


def render_rich(sections: Sequence[Section], stream: IO[str]) -> None:
    """Rich tables (imported only when a terminal asks for them). Text from the data
    is never read as rich markup: ``[M=64]`` or a diff line ``- [a, b]`` prints as
    written."""
    from rich import box
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    console = Console(file=stream, highlight=False)
    for section in sections:
        console.rule(f"[bold]{escape(section.title)}")
        if section.facts:
            facts = Table(show_header=False, box=None, padding=(0, 2))
            facts.add_column(style="cyan", no_wrap=True)
            facts.add_column(overflow="fold")
            for key, value in section.facts:
                facts.add_row(Text(key), Text(cell(value)))
            console.print(facts)
        if section.table is not None:
            header, rows, numeric = table_cells(section.table)
            table = Table(box=box.SIMPLE_HEAVY)
            for name, num in zip(header, numeric):
                table.add_column(
                    Text(name), justify="right" if num else "left", overflow="fold"
                )
            marks = set(section.highlight)
            for i, row in enumerate(rows):
                table.add_row(
                    *(Text(c) for c in row), style="bold green" if i in marks else None
                )
            console.print(table)
        for note in section.notes:
            console.print(Text(note.rstrip("\n")), soft_wrap="\n" in note)
