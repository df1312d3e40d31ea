"""A table: one manifest rendered through its snippets into one region of a target."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

from tuning_codegen.errors import LINE_BREAKS, UNSAFE_IN_SOURCE
from tuning_codegen.languages import DEFAULT_INDENT, DEFAULT_LANGUAGE, Language
from tuning_codegen.printable import describe_unsafe


class Formatter(NamedTuple):
    """The repository's formatter for a target (a table's ``format``): a command, run
    without a shell, that formats a temporary copy named ``{file}`` in place, or
    (with no ``{file}``) reads the text on stdin and prints it formatted; ``{path}``
    is the target's path from the repository's root. ``origin`` says where it was
    set, for messages."""

    argv: tuple[str, ...]
    origin: str

    @property
    def in_place(self) -> bool:
        return any(FILE_PLACEHOLDER in arg for arg in self.argv)

    def shown(self) -> str:
        return " ".join(self.argv)


FILE_PLACEHOLDER = "{file}"
PATH_PLACEHOLDER = "{path}"


class Table(NamedTuple):
    name: str
    manifest: str
    snippet: str
    target: str
    begin_marker: str
    end_marker: str
    source_label: str
    snippet_variants: Mapping[str, str] = MappingProxyType({})
    indent: str = DEFAULT_INDENT
    language: Language = DEFAULT_LANGUAGE
    formatter: Formatter | None = None
    indent_from_marker: bool = False  # indent: marker (the begin marker line's own)

    def inputs(self) -> tuple[str, ...]:
        """Every file this table reads or writes."""
        return (
            self.manifest,
            self.snippet,
            *self.snippet_variants.values(),
            self.target,
        )

    def markers(self) -> dict[str, str]:
        """Each marker -> what it is, for messages."""
        return {
            marker: f"the {what} marker {marker!r} of table '{self.name}'"
            for what, marker in (("begin", self.begin_marker), ("end", self.end_marker))
        }


def default_source_label(manifest: str) -> str:
    return os.path.basename(manifest)


_UNSAFE = re.compile(
    f"[{re.escape(LINE_BREAKS + ''.join(sorted(UNSAFE_IN_SOURCE)))}\udc80-\udcff]"
)


def unsafe_text(text: str) -> str | None:
    """What in ``text`` must not reach a line of source or of output, if anything."""
    found = _UNSAFE.search(text)
    if found is None:
        return None
    char = found.group()
    if "\udc80" <= char <= "\udcff":  # a file name's byte, not UTF-8 text
        return f"a byte that is not UTF-8 (0x{ord(char) - 0xDC00:02x})"
    return describe_unsafe(char)


def _comment_problems(table: Table) -> list[tuple[str, str]]:
    """A marker in the comments every generated entry starts with would occur once
    per entry: blame the source label if it brings the marker, else the marker."""
    comment = table.language.comment
    label = f"{comment} Automatically generated from [{table.source_label}]"
    index = f"{comment} index: ["
    problems = []
    for key, what in (("begin_marker", "begin"), ("end_marker", "end")):
        marker = getattr(table, key)
        if not marker.strip():
            continue
        if marker in table.source_label:  # worded as crosscheck words it
            problems.append(
                ("source_label", f"source_label contains {table.markers()[marker]}")
            )
        elif marker in label or marker in index:
            line = label if marker in label else f"{index}0]"
            problems.append(
                (
                    key,
                    f"the {what} marker {marker!r} occurs in the comments every "
                    f"generated entry starts with ({line!r}); choose a marker "
                    "they do not hold",
                )
            )
    return problems


def setting_problems(table: Table) -> list[tuple[str, str]]:
    """``(setting, problem)`` for each setting that could break the target's lines."""
    problems: list[tuple[str, str]] = []
    for key in ("name", "begin_marker", "end_marker", "source_label"):
        unsafe = unsafe_text(getattr(table, key))
        if unsafe is not None:
            problems.append((key, f"'{key}' contains {unsafe}"))
    if table.indent.strip(" \t"):
        problems.append(("indent", "'indent' must be a string of spaces or tabs"))
    begin, end = table.begin_marker, table.end_marker
    problems += _comment_problems(table)
    if not begin.strip() or not end.strip():
        problems.append(("begin_marker", "a marker must not be empty or blank"))
    elif begin in end or end in begin:
        problems.append(
            (
                "end_marker",
                f"begin marker {begin!r} and end marker {end!r}: neither may "
                "contain the other (each must occur on exactly one line)",
            )
        )
    return problems
