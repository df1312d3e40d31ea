"""Sections as GitHub-flavoured Markdown that renders as it reads.

A value Markdown would act on (a fact's value, a word of a note, and every cell of a
table column holding one) is a code span, so a spec string such as
``np_blocked_matmul/$M=256/$N=256`` is never read as inline math, emphasis or HTML:
the span's fence is one backtick longer than the longest run of
backticks inside it, and padded with a space where the value starts or ends with a
backtick or a space (which CommonMark would strip). Text around values (titles, keys,
column names, numbers, notes) has every character Markdown would act on written as
its backslash escape (``\\*``, ``\\_``, ``\\$``, ``\\<``...), which renders as the
character itself. In a table cell ``|`` is ``\\|``, which GFM reads as ``|`` even
inside a code span. Line breaks never reach a cell raw: ``one_line`` shows them as
``\\n``. Nothing an Actions log obeys survives (``escape_commands``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from kprofile.render.cells import MISSING, cell, note_lines, table_cells
from kprofile.render.section import Section
from tuning_codegen.errors import one_line
from tuning_codegen.printable import escape_commands

# What Markdown acts on inline: emphasis, code, links, HTML, entities, strikethrough,
# GitHub's math, table cells (and a heading's closing ``#``s).
_ACTIVE = frozenset("\\`*[]<$|~&#")
_ESCAPE = {ord(c): "\\" + c for c in _ACTIVE}
# ``_`` between two letters or digits never opens or closes emphasis (``M8_N7168``):
# left as it is; anywhere else escaped.
_UNDERSCORE = re.compile(r"(?<![^\W_])_|_(?![^\W_])")
# What starts a block at the start of a line: a heading, quote, list, rule.
_BLOCK_START = re.compile(r"[>+=-]|\d+[.)]")
_TICKS = re.compile(r"`+")


def render_markdown(sections: Sequence[Section]) -> str:
    """GitHub-flavoured Markdown: a heading per section, a facts list, and a table
    (the best row in bold)."""
    blocks = []
    for section in sections:
        lines = [f"### {text(one_line(section.title))}", ""]
        for key, value in section.facts:
            lines.append(f"- **{text(one_line(key))}**: {_value(value)}")
        if section.facts:
            lines.append("")
        if section.table is not None and section.table.empty:
            lines += ["(no entries)", ""]
        elif section.table is not None:
            lines += _table(section, set(section.highlight))
        lines += [block for n in section.notes for block in (_md_note(n), "")]
        blocks.append("\n".join(lines).rstrip("\n"))
    return escape_commands("\n\n".join(blocks) + ("\n" if blocks else ""))


def _table(section: Section, marks: set[int]) -> list[str]:
    assert section.table is not None
    header, rows, numeric = table_cells(section.table)
    coded = [not n and any(_acts(r[i]) for r in rows) for i, n in enumerate(numeric)]
    lines = ["| " + " | ".join(text(h) for h in header) + " |"]
    lines.append("|" + "|".join("---:" if n else "---" for n in numeric) + "|")
    for i, row in enumerate(rows):
        cells = [
            code(c, in_table=True) if as_code and c != MISSING else text(c)
            for c, as_code in zip(row, coded)
        ]
        if i in marks:
            cells = [f"**{c}**" if c else c for c in cells]
        lines.append("| " + " | ".join(cells) + " |")
    return [*lines, ""]


def _acts(shown: str) -> bool:
    """Whether Markdown would act on some character of ``shown``."""
    return not _ACTIVE.isdisjoint(shown) or _UNDERSCORE.search(shown) is not None


def _value(value: Any) -> str:
    """A fact's value: as a code span when Markdown would act on it, else as text."""
    shown = cell(value)
    return code(shown) if _acts(shown) else text(shown)


def text(shown: str) -> str:
    """``shown`` (one line) as Markdown text that renders exactly as ``shown``."""
    return _UNDERSCORE.sub(r"\\_", shown.translate(_ESCAPE))


def code(shown: str, *, in_table: bool = False) -> str:
    """``shown`` (one line) as a code span that renders exactly as ``shown``; in a
    table cell with ``|`` as ``\\|``. An empty value is nothing."""
    if not shown:
        return ""
    longest = max((len(run) for run in _TICKS.findall(shown)), default=0)
    fence = "`" * (longest + 1)
    padded = shown
    if (
        shown.startswith("`")
        or shown.endswith("`")
        or (shown.startswith(" ") and shown.endswith(" ") and shown.strip(" "))
    ):
        padded = f" {shown} "
    if in_table:
        padded = padded.replace("|", "\\|")
    return f"{fence}{padded}{fence}"


def _note_line(shown: str) -> str:
    """A one-line note: each word holding a character Markdown acts on (a spec
    string, a path with ``_``) as a code span, the other words as they are, and a
    first word that would start a block (``-``, ``1.``) escaped."""
    words = [code(w) if _acts(w) else w for w in shown.split(" ")]
    line = " ".join(words)
    start = _BLOCK_START.match(line)
    if start is None:
        return line
    cut = start.end() - 1  # the marker's last character: ``-``, or ``.`` of ``1.``
    return line[:cut] + "\\" + line[cut:]


def _md_note(note: str) -> str:
    """A one-line note as text; a multi-line note (a diff) as a fenced block."""
    lines = note_lines(note)
    if len(lines) == 1:
        return _note_line(lines[0])
    body = "\n".join(lines)
    longest = max((len(run) for run in _TICKS.findall(body)), default=0)
    fence = "`" * max(3, longest + 1)
    language = "diff" if body.startswith("--- ") else ""
    return f"{fence}{language}\n{body}\n{fence}"
