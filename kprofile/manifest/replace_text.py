"""Where ``kprofile.manifest.replace`` edits a manifest's text: an entry overwritten by
new entries, an entry's lines removed, new entries inserted after an entry, each new
entry written like its neighbour (dash and key columns, block or flow mapping, merge
key, scalar styles).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kprofile.manifest.layout import Item, Layout
from kprofile.manifest.scalar import render_key, render_scalar, same_value
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
    block = _entries(text, layout, item, entries, dash, _separator(text, layout, dash))
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
        block = _entries(text, layout, None, entries, None, newline)
        return Edit(start, end, newline + block)
    at = line_end(text, after.end)
    dash = _dash(text, after, path)
    between = _separator(text, layout, at)
    block = _entries(text, layout, after, entries, dash, between)
    return Edit(at, at, between + " " * column(text, dash) + block)


def _separator(text: str, layout: Layout, at: int) -> str:
    """A line break, or two when every two neighbouring entries have a blank line
    between them."""
    newline = eol(text, at)
    items = layout.items
    if len(items) < 2:
        return newline
    for before, after in zip(items, items[1:]):
        gap = text[next_line(text, before.end) : line_start(text, after.start)]
        if not any(line.strip() == "" for line in gap.splitlines()):
            return newline
    return newline + newline


def _entries(
    text: str,
    layout: Layout,
    like: Item | None,
    entries: Sequence[Values],
    dash: int | None,
    between: str,
) -> str:
    """``entries`` as sequence items written like ``like``, ``between`` (one or two
    line breaks) apart, the first without the indentation before its dash (the text
    keeps the one it has)."""
    dash_col = 0 if dash is None else column(text, dash)
    flow = like is not None and like.flow
    key_col = dash_col + 2
    if like is not None and not flow and like.pairs:
        key_col = max(key_col, column(text, like.pairs[0].key_start))
    merge = None if like is None else like.merge_text
    defaults = {} if merge is None or like is None else like.defaults
    sep = eol(text, 0 if dash is None else dash)
    items = []
    for entry in entries:
        pairs = [] if merge is None else [f"<<: {merge}"]
        pairs += [
            f"{render_key(k, flow=flow)}: "
            f"{render_scalar(v, flow=flow, like=layout.styles.get(k))}"
            for k, v in entry.items()
            if not (k in defaults and same_value(defaults[k], v))
        ]
        if flow or not pairs:
            items.append("- {" + ", ".join(pairs) + "}")
        else:
            head = "-" + " " * (key_col - dash_col - 1) + pairs[0]
            items.append((sep + " " * key_col).join([head, *pairs[1:]]))
    return (between + " " * dash_col).join(items)
