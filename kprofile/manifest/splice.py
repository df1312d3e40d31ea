"""Targeted edits of a text at character offsets, and the line geometry they need.

Offsets are indices into the ``str`` (PyYAML marks count characters too). Lines end in
LF or CRLF; helpers never normalise line endings, so a file keeps its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_LINE_BREAK = re.compile(r"\r?\n")


@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` with ``new`` (``start == end``: an insertion)."""

    start: int
    end: int
    new: str


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """``text`` with every edit applied; edits must not overlap."""
    out, pos = [], 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        assert edit.start >= pos, "overlapping edits"
        out += [text[pos : edit.start], edit.new]
        pos = edit.end
    out.append(text[pos:])
    return "".join(out)


def content_end(text: str, pos: int) -> int:
    """``pos`` moved back over trailing whitespace (a block scalar's final newlines)."""
    while pos > 0 and text[pos - 1] in " \t\r\n":
        pos -= 1
    return pos


def line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def line_end(text: str, pos: int) -> int:
    """Offset of the line break ending the line that holds ``pos`` (or end of text)."""
    nl = text.find("\n", pos)
    if nl < 0:
        return len(text)
    return nl - 1 if nl > 0 and text[nl - 1] == "\r" else nl


def next_line(text: str, pos: int) -> int:
    """Start of the line after the one that holds ``pos`` (or end of text)."""
    nl = text.find("\n", pos)
    return len(text) if nl < 0 else nl + 1


def eol(text: str, pos: int) -> str:
    """The line break used at ``pos`` (or the file's first one, or LF)."""
    m = _LINE_BREAK.search(text, pos) or _LINE_BREAK.search(text)
    return "\n" if m is None else m.group()


def first_on_line(text: str, pos: int) -> bool:
    return text[line_start(text, pos) : pos].strip() == ""


def column(text: str, pos: int) -> int:
    return pos - line_start(text, pos)
