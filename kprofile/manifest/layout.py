"""Where things are in a manifest's text: the ``params`` entries, their key/value pairs
and the character offsets ``kprofile.manifest.update`` edits at.

PyYAML's pure-Python loader gives every node exact start and end offsets; an alias
(``*defaults``) is remembered by where its token stood, since its node is the anchor's.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from hooks.manifest import compose_yaml, construct_yaml
from kprofile.manifest.scalar import STR_TAG
from kprofile.manifest.text_edit import content_end

_MERGE_TAG = "tag:yaml.org,2002:merge"
_MAP_TAG = "tag:yaml.org,2002:map"


@dataclass(frozen=True)
class Pair:
    key: str | None  # None for the merge key and for keys that are not strings
    merge: bool
    key_node: yaml.Node
    value_node: yaml.Node
    value_start: int
    value_end: int  # exact end of the value's text (an alias: the alias token)
    value_alias: bool


@dataclass(frozen=True)
class Item:
    index: int
    node: yaml.Node
    flow: bool
    start: int
    end: int  # end of the entry's last content (no trailing blank lines or comments)
    pairs: tuple[Pair, ...]
    merged: Mapping[str, Any]
    defaults: Mapping[str, Any]  # what the merge key alone gives
    merge_text: str | None  # e.g. "*defaults"


@dataclass(frozen=True)
class Layout:
    node: yaml.SequenceNode
    flow: bool
    items: tuple[Item, ...]
    styles: Mapping[
        str, yaml.ScalarNode
    ]  # per key, the first scalar written for it: new values look alike


class _MarkLoader(yaml.SafeLoader):
    """The pure-Python loader (character offsets), remembering where each alias stood."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.alias_spans: dict[tuple[int, Any], tuple[int, int]] = {}

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            where = (id(parent), id(index) if isinstance(index, yaml.Node) else index)
            self.alias_spans[where] = (event.start_mark.index, event.end_mark.index)
        return super().compose_node(parent, index)


def read_layout(text: str, path: str, merged: Sequence[Mapping[str, Any]]) -> Layout:
    """The layout of a manifest ``parse_manifest`` accepted; ``merged`` are its entries' values."""
    loader = _MarkLoader(text)
    try:
        root = loader.get_single_node()
    finally:
        loader.dispose()
    params = _find(root, "params")
    assert isinstance(params, yaml.SequenceNode)  # parse_manifest checked the shape
    defaults = _defaults_by_entry(text, path)
    items = []
    for i, node in enumerate(params.value):
        span = loader.alias_spans.get((id(params), i))
        start = node.start_mark.index if span is None else span[0]
        pairs = tuple(_pairs(node, loader.alias_spans))
        flow = bool(node.flow_style)
        end = node.end_mark.index if flow else content_end(text, pairs[-1].value_end)
        if span is not None:
            end = span[1]
        merge = next((p for p in pairs if p.merge), None)
        merge_text = (
            None if merge is None else text[merge.value_start : merge.value_end]
        )
        items.append(
            Item(i, node, flow, start, end, pairs, merged[i], defaults[i], merge_text)
        )
    return Layout(params, bool(params.flow_style), tuple(items), _styles(root))


def shared_merge(items: Sequence[Item]) -> tuple[str | None, Mapping[str, Any]]:
    """The merge key every entry writes (``*defaults``) and what it gives, if they all agree."""
    texts = {item.merge_text for item in items}
    if len(texts) == 1 and None not in texts:
        return items[0].merge_text, items[0].defaults
    return None, {}


def _styles(root: yaml.Node) -> dict[str, yaml.ScalarNode]:
    styles: dict[str, yaml.ScalarNode] = {}
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen or isinstance(node, yaml.ScalarNode):
            continue
        seen.add(id(node))
        children = (
            node.value
            if isinstance(node, yaml.SequenceNode)
            else [v for _, v in node.value]
        )
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if (
                    key.tag == STR_TAG
                    and isinstance(value, yaml.ScalarNode)
                    and value.style in (None, "'", '"')
                ):
                    styles.setdefault(key.value, value)
        stack.extend(reversed(children))
    return styles


def _find(root: yaml.Node, name: str) -> yaml.Node | None:
    for key, value in root.value:
        if (
            isinstance(key, yaml.ScalarNode)
            and key.tag != _MERGE_TAG
            and key.value == name
        ):
            return value
    return None


def _pairs(
    node: yaml.MappingNode, alias_spans: Mapping[tuple[int, Any], tuple[int, int]]
) -> Iterator[Pair]:
    for key, value in node.value:
        span = alias_spans.get((id(node), id(key)))
        start, end = (
            (value.start_mark.index, value.end_mark.index) if span is None else span
        )
        name = (
            key.value
            if isinstance(key, yaml.ScalarNode) and key.tag == STR_TAG
            else None
        )
        yield Pair(
            name, key.tag == _MERGE_TAG, key, value, start, end, span is not None
        )


def _defaults_by_entry(text: str, path: str) -> list[dict[str, Any]]:
    """For each entry, the values its merge key alone contributes (PyYAML semantics)."""
    root = compose_yaml(
        text, path
    )  # a second graph: constructing merges rewrites nodes
    assert root is not None
    params = _find(root, "params")
    assert params is not None
    out = []
    for entry in params.value:
        merges = [(k, v) for k, v in entry.value if k.tag == _MERGE_TAG]
        out.append(
            dict(construct_yaml(yaml.MappingNode(_MAP_TAG, merges), path))
            if merges
            else {}
        )
    return out
