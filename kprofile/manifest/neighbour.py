"""New manifest entries written into the text like their neighbour: the one writer of
entries for ``--update`` (``append_edit``: new shapes after the last entry) and
``--update --ranges`` (``overwrite``, ``removal``, ``insertion``: an entry's place
taken by new entries, its lines removed, new entries after one).

Written like ``like``, the entry beside them: a flow mapping (``- {M: 1, ...}``) or
block lines (with ``columns``, the space after the dash and the key column of that
entry, else ``- KEY``); the given merge key first (``<<: *defaults``), keys equal to
what it gives left out; each value in the style of the first scalar written for its
key (``Layout.styles``). Two
entries are one line break apart, or two when every two neighbouring entries of the
manifest are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kprofile.manifest.layout import Item, Layout, shared_merge
from kprofile.manifest.scalar import Value, render_key, render_scalar
from kprofile.manifest.splice import (
    Edit,
    column,
    eol,
    line_end,
    line_start,
    next_line,
)
from tuning_codegen.errors import InputError
from tuning_codegen.values import same_value

Values = Mapping[str, Any]


def entries_like(
    text: str,
    layout: Layout,
    like: Item | None,
    entries: Sequence[Values],
    *,
    merge: str | None,
    defaults: Mapping[str, Any],
    dash_col: int,
    between: str,
    columns: bool = True,
) -> str:
    """``entries`` as sequence items written like ``like`` (None: block style),
    ``between`` (one or two line breaks) apart, the first without the indentation
    before its dash (the text keeps the one it has). ``columns``: keys in ``like``'s
    key column (an entry put in the place of others), else right after ``- ``."""
    flow = like is not None and like.flow
    key_col = dash_col + 2
    if columns and like is not None and not flow and like.pairs:
        key_col = max(key_col, column(text, like.pairs[0].key_start))
    sep = eol(text, 0 if like is None else like.start)
    items = []
    for entry in entries:
        pairs = pairs_text(entry, layout, merge=merge, defaults=defaults, flow=flow)
        if flow or not pairs:
            items.append("- {" + ", ".join(pairs) + "}")
        else:
            head = "-" + " " * (key_col - dash_col - 1) + pairs[0]
            items.append((sep + " " * key_col).join([head, *pairs[1:]]))
    return (between + " " * dash_col).join(items)


def pairs_text(
    entry: Mapping[str, Value],
    layout: Layout,
    *,
    merge: str | None,
    defaults: Mapping[str, Any],
    flow: bool,
) -> list[str]:
    """``KEY: value`` for the merge key and each key the merge does not give alike."""
    pairs = [] if merge is None else [f"<<: {merge}"]
    pairs += [
        pair_text(k, v, flow=flow, layout=layout)
        for k, v in entry.items()
        if not (k in defaults and same_value(defaults[k], v))
    ]
    return pairs


def pair_text(key: str, value: Value, *, flow: bool, layout: Layout) -> str:
    rendered = render_scalar(value, flow=flow, like=layout.styles.get(key))
    return f"{render_key(key, flow=flow)}: {rendered}"


def separator(text: str, layout: Layout, at: int) -> str:
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


def append_edit(
    text: str,
    layout: Layout,
    appended: Sequence[Mapping[str, Value]],
    ends: Mapping[int, int],
) -> Edit:
    """One insertion holding an entry per selection in ``appended``, written like the
    last entry with the merge key every entry shares (``entries_like``).
    ``ends`` maps an edited block entry's index to where its kept keys end (see
    ``entry_edits``)."""
    merge, defaults = shared_merge(layout.items)
    if layout.flow:  # params: [{...}, {...}]
        entries = [
            "{"
            + ", ".join(
                pairs_text(sel, layout, merge=merge, defaults=defaults, flow=True)
            )
            + "}"
            for sel in appended
        ]
        if layout.items:
            end = layout.items[-1].end
            return Edit(end, end, "".join(", " + e for e in entries))
        start = layout.start + 1
        return Edit(start, start, ", ".join(entries))
    last = layout.items[-1]
    at = line_end(text, ends.get(last.index, last.end))
    lead = separator(text, layout, at)
    block = entries_like(
        text, layout, last, appended,
        merge=merge, defaults=defaults, dash_col=layout.column, between=lead,
        columns=False,
    )  # fmt: skip
    return Edit(at, at, lead + " " * layout.column + block)


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
    """``entries`` written like ``like``, with its merge key (see ``entries_like``)."""
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
