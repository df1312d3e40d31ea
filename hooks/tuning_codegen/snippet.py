"""Snippets: the text of one table entry with ``[@NAME]`` placeholders.

``NAME`` is ASCII: a letter or ``_``, then letters, digits or ``_``. Anything else that
starts with ``[@`` is a mistake (``[@M``, ``[@ M]``, ``[@M-1]``, ``[@Mé]``) and an error
naming the snippet's line, as is a snippet with nothing in it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from tuning_codegen.errors import InputError, InputWarning, Location
from tuning_codegen.markerset import marker_set

if TYPE_CHECKING:  # a table's snippet paths, for the warnings' locations
    from tuning_codegen.table import Table

PLACEHOLDER = re.compile(r"\[@([A-Za-z_][A-Za-z0-9_]*)\]")
OPENING = "[@"
BOM = "\ufeff"


def normalize_snippet(text: str) -> str:
    """LF line endings (CRLF and a lone CR alike, as the reference reads a snippet in
    text mode) and no leading BOM. Trailing space stays: the reference strips it only
    once the placeholders are filled (``render``)."""
    if text.startswith(BOM):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


@functools.lru_cache(maxsize=64)
def split_placeholders(snippet: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The snippet's text around its placeholders, and their names (one fewer)."""
    parts = PLACEHOLDER.split(snippet)
    return tuple(parts[0::2]), tuple(parts[1::2])


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def parse_snippet(
    text: str, path: str, forbidden: Mapping[str, str] | None = None
) -> str:
    """The normalized snippet; refuses an empty one, a malformed placeholder, and one
    whose text (placeholders aside: they are replaced) contains a marker of
    ``forbidden`` (marker -> what it is)."""
    body = normalize_snippet(text)
    if not body.strip():
        raise InputError(path, "empty snippet: it must hold the text of one entry")
    start = body.find(OPENING)
    while start != -1:
        if PLACEHOLDER.match(body, start) is None:
            shown = body[start:].split("\n", 1)[0][:24]
            raise InputError(
                path,
                f"{shown!r} is not a placeholder: write [@NAME], NAME made of ASCII "
                "letters, digits and _ (not starting with a digit)",
                line=_line_of(body, start),
            )
        start = body.find(OPENING, start + len(OPENING))
    text = PLACEHOLDER.sub(lambda m: "\0" * len(m.group()), body)  # [@M_END] is no END
    markers = marker_set(forbidden)
    found = markers.first_in(text)
    if found is not None:
        marker, at = found
        raise InputError(path, f"contains {markers[marker]}", line=_line_of(body, at))
    return body


def trailing_comma_warnings(
    table: Table, snippets: Mapping[str | None, str]
) -> list[InputWarning]:
    """A snippet ending in ``,``: every entry gets a ``,`` after it already, so the
    region holds ``,,`` (as the reference writes it; a syntax error in a Python
    list)."""
    paths: dict[str | None, str] = {None: table.snippet}
    paths.update(table.snippet_variants)
    found = []
    for name, text in snippets.items():
        body = text.rstrip()
        if body.endswith(","):
            found.append(
                InputWarning(
                    Location(paths[name], body.count("\n") + 1),
                    "the snippet ends with ','; every entry is followed by one "
                    "already, so the region holds ',,' (remove it from the snippet)",
                )
            )
    return found
