"""New manifest entries written like their neighbour: the one writer of entries for
``--update`` (``edits``: appended shapes) and ``--update --ranges`` (``replace_text``:
replacing ranges).

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

from kprofile.manifest.layout import Item, Layout
from kprofile.manifest.scalar import Value, render_key, render_scalar
from kprofile.manifest.text_edit import column, eol, line_start, next_line
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
