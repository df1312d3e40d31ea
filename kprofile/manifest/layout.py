"""Where things are in a manifest's text, as the editor sees them: the ``params``
entries, their key/value pairs and the character offsets the edits are made at, with
each entry's merged values.

Read by the code generator's reader (``tuning_codegen.positions``), which reads
manifests for both tools: its values are what tuning-codegen reads, and any problem
is worded as tuning-codegen words it. ``read_layout`` is called once per update; the
layout it returns is read-only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kprofile.manifest.splice import content_end
from tuning_codegen.errors import InputError
from tuning_codegen.positions import Unlocatable, read_positioned, read_values
from tuning_codegen.yamlrecords import MapRecord, Node, Pair, Scalar

__all__ = ["Item", "Layout", "Pair", "Scalar", "read_entries", "read_layout"]


@dataclass(frozen=True)
class Item:
    index: int
    line: int  # 1-based, of the entry's mapping (an alias: of its anchor)
    flow: bool
    start: int
    end: int  # end of the entry's last content (no trailing blank lines or comments)
    pairs: Sequence[Pair]
    merged: Mapping[str, Any]
    defaults: Mapping[str, Any]  # what the merge key alone gives
    merge_text: str | None  # e.g. "*defaults"


@dataclass(frozen=True)
class Layout:
    start: int  # of the params sequence
    column: int
    flow: bool
    items: tuple[Item, ...]
    styles: Mapping[str, Scalar]  # per key, the first scalar written: new ones alike
    document: Mapping[str, Any]  # the whole manifest's values


def read_layout(text: str, path: str) -> Layout:
    """The layout of the manifest ``text``, or the InputError tuning-codegen raises
    for it (or says why kprofile cannot edit it)."""
    try:
        found = read_positioned(text, path)
    except Unlocatable as exc:
        raise InputError(path, f"kprofile cannot edit this manifest: {exc}") from None
    params = found.params
    items = tuple(
        _item(text, i, node, found.entries[i], found.defaults[i])
        for i, node in enumerate(params.items)
    )
    return Layout(
        params.start, params.column, params.flow, items, found.styles, found.document
    )


def read_entries(
    text: str, path: str
) -> tuple[Sequence[Mapping[str, Any]], Mapping[str, Any]]:
    """Only the values: each entry's merged values, and the whole document."""
    try:
        return read_values(text, path)
    except Unlocatable as exc:
        raise InputError(path, f"kprofile cannot edit this manifest: {exc}") from None


def shared_merge(items: Sequence[Item]) -> tuple[str | None, Mapping[str, Any]]:
    """The merge key every entry writes (``*defaults``) and what it gives, if they all
    agree."""
    texts = {item.merge_text for item in items}
    if len(texts) == 1 and None not in texts:
        return items[0].merge_text, items[0].defaults
    return None, {}


def _item(
    text: str, index: int, node: Node, merged: Mapping[str, Any], defaults: Any
) -> Item:
    record = node.record
    assert isinstance(record, MapRecord)  # the reader checked it
    pairs = record.pairs
    if node.alias:
        end = node.end
    elif record.flow:
        end = record.end
    else:
        end = content_end(text, pairs[-1].value_end)
    merge = next((p for p in pairs if p.merge), None)
    merge_text = None if merge is None else text[merge.value_start : merge.value_end]
    return Item(
        index,
        record.line + 1,
        record.flow,
        node.start,
        end,
        pairs,
        merged,
        defaults,
        merge_text,
    )
