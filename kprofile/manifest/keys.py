"""One entry's keys changed in place (``--update``'s changed shapes): each edit
written in the style of the entry and its neighbours.

A changed value replaces the old scalar's text (keeping its anchor, quoting and boolean
spelling); a value equal to the merged default drops the entry's override; a new key
goes on a line of its own after the entry's last key, at that key's indentation.

A comment at the end of a line whose value is replaced (``BM: 128  # from sweep A``)
described the old value: it goes, with the spaces before it, and so does the comment
of an override line that is removed; each is reported (``EntryEdits.dropped``). A
comment after a flow entry's closing brace, or on a line of its own, stays.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import NamedTuple

from kprofile.manifest.layout import Item, Pair, Scalar
from kprofile.manifest.scalar import Value, render_key, render_scalar
from kprofile.manifest.splice import (
    Edit,
    column,
    content_end,
    eol,
    first_on_line,
    line_end,
    line_start,
    next_line,
)
from tuning_codegen.values import same_value

_PROPERTY = re.compile(r"\S+\s*")
_TRAILING = re.compile(r"[ \t]+(#[^\r\n]*)")  # a comment after a value, to the line end


class EntryEdits(NamedTuple):
    """The edits of one entry; where its kept keys end (None for a flow entry: new
    entries are appended after that); the comments that go, with their keys."""

    edits: list[Edit]
    end: int | None
    dropped: list[tuple[str, str]]


def entry_edits(
    text: str,
    item: Item,
    updates: Mapping[str, Value],
    styles: Mapping[str, Scalar],
) -> EntryEdits:
    """Edits that give ``item`` the values ``updates`` (module docstring)."""
    own = {p.key: p for p in item.pairs if p.key is not None and not p.merge}
    removed: set[int] = set()
    added: list[tuple[str, Value]] = []
    edits, dropped = [], []
    for key, value in updates.items():
        pair = own.get(key)
        at_default = key in item.defaults and same_value(item.defaults[key], value)
        if pair is None:
            added.append((key, value))  # not set by the entry, not the default
            continue
        comment = _trailing(text, pair)
        if at_default:
            removed.add(id(pair))
        else:
            edits.append(_replacement(text, pair, value, flow=item.flow))
            if comment is not None:  # the replacement ends where the line does
                edit = edits[-1]
                edits[-1] = Edit(edit.start, comment.end(), edit.new)
        if comment is not None:
            dropped.append((key, comment.group(1)))
    kept = [p for p in item.pairs if id(p) not in removed]
    edits += [_removal(text, item, run) for run in _runs(item.pairs, removed)]
    if added:
        edits.append(_insertion(text, item, kept, added, styles))
    end = None if item.flow else content_end(text, kept[-1].value_end)
    return EntryEdits(edits, end, dropped)


def _trailing(text: str, pair: Pair) -> re.Match[str] | None:
    """The comment that ends the line of ``pair``'s value, right after it: None for
    a value that spans lines (a collection, a block scalar)."""
    found = _TRAILING.match(text, pair.value_end)
    if found is None or found.end() != line_end(text, pair.value_end):
        return None
    if text.count("\n", pair.key_end, pair.value_end):
        return None
    return found


def _replacement(text: str, pair: Pair, value: Value, *, flow: bool) -> Edit:
    written = pair.written
    like = written if written and written.style in (None, "'", '"') else None
    rendered = render_scalar(value, flow=flow, like=like)
    start, end = pair.value_start, pair.value_end
    if pair.value_alias:
        return Edit(start, end, rendered)
    anchor = ""
    while text[start : start + 1] in (
        "&",
        "!",
    ):  # node properties: keep an anchor, drop a tag
        m = _PROPERTY.match(text, start)
        assert m is not None
        if text[start] == "&":
            anchor = m.group().rstrip() + " "
        start = m.end()
    if (
        like is None
    ):  # a collection or block scalar becomes a plain scalar on the key's line
        end = max(content_end(text, end), start)
        colon = text.index(":", pair.key_end)
        if text.count("\n", colon, start):
            return Edit(colon + 1, end, " " + anchor + rendered)
    if start == end:  # an empty (null) value: "KEY:" -> "KEY: value"
        return Edit(start, end, " " + anchor + rendered)
    return Edit(pair.value_start, end, anchor + rendered)


def _runs(pairs: Sequence[Pair], removed: set[int]) -> Iterator[list[int]]:
    run: list[int] = []
    for i, pair in enumerate(pairs):
        if id(pair) in removed:
            run.append(i)
        elif run:
            yield run
            run = []
    if run:
        yield run


def _removal(text: str, item: Item, run: list[int]) -> Edit:
    pairs = item.pairs
    first, last = pairs[run[0]], pairs[run[-1]]
    after = pairs[run[-1] + 1] if run[-1] + 1 < len(pairs) else None
    key_start = first.key_start
    if item.flow:
        if after is not None:
            return Edit(key_start, after.key_start, "")
        if run[0] > 0:
            return Edit(pairs[run[0] - 1].value_end, last.value_end, "")
        return Edit(key_start, last.value_end, "")
    if first_on_line(text, key_start):
        start, end = (
            line_start(text, key_start),
            next_line(text, content_end(text, last.value_end)),
        )
        if end == len(text) and not text.endswith("\n"):  # keep "no final newline"
            start = max(
                0, start - (2 if text[max(0, start - 2) : start] == "\r\n" else 1)
            )
        return Edit(start, end, "")
    if (
        after is not None
    ):  # the run starts on the "- " line: pull the next key up onto it
        return Edit(key_start, after.key_start, "")
    return Edit(key_start, content_end(text, last.value_end), "{}")


def _insertion(
    text: str,
    item: Item,
    kept: Sequence[Pair],
    added: Sequence[tuple[str, Value]],
    styles: Mapping[str, Scalar],
) -> Edit:
    if item.flow:
        parts = [_pair(k, v, flow=True, styles=styles) for k, v in added]
        if kept:
            return Edit(
                kept[-1].value_end, kept[-1].value_end, "".join(", " + p for p in parts)
            )
        return Edit(item.start + 1, item.start + 1, ", ".join(parts))
    assert kept, "a block entry keeps its merge key"
    at = line_end(text, content_end(text, kept[-1].value_end))
    indent = " " * column(text, item.pairs[0].key_start)
    lines = [
        eol(text, at) + indent + _pair(k, v, flow=False, styles=styles)
        for k, v in added
    ]
    return Edit(at, at, "".join(lines))


def _pair(key: str, value: Value, *, flow: bool, styles: Mapping[str, Scalar]) -> str:
    rendered = render_scalar(value, flow=flow, like=styles.get(key))
    return f"{render_key(key, flow=flow)}: {rendered}"
