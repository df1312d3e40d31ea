"""Upsert chosen configs into a hand-curated manifest, keeping every other byte.

Text in, text out. An entry of ``params`` matches a selection when its merged values
(merge keys applied) equal the selection on every pivot; it is changed in place. A new
shape is appended at the end of ``params``. Keys equal to the merged defaults are not
written; keys the selection does not mention are kept.

Why text edits rather than a round-trip dump: a round-trip YAML library (ruamel.yaml)
re-emits the whole document, and on realistic tables that moves bytes the user wrote:
one indentation for all sequences, aligned values and flow spacing normalised, a final
newline added, and a key appended to an entry lands *after* the comment that introduces
the next entry (comments hang off the previous key). So the document is parsed only
to learn where things are (libyaml's events carry exact character offsets, and PyYAML
is what tuning-codegen reads, so values resolve the same way), and the update is a few
targeted edits: a scalar replaced in place (keeping its quoting and boolean spelling),
an override removed, a key line added after an entry's last key, an entry added after
the last one. Everything else is the input's own text: comments, blank lines, anchors,
key order, indentation, flow style, line endings, a missing final newline (a comment
at the end of a line whose value changes goes with the old value: ``keys``). The
result is parsed again and compared with what was intended before it is returned.

This module decides what happens to each selection, finding entries by an index of
their pivot values (``outcome`` holds its records); ``layout`` finds where the entries
are (read by ``tuning_codegen.positions``), ``keys`` spells the edits of a changed
entry, ``neighbour`` writes the new entries, ``splice`` applies the edits, ``scalar``
writes the values and ``verify`` reads the result back.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from kprofile.core.values import shape_label
from kprofile.manifest.keys import entry_edits
from kprofile.manifest.layout import (
    Item,
    Layout,
    read_layout,
    shared_merge,
)
from kprofile.manifest.neighbour import append_edit
from kprofile.manifest.outcome import Dropped, ShapeChange, UpdateResult
from kprofile.manifest.scalar import Value, normalize
from kprofile.manifest.splice import Edit, apply_edits
from kprofile.manifest.verify import check_update
from tuning_codegen.errors import InputError
from tuning_codegen.gcpause import paused_gc
from tuning_codegen.values import same_value, value_key


def upsert(
    text: str,
    selections: Sequence[Mapping[str, Any]],
    *,
    pivots: Sequence[str],
    path: str,
    layout: Layout | None = None,
) -> UpdateResult:
    """Put each selection (one chosen config per shape) into the manifest ``text``;
    ``layout``: its layout, if the caller read it already (``read_layout``)."""
    pivots = tuple(pivots)
    wanted = _check_selections(selections, pivots, path)
    with paused_gc():
        layout = read_layout(text, path) if layout is None else layout
        changes = _changes(layout, wanted, pivots, path)
        edits, dropped = _edits(text, layout, wanted, changes)
        new_text = apply_edits(text, edits)
        if new_text != text:
            check_update(new_text, path, layout, _expected(layout, wanted, changes))
    return UpdateResult(new_text, tuple(changes), tuple(dropped))


def plan(
    text: str,
    selections: Sequence[Mapping[str, Any]],
    *,
    pivots: Sequence[str],
    path: str,
    layout: Layout,
) -> tuple[ShapeChange, ...]:
    """What ``upsert`` would do with each selection (its entry, its status), without
    doing it."""
    pivots = tuple(pivots)
    wanted = _check_selections(selections, pivots, path)
    with paused_gc():
        return tuple(_changes(layout, wanted, pivots, path))


def _changes(
    layout: Layout,
    wanted: Sequence[Mapping[str, Value]],
    pivots: tuple[str, ...],
    path: str,
) -> list[ShapeChange]:
    index = _index(layout.items, pivots)
    changes: list[ShapeChange] = []
    added = 0
    for sel in wanted:
        change = _change(layout, index, sel, pivots, path, added_before=added)
        added += change.status == "added"
        changes.append(change)
    return changes


# ---------------------------------------------------------------------------------
# Selections


def _check_selections(
    selections: Sequence[Mapping[str, Any]], pivots: tuple[str, ...], path: str
) -> tuple[dict[str, Value], ...]:
    if not pivots:
        raise InputError(
            path,
            "no pivot columns to match entries by (give them with -p, e.g. -p M,N,K)",
        )
    seen: dict[tuple[Any, ...], int] = {}
    out = []
    for number, selection in enumerate(selections, 1):
        sel = {str(k): normalize(v, str(k), path) for k, v in selection.items()}
        missing = [p for p in pivots if p not in sel]
        if missing:
            raise InputError(
                path,
                f"selection {number} ({_label(sel, pivots)}) has no value for pivot "
                f"{', '.join(missing)}",
            )
        shape = tuple(value_key(sel[p]) for p in pivots)
        if shape in seen:
            raise InputError(
                path,
                f"configs {seen[shape]} and {number} to put in are both for shape "
                f"{_label(sel, pivots)}; give one per shape (--combine "
                "median|min|mean joins repeated runs)",
            )
        seen[shape] = number
        out.append(sel)
    return tuple(out)


def _label(sel: Mapping[str, Any], pivots: tuple[str, ...]) -> str:
    return shape_label({p: sel[p] for p in pivots if p in sel}) or "no pivots"


# ---------------------------------------------------------------------------------
# One selection: which entry it is, what changes, and the edits


Shape = tuple[Hashable, ...]


def _index(items: Sequence[Item], pivots: tuple[str, ...]) -> dict[Shape, list[Item]]:
    """Entries by the ``value_key`` of their pivots (256 and 256.0 alike, True and 1
    apart), in params order; an entry without every pivot matches no selection."""
    index: dict[Shape, list[Item]] = {}
    for item in items:
        merged = item.merged
        if all(p in merged for p in pivots):
            shape = tuple(value_key(merged[p]) for p in pivots)
            index.setdefault(shape, []).append(item)
    return index


def _change(
    layout: Layout,
    index: Mapping[Shape, Sequence[Item]],
    sel: Mapping[str, Value],
    pivots: tuple[str, ...],
    path: str,
    *,
    added_before: int,
) -> ShapeChange:
    """What ``sel`` does to the manifest (``index``: see ``_index``);
    ``added_before`` selections were new shapes."""
    shape = {p: sel[p] for p in pivots}
    matches = index.get(tuple(value_key(sel[p]) for p in pivots), [])
    if len(matches) > 1:
        a, b = matches[0], matches[1]
        raise InputError(
            path,
            f"params[{a.index}] and params[{b.index}] both match {shape_label(shape)}; "
            "add a pivot that tells them apart",
            line=b.line,
        )
    if not matches:
        return ShapeChange(
            shape, "added", len(layout.items) + added_before, tuple(sel), {}, dict(sel)
        )
    item = matches[0]
    changed = tuple(
        k
        for k, v in sel.items()
        if not (k in item.merged and same_value(item.merged[k], v))
    )
    if not changed:
        return ShapeChange(shape, "unchanged", item.index, ())
    before = {k: item.merged[k] for k in changed if k in item.merged}
    return ShapeChange(
        shape, "changed", item.index, changed, before, {k: sel[k] for k in changed}
    )


def _edits(
    text: str,
    layout: Layout,
    wanted: Sequence[Mapping[str, Value]],
    changes: Sequence[ShapeChange],
) -> tuple[list[Edit], list[Dropped]]:
    edits: list[Edit] = []
    dropped: list[Dropped] = []
    ends: dict[int, int] = {}  # edited block entry -> end of its last kept key
    for change in changes:
        if change.status == "changed":
            item = layout.items[change.index]
            made = entry_edits(text, item, change.after, layout.styles)
            edits += made.edits
            dropped += [Dropped(item.index, k, c) for k, c in made.dropped]
            if made.end is not None:
                ends[item.index] = made.end
    appended = [sel for sel, change in zip(wanted, changes) if change.status == "added"]
    if appended:
        edits.append(append_edit(text, layout, appended, ends))
    return edits, dropped


# ---------------------------------------------------------------------------------
# What the result must read back as


def _expected(
    layout: Layout,
    wanted: Sequence[Mapping[str, Value]],
    changes: Sequence[ShapeChange],
) -> list[Mapping[str, Any]]:
    """Every entry's merged values once the selections are in."""
    expected: list[Mapping[str, Any]] = [item.merged for item in layout.items]
    _, shared_defaults = shared_merge(layout.items)
    for sel, change in zip(wanted, changes):
        if change.status == "added":
            expected.append({**shared_defaults, **sel})
        else:
            expected[change.index] = {**expected[change.index], **sel}
    return expected
