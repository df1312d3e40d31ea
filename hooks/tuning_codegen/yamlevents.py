"""One pass over a manifest's YAML events: the values PyYAML's safe loader constructs,
and where each mapping, key and value stands in the text.

Composing a node graph and constructing it makes a node and two marks per scalar and
walks the graph twice, and libyaml's composer does not say where an alias stood. Events
have it all in one pass: they come in document order, an alias event has its own
position, and libyaml's marks count characters as ``str`` offsets do (less one for a
leading BOM, which libyaml skips).

Values are PyYAML's: each distinct scalar is constructed once by the constructor that
``tuning_codegen.manifest`` uses, sequences are lists, mappings dicts with merge keys
applied. Anything else (an explicit collection tag, a key that is no scalar, a merge
every PyYAML would not do alike, an alias into an open collection, a failed
construction) turns ``values_ok`` off, and what ``parse_manifest`` could refuse (a key
or an anchor written twice) sets ``doubtful``: the caller then asks
``parse_manifest``, the reference. Each collection's size and depth with its aliases
expanded are counted as it closes, so that the caller can leave a document near the
bounds of ``yamlbounds`` to ``parse_manifest`` too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import yaml

from tuning_codegen.yamlrecords import (
    FAILED,
    LOADER,
    MERGE_TAG,
    STR_TAG,
    Frame,
    Invalid,
    Key,
    MapRecord,
    Node,
    Pair,
    Read,
    Scalar,
    Scalars,
    SeqRecord,
    merged_value,
)

_VALUE_TAG = "tag:yaml.org,2002:value"
_MAP_TAGS = (None, "!", "tag:yaml.org,2002:map")
_SEQ_TAGS = (None, "!", "tag:yaml.org,2002:seq")
_LIKE_STYLES = (None, "'", '"')


def read(text: str, *, positions: bool = True) -> Read:
    """Raises ``yaml.YAMLError`` or ``Invalid`` where ``parse_manifest`` fails too.
    Without ``positions`` only the root mapping keeps its pairs and ``styles`` is empty
    (a quarter faster, for checking values)."""
    loader = LOADER(text)
    offset = 1 if text.startswith("\ufeff") and LOADER is not yaml.SafeLoader else 0
    reader = _Reader(loader, offset, positions=positions)
    try:
        reader.run(loader.get_event)
    finally:
        loader.dispose()
    if reader.root is None:
        raise Invalid("empty document")
    styles = {key: scalar for key, (_, scalar) in reader.styles.items()}
    return Read(reader.root, styles, reader.values_ok, reader.doubtful)


class _Reader:
    def __init__(
        self, loader: yaml.SafeLoader, offset: int, *, positions: bool
    ) -> None:
        self.loader = loader
        self.offset = offset
        self.positions = positions
        self.stack: list[Frame] = []
        self.top: Frame | None = None  # the last of ``stack``
        self.values: list[list[Any]] = []  # a sequence's values, per open sequence
        self.anchors: dict[str, tuple[Scalar | None, MapRecord | SeqRecord | None]] = {}
        self.styles: dict[str, tuple[int, Scalar]] = {}
        self.scalars = Scalars(loader)
        self.spelled, self.constructed = self.scalars.spelled, self.scalars.values
        self.maps = 0
        self.documents = 0
        self.root: Node | None = None
        self.values_ok = True
        self.doubtful = False

    def run(self, get_event: Callable[[], Any]) -> None:
        on_scalar, scalar_event = self._scalar, yaml.ScalarEvent
        event = get_event()
        while event is not None:
            if type(event) is scalar_event:  # most events: the loop is hot
                on_scalar(event)
            else:
                self._other(event)
            event = get_event()

    def _other(self, event: Any) -> None:
        kind = type(event)
        if kind is yaml.AliasEvent:
            self._alias(event)
        elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
            self._start(event, mapping=kind is yaml.MappingStartEvent)
        elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
            self._end(event)
        elif kind is yaml.DocumentStartEvent:
            self.documents += 1
            if self.documents > 1:
                raise Invalid("more than one document")

    def _scalar(self, event: Any) -> None:
        spelling = (event.value, event.implicit, event.tag, event.style)
        scalar = self.spelled.get(spelling) or self.scalars.new(spelling)
        if event.anchor is not None:
            self._anchor(event.anchor, scalar, None)
        start = end = 0
        if self.positions:
            offset = self.offset
            start, end = event.start_mark.index + offset, event.end_mark.index + offset
        frame = self.top
        if frame is None or frame.items is not None:
            self._put(start, end, False, scalar, None)
        elif frame.key is None:  # the usual cases, without a call to _put
            frame.key = (start, end, False, scalar, None)
        else:
            self._pair(frame, frame.key, start, end, False, scalar, None)
            frame.key = None

    def _alias(self, event: Any) -> None:
        target = self.anchors.get(event.anchor)
        if target is None:
            raise Invalid(f"undefined alias {event.anchor!r}")
        if target[1] is not None and not target[1].size:
            self.doubtful = True  # an anchor used inside itself: parse_manifest
        start, end = event.start_mark.index, event.end_mark.index
        self._put(start + self.offset, end + self.offset, True, *target)

    def _start(self, event: Any, *, mapping: bool) -> None:
        mark = event.start_mark
        start, flow = mark.index + self.offset, bool(event.flow_style)
        record: MapRecord | SeqRecord
        if mapping:
            record = MapRecord(start, mark.line, flow)
            self.maps += 1
        else:
            record = SeqRecord(start, mark.column, flow)
            self.values.append([])
        if event.tag not in (_MAP_TAGS if mapping else _SEQ_TAGS):
            self.values_ok = False  # !!set, !!omap, a custom tag: parse_manifest
        if event.anchor is not None:
            self._anchor(event.anchor, None, record)
        self.top = Frame(record, self.maps, keep=self.positions or not self.stack)
        self.stack.append(self.top)

    def _end(self, event: Any) -> None:
        frame = self.stack.pop()
        self.top = self.stack[-1] if self.stack else None
        record = frame.record
        record.size, record.depth = frame.size, frame.depth + 1
        end = event.end_mark.index + self.offset
        if isinstance(record, MapRecord):
            record.end = end
            if self.values_ok:
                self._close_mapping(frame, record)
        else:
            values = self.values.pop()
            record.value = values if self.values_ok else None
        self._put(record.start, end, False, None, record)

    def _put(
        self,
        start: int,
        end: int,
        alias: bool,
        scalar: Scalar | None,
        record: MapRecord | SeqRecord | None,
    ) -> None:
        """A node read: a key, a key's value, an item of a sequence, or the root."""
        frame = self.top
        if frame is None:
            self.root = Node(start, end, alias, scalar, record)
            return
        if frame.items is None:
            if frame.key is None:
                frame.key = (start, end, alias, scalar, record)
            else:
                self._pair(frame, frame.key, start, end, alias, scalar, record)
                frame.key = None
            return
        frame.items.append(Node(start, end, alias, scalar, record))
        if record is None:
            frame.size += 1
        else:
            frame.size += record.size
            frame.depth = max(frame.depth, record.depth)
        if self.values_ok:
            self.values[-1].append(self._value(scalar, record))

    def _pair(
        self,
        frame: Frame,
        key: Key,
        start: int,
        end: int,
        alias: bool,
        scalar: Scalar | None,
        record: MapRecord | SeqRecord | None,
    ) -> None:
        key_start, key_end, key_alias, key_scalar, key_record = key
        if record is None and key_record is None:  # the usual pair: two scalars
            frame.size += 2
        else:
            for part in (key_record, record):
                frame.size += 1 if part is None else part.size
                frame.depth = max(frame.depth, 0 if part is None else part.depth)
        tag = None if key_scalar is None else key_scalar.tag
        merge = tag == MERGE_TAG
        if frame.keep:  # with positions, or the root's pairs ("params")
            name = key_scalar.value if key_scalar and tag == STR_TAG else None
            written = None if alias else scalar
            pair = Pair(
                name, merge, key_start, key_end, start, end, alias, written, record
            )
            frame.pairs.append(pair)
            if name is not None and scalar is not None and scalar.style in _LIKE_STYLES:
                # the first written for the key, as a walk from the root that sees
                # all keys of a mapping, then its values (mappings by their start)
                seen = self.styles.get(name)
                if seen is None or seen[0] > frame.number:
                    self.styles[name] = (frame.number, scalar)
        frame.count += 1
        if key_scalar is None or key_alias:
            self.values_ok = False  # a collection, or an alias, as a key
        elif merge:
            frame.merges.append(record)
        elif self.values_ok:
            constructed = self.constructed  # looked up here: the loop is hot
            try:
                key_value = constructed[key_scalar]
            except KeyError:
                key_value = self._key(key_scalar)
            try:
                frame.own[key_value] = constructed[scalar]  # type: ignore[index]
            except KeyError:
                frame.own[key_value] = self._value(scalar, record)

    def _close_mapping(self, frame: Frame, record: MapRecord) -> None:
        own, merges = frame.own, frame.merges
        if len(own) + len(merges) != frame.count or len(merges) > 1:
            self.doubtful = True  # maybe a key written twice: parse_manifest decides
        if not merges:
            record.value = own
            return
        defaults = merged_value(merges[0])
        if defaults is None:
            self.values_ok = False
            return
        record.defaults = defaults
        record.value = {**defaults, **own}  # own keys last: they win
        record.overrides = len(record.value) < len(defaults) + len(own)

    def _value(
        self, scalar: Scalar | None, record: MapRecord | SeqRecord | None
    ) -> Any:
        if record is not None:
            if record.value is None:
                self.values_ok = False  # an alias into a collection still open
            return record.value
        assert scalar is not None
        value = self.scalars.value(scalar)
        if value is FAILED:
            self.values_ok = False
        return value

    def _key(self, scalar: Scalar) -> Any:
        if scalar.tag == _VALUE_TAG:  # flatten_mapping makes a "=" key a string
            return scalar.value
        return self._value(scalar, None)

    def _anchor(
        self, name: str, scalar: Scalar | None, record: MapRecord | SeqRecord | None
    ) -> None:
        self.doubtful = self.doubtful or name in self.anchors
        self.anchors[name] = (scalar, record)
