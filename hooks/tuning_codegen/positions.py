"""A manifest read with where everything stands in its text: for an editor that changes
a few entries byte for byte (``kprofile --update``) and must read what tuning-codegen
reads.

One pass over libyaml's events (``yamlevents``) gives the values and every mapping's,
key's and value's offsets. Where that pass cannot vouch for the values (YAML it does
not construct itself, input ``parse_manifest`` might refuse, a text libyaml may read
otherwise than ``yaml.safe_load``, a document near the bounds of ``yamlbounds``),
``parse_manifest`` is asked: it raises the error tuning-codegen reports, and otherwise
its values are used with the pass's offsets. A document the pass cannot locate at all
(libyaml refuses it, or ``params`` comes through a top-level merge key) raises
``Unlocatable`` once ``parse_manifest`` has had its say.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, NamedTuple

import yaml

from tuning_codegen.errors import one_line
from tuning_codegen.gcpause import paused_gc
from tuning_codegen.manifest import compose_yaml, construct_yaml, parse_manifest
from tuning_codegen.values import entry_key
from tuning_codegen.yamlbounds import MAX_DEPTH, check_characters, node_budget
from tuning_codegen.yamlevents import read
from tuning_codegen.yamlload import c_may_differ
from tuning_codegen.yamlrecords import (
    MERGE_TAG,
    Invalid,
    MapRecord,
    Node,
    Read,
    Scalar,
    SeqRecord,
    mapping_values,
)

_MAP_TAG = "tag:yaml.org,2002:map"

Values = Mapping[str, Any]


class Unlocatable(Exception):
    """tuning-codegen reads the manifest, but the one pass cannot say where its entries
    stand; ``str()`` says why."""


class Positioned(NamedTuple):
    root: Node
    params: SeqRecord  # its items are the entries, each a MapRecord
    styles: Mapping[str, Scalar]  # per key, the first scalar written for it
    entries: Sequence[Values]  # each entry's values, merge keys applied
    defaults: Sequence[Values]  # what each entry's merge key alone gives
    document: Mapping[str, Any]  # the whole manifest's values


def read_positioned(text: str, path: str) -> Positioned:
    """The manifest ``text`` with its offsets and values, as tuning-codegen reads it
    (module docstring); read-only."""
    with paused_gc():
        found, params = _read(text, path, positions=True)
        merged, defaults, document = _values(found, params, text, path, defaults=True)
    return Positioned(found.root, params, found.styles, merged, defaults, document)


def read_values(text: str, path: str) -> tuple[Sequence[Values], Mapping[str, Any]]:
    """Only the values: each entry's merged values, and the whole document."""
    with paused_gc():
        found, params = _read(text, path, positions=False)
        merged, _, document = _values(found, params, text, path, defaults=False)
    return merged, document


def _read(text: str, path: str, *, positions: bool) -> tuple[Read, SeqRecord]:
    check_characters(text, path)  # parse_manifest's first check, and its wording
    try:
        found = read(text, positions=positions)
        return found, _params(found.root)
    except (yaml.YAMLError, Invalid) as exc:
        parse_manifest(text, path)  # raises the error tuning-codegen reports
        raise Unlocatable(
            "its 'params' list comes through a top-level merge key (<<); write "
            "'params:' in the file itself"
            if isinstance(exc, Invalid)
            else "libyaml, which finds where its entries stand, refuses it "
            f"({one_line(str(exc))}); yaml.safe_load reads it"
        ) from None


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


def _values(
    found: Read, params: SeqRecord, text: str, path: str, *, defaults: bool
) -> tuple[list[Any], list[Any], Mapping[str, Any]]:
    """Each entry's merged values and merge-key defaults, and the document."""
    records = [node.record for node in params.items]
    values = mapping_values(records) if found.values_ok else None
    if (
        values is not None
        and not found.doubtful
        and found.size <= node_budget(text)  # far from the bounds: same verdict
        and found.depth < MAX_DEPTH
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
    """No two entries could be equal (``parse_manifest`` decides those that could).
    Their items as sets first: two entries that are the same (``values.entry_key``)
    have equal item sets (the pass makes every NaN one object), so distinct sets
    settle it at C speed; a list or mapping value, or equal sets, need the keys."""
    try:
        if len({frozenset(values.items()) for values in entries}) == len(entries):
            return True
    except TypeError:  # an unhashable value: a list or a mapping
        pass
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
