"""Where ``kprofile.manifest.replace`` edits a manifest's text: an entry overwritten by
new entries, an entry's lines removed, new entries inserted after an entry, each new
entry written like its neighbour (``kprofile.manifest.neighbour``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kprofile.manifest.layout import Item, Layout
from kprofile.manifest.neighbour import entries_like, separator
from kprofile.manifest.text_edit import (
    Edit,
    column,
    eol,
    line_end,
    line_start,
    next_line,
)
from tuning_codegen.errors import InputError

Values = Mapping[str, Any]


def overwrite(
    text: str, layout: Layout, item: Item, entries: Sequence[Values], path: str
) -> Edit:
    """``item`` (from its dash to the end of its last line) becomes ``entries``."""
    dash = _dash(text, item, path)
    block = _like(text, layout, item, entries, dash, separator(text, layout, dash))
    return Edit(dash, line_end(text, item.end), block)


def _dash(text: str, item: Item, path: str) -> int:
    """Where the ``-`` that introduces ``item`` stands (first on its line)."""
    dash = text.rfind("-", 0, item.start)
    if (
        dash < 0
        or text[dash + 1 : item.start].strip()
        or text[line_start(text, dash) : dash].strip()
    ):
        raise InputError(
            path,
            f"params[{item.index}]: cannot tell where the entry starts; "
            "write each entry as '- KEY: value' lines",
            line=item.line,
        )
    return dash


def removal(text: str, item: Item, path: str) -> Edit:
    """The entry's lines, from its dash to its last line's break."""
    start = line_start(text, _dash(text, item, path))
    end = next_line(text, item.end)
    if end == len(text) and not text.endswith("\n"):  # keep "no final newline"
        start = max(0, start - (2 if text[max(0, start - 2) : start] == "\r\n" else 1))
    return Edit(start, end, "")


def insertion(
    text: str, layout: Layout, after: Item | None, entries: Sequence[Values], path: str
) -> Edit:
    """``entries`` after the entry ``after``, or into an empty ``[]`` when None."""
    if after is None:  # params: [] (read_layout found no entry)
        start = layout.start  # the "[" of an empty flow list
        end = text.index("]", start) + 1
        while start > 0 and text[start - 1] in " \t":
            start -= 1
        newline = eol(text, 0)
        block = _like(text, layout, None, entries, None, newline)
        return Edit(start, end, newline + block)
    at = line_end(text, after.end)
    dash = _dash(text, after, path)
    between = separator(text, layout, at)
    block = _like(text, layout, after, entries, dash, between)
    return Edit(at, at, between + " " * column(text, dash) + block)


def _like(
    text: str,
    layout: Layout,
    like: Item | None,
    entries: Sequence[Values],
    dash: int | None,
    between: str,
) -> str:
    """``entries`` written like ``like``, with its merge key (see ``neighbour``)."""
    return entries_like(
        text,
        layout,
        like,
        entries,
        merge=None if like is None else like.merge_text,
        defaults={} if like is None or like.merge_text is None else like.defaults,
        dash_col=0 if dash is None else column(text, dash),
        between=between,
    )
