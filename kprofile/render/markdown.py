"""Sections as GitHub-flavoured Markdown."""

from __future__ import annotations

import re
from collections.abc import Sequence

from kprofile.render.cells import cell, note_lines, table_cells
from kprofile.render.section import Section
from tuning_codegen.errors import one_line


def render_markdown(sections: Sequence[Section]) -> str:
    """GitHub-flavoured Markdown: a heading per section, a facts list, and a table
    (the best row in bold)."""
    blocks = []
    for section in sections:
        lines = [f"### {one_line(section.title)}", ""]
        for key, value in section.facts:
            lines.append(f"- **{_md(one_line(key))}**: {_md(cell(value))}")
        if section.facts:
            lines.append("")
        if section.table is not None and section.table.empty:
            lines += ["_(no entries)_", ""]
        elif section.table is not None:
            header, rows, numeric = table_cells(section.table)
            marks = set(section.highlight)
            lines.append("| " + " | ".join(_md(h) for h in header) + " |")
            lines.append("|" + "|".join("---:" if n else "---" for n in numeric) + "|")
            for i, row in enumerate(rows):
                cells = [f"**{_md(c)}**" if i in marks else _md(c) for c in row]
                lines.append("| " + " | ".join(cells) + " |")
            lines.append("")
        lines += [_md_note(n) for n in section.notes]
        blocks.append("\n".join(lines).rstrip("\n"))
    return "\n\n".join(blocks) + ("\n" if blocks else "")


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def _md_note(note: str) -> str:
    """A one-line note as text; a multi-line note (a diff) as a fenced block."""
    lines = note_lines(note)
    if len(lines) == 1:
        return _md(lines[0])
    text = "\n".join(lines)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    language = "diff" if text.startswith("--- ") else ""
    return f"{fence}{language}\n{text}\n{fence}"
