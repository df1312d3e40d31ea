"""Where things are in a manifest's text: the ``params`` entries, their key/value pairs
and the character offsets ``kprofile.manifest.update`` edits at, with each entry's
merged values.

``reader`` reads all of it in one pass over libyaml's events. Where it cannot vouch for
the values (YAML it does not construct itself, or input ``parse_manifest`` might
refuse), ``parse_manifest`` is asked: it words any error as tuning-codegen does, and
otherwise its values are used.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from kprofile.manifest.reader import Invalid, Read, read
from kprofile.manifest.records import (
    MERGE_TAG,
    MapRecord,
    Node,
    Pair,
    Scalar,
    SeqRecord,
    mapping_values,
)
from kprofile.manifest.text_edit import content_end
from tuning_codegen.errors import InputError, one_line
from tuning_codegen.gcpause import paused_gc
from tuning_codegen.manifest import compose_yaml, construct_yaml, parse_manifest
from tuning_codegen.values import entry_key
from tuning_codegen.yamlload import c_may_differ

_MAP_TAG = "tag:yaml.org,2002:map"


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


@functools.lru_cache(maxsize=1)
def read_layout(text: str, path: str) -> Layout:
    """The layout of the manifest ``text``, or the InputError ``parse_manifest``
    raises. The last one is kept: ``kprofile --update`` asks twice for the same text
    (for its default pivots, then for the update). Treat it as read-only."""
    with paused_gc():
        found, params = _read(text, path, positions=True)
        merged, defaults, document = _values(found, params, text, path, defaults=True)
        items = tuple(
            _item(text, i, node, merged[i], defaults[i])
            for i, node in enumerate(params.items)
        )
    return Layout(
        params.start, params.column, params.flow, items, found.styles, document
    )


def read_entries(
    text: str, path: str
) -> tuple[Sequence[Mapping[str, Any]], Mapping[str, Any]]:
    """Only the values: each entry's merged values, and the whole document."""
    with paused_gc():
        found, params = _read(text, path, positions=False)
        merged, _, document = _values(found, params, text, path, defaults=False)
    return merged, document


def shared_merge(items: Sequence[Item]) -> tuple[str | None, Mapping[str, Any]]:
    """The merge key every entry writes (``*defaults``) and what it gives, if they all
    agree."""
    texts = {item.merge_text for item in items}
    if len(texts) == 1 and None not in texts:
        return items[0].merge_text, items[0].defaults
    return None, {}


def _read(text: str, path: str, *, positions: bool) -> tuple[Read, SeqRecord]:
    try:
        found = read(text, positions=positions)
        return found, _params(found.root)
    except (yaml.YAMLError, Invalid) as exc:
        parse_manifest(text, path)  # raises the error tuning-codegen reports
        why = (  # tuning-codegen reads it; kprofile cannot say where things are
            "its 'params' list comes through a top-level merge key (<<); write "
            "'params:' in the file itself"
            if isinstance(exc, Invalid)
            else "libyaml, which finds where its entries stand, refuses it "
            f"({one_line(str(exc))}); yaml.safe_load reads it"
        )
        raise InputError(path, f"kprofile cannot edit this manifest: {why}") from None


def _params(root: Node) -> SeqRecord:
    """The ``params`` sequence of mappings, as ``parse_manifest`` finds it."""
    if not isinstance(root.record, MapRecord):
        raise Invalid("not a mapping")
    found = [p for p in root.record.pairs if p.key == "params" and not p.merge]
    if not found or not isinstance(found[0].record, SeqRecord):
        raise Invalid("no params list")
    params = found[0].record
    if not all(isinstance(node.record, MapRecord) for node in params.items):
        raise Invalid("an entry is not a mapping")
    return params


def _item(
    text: str, index: int, node: Node, merged: Mapping[str, Any], defaults: Any
) -> Item:
    record = node.record
    assert isinstance(record, MapRecord)  # _params checked it
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


def _values(
    found: Read, params: SeqRecord, text: str, path: str, *, defaults: bool
) -> tuple[list[Any], list[Any], Mapping[str, Any]]:
    """Each entry's merged values and merge-key defaults, and the document."""
    records = [node.record for node in params.items]
    values = mapping_values(records) if found.values_ok else None
    if (
        values is not None
        and not found.doubtful
        and not c_may_differ(text)  # libyaml may read it otherwise: ask safe_load's
        and all(type(key) is str for entry in values for key in entry)  # as strings
        and _distinct(values)
    ):
        root = found.root.record
        assert isinstance(root, MapRecord) and root.value is not None
        shares = [r.defaults for r in records if isinstance(r, MapRecord)]
        return values, shares, root.value
    manifest = parse_manifest(text, path)  # raises what tuning-codegen reports
    merged = [dict(entry.values) for entry in manifest.entries]
    shares = _defaults_by_entry(text, path) if defaults else []
    return merged, shares, manifest.document


def _distinct(entries: Sequence[Mapping[Any, Any]]) -> bool:
    """No two entries could be equal (``parse_manifest`` decides those that could)."""
    seen: set[Hashable] = set()
    for values in entries:
        key = entry_key(values)
        if key in seen:
            return False
        seen.add(key)
    return True


def _defaults_by_entry(text: str, path: str) -> list[dict[str, Any]]:
    """For each entry, the values its merge key alone contributes (PyYAML semantics)."""
    root = compose_yaml(text, path)  # a graph of its own: constructing rewrites nodes
    assert isinstance(root, yaml.MappingNode)
    params = next(
        v for k, v in root.value if k.value == "params" and k.tag != MERGE_TAG
    )
    out = []
    for entry in params.value:
        merges = [(k, v) for k, v in entry.value if k.tag == MERGE_TAG]
        node = yaml.MappingNode(_MAP_TAG, merges)
        out.append(dict(construct_yaml(node, path)) if merges else {})
    return out
