"""What the one-pass reader (``yamlevents``) records: each scalar as written, mappings
and sequences with their offsets, values and expanded sizes, key/value pairs; and what
a merge key gives.

Scalars are constructed by ``yamlload.Constructor``, as ``parse_manifest`` constructs
them (an integer too long to write as text fails there as here).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import yaml

from tuning_codegen.yamlload import Constructor

STR_TAG = "tag:yaml.org,2002:str"
MERGE_TAG = "tag:yaml.org,2002:merge"
# the parser of the one pass: libyaml when there, else pure Python
LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class Scalar(NamedTuple):
    tag: str
    value: str
    style: str | None  # None when plain, as in PyYAML's nodes


class Node(NamedTuple):
    start: int
    end: int  # an alias: its own token; ``scalar``/``record`` are the anchor's
    alias: bool
    scalar: Scalar | None  # None for a collection
    record: MapRecord | SeqRecord | None


class Pair(NamedTuple):
    key: str | None  # a string key; None for the merge key and keys of other types
    merge: bool
    key_start: int
    key_end: int
    value_start: int
    value_end: int  # an alias: the end of the alias token
    value_alias: bool
    written: Scalar | None  # the value as written here, if a scalar (not an alias)
    record: MapRecord | SeqRecord | None  # the value, if a collection


@dataclass(eq=False, slots=True)
class MapRecord:
    start: int
    line: int  # 0-based
    flow: bool
    end: int = -1  # known at the mapping's end
    pairs: list[Pair] = field(default_factory=list)
    value: dict[Any, Any] | None = None  # None while open, or when values are off
    defaults: dict[Any, Any] = field(default_factory=dict)  # the merge keys' share
    overrides: bool = False  # it merges a key and sets it too
    size: int = 0  # nodes once its aliases are expanded (``yamlbounds``), at its end
    depth: int = 0  # nesting, aliases expanded (at most one more than the bound's)


@dataclass(eq=False, slots=True)
class SeqRecord:
    start: int
    column: int
    flow: bool
    items: list[Node] = field(default_factory=list)
    value: list[Any] | None = None
    size: int = 0
    depth: int = 0


FAILED: Any = object()  # a scalar the loader cannot construct
_NAN = float("nan")  # one object for every NaN, so that equal entries compare equal


class Scalars:
    """Each distinct scalar once: as an event spells it (text, implicit, tag, style),
    with its tag resolved, and the value the loader constructs for it."""

    def __init__(self, loader: yaml.SafeLoader) -> None:
        self.loader = loader
        self.constructor = Constructor()
        self.spelled: dict[tuple[str, Any, str | None, str], Scalar] = {}
        self.values: dict[Scalar, Any] = {}

    def new(self, spelling: tuple[str, Any, str | None, str]) -> Scalar:
        text, implicit, tag, style = spelling
        if tag is None or tag == "!":
            tag = self.loader.resolve(yaml.ScalarNode, text, implicit)
        scalar = self.spelled[spelling] = Scalar(tag, text, style or None)
        return scalar

    def value(self, scalar: Scalar) -> Any:
        """``FAILED`` if the loader cannot construct it: parse_manifest says why."""
        try:
            return self.values[scalar]
        except KeyError:
            pass
        try:
            node = yaml.ScalarNode(*scalar[:2])
            value = self.constructor.construct_object(node)
        except Exception:  # whatever it is, parse_manifest reports it
            return FAILED
        if isinstance(value, float) and math.isnan(value):
            value = _NAN
        self.values[scalar] = value
        return value


def merged_value(merged: MapRecord | SeqRecord | None) -> dict[Any, Any] | None:
    """What a merge key with this value gives, where every PyYAML agrees: its mappings
    have distinct keys and none overrides a key it merges itself (PyYAML 6.0.4 then
    keeps the merged value of a key whose text object is shared, e.g. a one-letter
    key, and the override of others). Else None."""
    if isinstance(merged, SeqRecord):
        sources: list[Any] = [item.record for item in merged.items]
        if _list_merge_reversed():
            sources.reverse()
    else:
        sources = [merged]
    values = mapping_values(sources)
    if values is None or any(source.overrides for source in sources):
        return None
    if len(values) == 1:
        return values[0]  # shared with the anchor: read, never written
    out: dict[Any, Any] = {}
    for value in values:
        out.update(value)
    return out if len(out) == sum(map(len, values)) else None


@functools.cache
def _list_merge_reversed() -> bool:
    """Whether this PyYAML merges ``[*a, *b]`` as b's keys, then a's (older releases
    did; 6.0.4 takes a's first). With distinct keys only the order differs."""
    text = "a: &a {A: 1}\nb: &b {B: 2}\nc: {<<: [*a, *b]}\n"
    return list(yaml.load(text, Loader=LOADER)["c"]) == ["B", "A"]


def mapping_values(records: list[Any]) -> list[dict[Any, Any]] | None:
    """The values of ``records`` if all are mappings read, else None."""
    values = []
    for record in records:
        if not isinstance(record, MapRecord) or record.value is None:
            return None
        values.append(record.value)
    return values


class Invalid(Exception):
    """Input ``parse_manifest`` refuses too; it words the error."""


@dataclass(frozen=True)
class Read:
    root: Node
    styles: dict[str, Scalar]  # per string key, the first scalar written for it
    values_ok: bool
    doubtful: bool

    @property
    def size(self) -> int:
        """The document's nodes, aliases expanded (``yamlbounds.check_graph``'s)."""
        return 1 if self.root.record is None else self.root.record.size

    @property
    def depth(self) -> int:
        return 1 if self.root.record is None else self.root.record.depth


Key = tuple[int, int, bool, Scalar | None, "MapRecord | SeqRecord | None"]


class Frame:
    """A collection being read (``items`` is None for a mapping)."""

    __slots__ = (
        "record", "number", "key", "pairs", "items", "own", "merges", "count", "size",
        "depth", "keep",
    )  # fmt: skip

    def __init__(
        self, record: MapRecord | SeqRecord, number: int, *, keep: bool
    ) -> None:
        self.record = record
        self.keep = keep  # its pairs are kept (with positions; always for the root)
        self.number = number  # mappings in the order they start
        self.key: Key | None = None  # a mapping's key waiting for its value
        self.pairs = record.pairs if isinstance(record, MapRecord) else []
        self.items = record.items if isinstance(record, SeqRecord) else None
        self.own: dict[Any, Any] = {}
        self.merges: list[MapRecord | SeqRecord | None] = []
        self.count = 0  # pairs read
        self.size = 1  # nodes so far, aliases expanded: itself and its children's
        self.depth = 1  # its deepest child's depth (a scalar: 1)
