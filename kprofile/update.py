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
to learn where things are (PyYAML nodes carry exact character offsets, and PyYAML is
what tuning-codegen reads, so values resolve the same way), and the update is a few
targeted edits: a scalar replaced in place (keeping its quoting and boolean spelling),
an override removed, a key line added after an entry's last key, an entry added after
the last one. Everything else is the input's own text: comments, blank lines, anchors,
key order, indentation, flow style, line endings, a missing final newline. The result
is parsed again and compared with what was intended before it is returned.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import yaml
from yaml.emitter import Emitter
from yaml.resolver import Resolver

from hooks.errors import CodegenError
from hooks.manifest import compose_yaml, construct_yaml, parse_manifest

Status = Literal["added", "changed", "unchanged"]
Value = Any

_MERGE_TAG = "tag:yaml.org,2002:merge"
_STR_TAG = "tag:yaml.org,2002:str"
_MAP_TAG = "tag:yaml.org,2002:map"
_BREAKS = "\n\r\x85\u2028\u2029"
_BOOL_WORDS = {"true": ("true", "false"), "false": ("true", "false"), "yes": ("yes", "no"),
               "no": ("yes", "no"), "on": ("on", "off"), "off": ("on", "off")}


@dataclass(frozen=True)
class ShapeChange:
    shape: Mapping[str, Any]
    status: Status
    index: int
    changed_keys: tuple[str, ...]
    before: Mapping[str, Any] = field(default_factory=dict)  # merged values of changed_keys before
    after: Mapping[str, Any] = field(default_factory=dict)  # ... and after the update


@dataclass(frozen=True)
class UpdateResult:
    text: str
    changes: tuple[ShapeChange, ...]


# ---------------------------------------------------------------------------------
# Public API


def update_manifest(
    text: str, selections: Sequence[Mapping[str, Any]], *, pivots: Sequence[str], path: str
) -> UpdateResult:
    """Put each selection (one chosen config per shape) into the manifest ``text``."""
    pivots = tuple(pivots)
    wanted = _check_selections(selections, pivots, path)
    manifest = parse_manifest(text, path)
    layout = _read_layout(text, path, [e.values for e in manifest.entries])
    editor = _Editor(text, layout)
    changes = tuple(_upsert(editor, layout, sel, pivots, path) for sel in wanted)
    new_text = editor.result()
    if new_text != text:
        _verify(new_text, path, manifest.document, layout, wanted, changes)
    return UpdateResult(new_text, changes)


def format_summary(result: UpdateResult) -> str:
    """One line per shape, then the counts: what ``update_manifest`` did."""
    lines = [_summary_line(change) for change in result.changes]
    counts = {s: sum(c.status == s for c in result.changes) for s in ("added", "changed", "unchanged")}
    lines.append(", ".join(f"{n} {s}" for s, n in counts.items()))
    return "\n".join(lines) + "\n"


def shape_label(shape: Mapping[str, Any]) -> str:
    return "/".join(f"{k}={_show(v)}" for k, v in shape.items())


def _summary_line(change: ShapeChange) -> str:
    head = f"{change.status:<9} {shape_label(change.shape)}"
    if change.status == "added":
        return f"{head} (params[{change.index}])"
    if change.status == "changed":
        parts = (f"{k}: {_show(change.before.get(k, _UNSET))} -> {_show(change.after[k])}" for k in change.changed_keys)
        return f"{head} ({', '.join(parts)})"
    return head


class _Unset:
    def __repr__(self) -> str:
        return "unset"


_UNSET: Any = _Unset()


def _show(value: Any) -> str:
    if value is _UNSET:
        return "unset"
    if value is None or isinstance(value, (bool, int, float, str)):
        return render_scalar(value, flow=True)
    return repr(value)  # a list or mapping the entry held before


# ---------------------------------------------------------------------------------
# Values: normalising, comparing, rendering as YAML that PyYAML reads back unchanged


def _normalize(value: Any, key: str, path: str) -> Value:
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        value = value.item()  # numpy scalars from a DataFrame row
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise CodegenError(path, f"cannot write {key}={value!r}: only numbers, booleans, strings and null fit a manifest entry")


def _canon(value: Any) -> tuple[Any, ...]:
    """Equality as a tuning table means it: 256 == 256.0, but True != 1 and '1' != 1."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("num", "nan") if value != value else ("num", value)
    if value is None:
        return ("null",)
    if isinstance(value, str):
        return ("str", value)
    return ("other", repr(value))


def same_value(a: Any, b: Any) -> bool:
    return _canon(a) == _canon(b)


def render_scalar(value: Value, *, flow: bool, like: yaml.ScalarNode | None = None) -> str:
    """YAML text for ``value``; ``like`` is the scalar it replaces (its style is kept)."""
    if isinstance(value, bool):
        return _render_bool(value, like)
    if value is None:
        return "null"
    if isinstance(value, int):
        if like is not None and like.style is None and like.value.lower().startswith("0x") and value >= 0:
            return hex(value)
        return str(value)
    if isinstance(value, float):
        return _render_float(value)
    return _render_str(value, flow=flow, style=None if like is None else like.style)


def _render_bool(value: bool, like: yaml.ScalarNode | None) -> str:
    old = like.value if like is not None and like.style is None else "true"
    words = _BOOL_WORDS.get(old.lower(), ("true", "false"))
    word = words[0] if value else words[1]
    if old.isupper() and len(old) > 1:
        return word.upper()
    return word.capitalize() if old[:1].isupper() else word


def _render_float(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value).lower()
    if "." not in text and "e" in text:
        text = text.replace("e", ".0e", 1)  # PyYAML reads 1e-05 as a string
    return text


def _render_str(value: str, *, flow: bool, style: str | None) -> str:
    if style == '"' or not _single_quotable(value):
        return _double_quoted(value)
    if style == "'" or not _plain_ok(value, flow=flow):
        return "'" + value.replace("'", "''") + "'"
    return value


def _plain_ok(value: str, *, flow: bool) -> bool:
    if not value or any(c in _BREAKS for c in value):
        return False
    analysis = Emitter(None, allow_unicode=True).analyze_scalar(value)
    allowed = analysis.allow_flow_plain if flow else analysis.allow_block_plain
    return bool(allowed) and Resolver().resolve(yaml.ScalarNode, value, (True, False)) == _STR_TAG


def _printable(c: str) -> bool:
    return (
        c == "\t"
        or " " <= c <= "~"
        or "\xa0" <= c <= "\ud7ff"
        or ("\ue000" <= c <= "\ufffd" and c != "\ufeff")
        or c >= "\U00010000"
    )


def _single_quotable(value: str) -> bool:
    return all(_printable(c) and c != "\t" for c in value) and not any(c in _BREAKS for c in value)


def _double_quoted(value: str) -> str:
    out = []
    for c in value:
        if c in '"\\':
            out.append("\\" + c)
        elif c == "\t":
            out.append("\\t")
        elif _printable(c) and c not in _BREAKS:
            out.append(c)
        elif ord(c) < 0x10000:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(f"\\U{ord(c):08x}")
    return '"' + "".join(out) + '"'


def _render_key(key: str, *, flow: bool) -> str:
    return _render_str(key, flow=flow, style=None)


# ---------------------------------------------------------------------------------
# Selections


def _check_selections(selections: Sequence[Mapping[str, Any]], pivots: tuple[str, ...], path: str) -> tuple[dict[str, Value], ...]:
    if not pivots:
        raise CodegenError(path, "no pivot columns to match entries by (give them with -p, e.g. -p M,N,K)")
    seen: dict[tuple[Any, ...], int] = {}
    out = []
    for number, selection in enumerate(selections, 1):
        sel = {str(k): _normalize(v, str(k), path) for k, v in selection.items() if k != "<<"}
        missing = [p for p in pivots if p not in sel]
        if missing:
            raise CodegenError(path, f"selection {number} ({_label(sel, pivots)}) has no value for pivot {', '.join(missing)}")
        shape = tuple(_canon(sel[p]) for p in pivots)
        if shape in seen:
            raise CodegenError(path, f"selections {seen[shape]} and {number} are both for shape {_label(sel, pivots)}")
        seen[shape] = number
        out.append(sel)
    return tuple(out)


def _label(sel: Mapping[str, Any], pivots: tuple[str, ...]) -> str:
    return shape_label({p: sel[p] for p in pivots if p in sel}) or "no pivots"


# ---------------------------------------------------------------------------------
# Where things are: params entries, their key/value pairs and character offsets


@dataclass(frozen=True)
class _Pair:
    key: str | None  # None for the merge key and for keys that are not strings
    merge: bool
    key_node: yaml.Node
    value_node: yaml.Node
    value_start: int
    value_end: int  # exact end of the value's text (an alias: the alias token)
    value_alias: bool


@dataclass(frozen=True)
class _Item:
    index: int
    node: yaml.Node
    flow: bool
    start: int
    end: int  # end of the entry's last content (no trailing blank lines or comments)
    pairs: tuple[_Pair, ...]
    merged: Mapping[str, Any]
    defaults: Mapping[str, Any]  # what the merge key alone gives
    merge_text: str | None  # e.g. "*defaults"


@dataclass(frozen=True)
class _Layout:
    node: yaml.SequenceNode
    flow: bool
    items: tuple[_Item, ...]
    styles: Mapping[str, yaml.ScalarNode]  # per key, the first scalar written for it: new values look alike


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


def _read_layout(text: str, path: str, merged: Sequence[Mapping[str, Any]]) -> _Layout:
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
        pairs = tuple(_pairs(text, node, loader.alias_spans))
        flow = bool(node.flow_style)
        end = node.end_mark.index if flow else _content_end(text, pairs[-1].value_end)
        if span is not None:
            end = span[1]
        merge = next((p for p in pairs if p.merge), None)
        merge_text = None if merge is None else text[merge.value_start:merge.value_end]
        items.append(_Item(i, node, flow, start, end, pairs, merged[i], defaults[i], merge_text))
    return _Layout(params, bool(params.flow_style), tuple(items), _styles(root))


def _styles(root: yaml.Node) -> dict[str, yaml.ScalarNode]:
    styles: dict[str, yaml.ScalarNode] = {}
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen or isinstance(node, yaml.ScalarNode):
            continue
        seen.add(id(node))
        children = node.value if isinstance(node, yaml.SequenceNode) else [v for _, v in node.value]
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.tag == _STR_TAG and isinstance(value, yaml.ScalarNode) and value.style in (None, "'", '"'):
                    styles.setdefault(key.value, value)
        stack.extend(reversed(children))
    return styles


def _find(root: yaml.Node, name: str) -> yaml.Node | None:
    for key, value in root.value:
        if isinstance(key, yaml.ScalarNode) and key.tag != _MERGE_TAG and key.value == name:
            return value
    return None


def _pairs(text: str, node: yaml.MappingNode, alias_spans: Mapping[tuple[int, Any], tuple[int, int]]) -> Iterator[_Pair]:
    for key, value in node.value:
        span = alias_spans.get((id(node), id(key)))
        start, end = (value.start_mark.index, value.end_mark.index) if span is None else span
        name = key.value if isinstance(key, yaml.ScalarNode) and key.tag == _STR_TAG else None
        yield _Pair(name, key.tag == _MERGE_TAG, key, value, start, end, span is not None)


def _defaults_by_entry(text: str, path: str) -> list[dict[str, Any]]:
    """For each entry, the values its merge key alone contributes (PyYAML semantics)."""
    root = compose_yaml(text, path)  # a second graph: constructing merges rewrites nodes
    assert root is not None
    params = _find(root, "params")
    assert params is not None
    out = []
    for entry in params.value:
        merges = [(k, v) for k, v in entry.value if k.tag == _MERGE_TAG]
        out.append(dict(construct_yaml(yaml.MappingNode(_MAP_TAG, merges), path)) if merges else {})
    return out


# ---------------------------------------------------------------------------------
# Text geometry


def _content_end(text: str, pos: int) -> int:
    """``pos`` moved back over trailing whitespace (a block scalar's final newlines)."""
    while pos > 0 and text[pos - 1] in " \t\r\n":
        pos -= 1
    return pos


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _line_end(text: str, pos: int) -> int:
    """Offset of the line break ending the line that holds ``pos`` (or end of text)."""
    nl = text.find("\n", pos)
    if nl < 0:
        return len(text)
    return nl - 1 if nl > 0 and text[nl - 1] == "\r" else nl


def _next_line(text: str, pos: int) -> int:
    nl = text.find("\n", pos)
    return len(text) if nl < 0 else nl + 1


def _eol(text: str, pos: int) -> str:
    """The line break used at ``pos`` (or the file's first one, or LF)."""
    m = re.compile(r"\r?\n").search(text, pos) or re.compile(r"\r?\n").search(text)
    return "\n" if m is None else m.group()


def _first_on_line(text: str, pos: int) -> bool:
    return text[_line_start(text, pos):pos].strip() == ""


def _column(text: str, pos: int) -> int:
    return pos - _line_start(text, pos)


# ---------------------------------------------------------------------------------
# Edits


@dataclass(frozen=True)
class _Edit:
    start: int
    end: int
    text: str


class _Editor:
    def __init__(self, text: str, layout: _Layout) -> None:
        self.text = text
        self.layout = layout
        self.edits: list[_Edit] = []
        self.appended: list[dict[str, Value]] = []
        self.content_end: dict[int, int] = {}  # entry index -> end of its last kept key

    def add(self, start: int, end: int, new: str) -> None:
        self.edits.append(_Edit(start, end, new))

    def result(self) -> str:
        if self.appended:
            self._append_entries()
        out, pos = [], 0
        for edit in sorted(self.edits, key=lambda e: (e.start, e.end)):
            assert edit.start >= pos, "overlapping edits"
            out += [self.text[pos:edit.start], edit.text]
            pos = edit.end
        out.append(self.text[pos:])
        return "".join(out)

    def _append_entries(self) -> None:
        layout, text = self.layout, self.text
        merge_text, defaults = _shared_merge(layout.items)
        bodies = [_own_keys(sel, defaults) for sel in self.appended]
        if layout.flow:
            entries = [_flow_mapping(merge_text, body, layout.styles) for body in bodies]
            if layout.items:
                self.add(layout.items[-1].end, layout.items[-1].end, "".join(", " + e for e in entries))
            else:
                start = layout.node.start_mark.index + 1
                self.add(start, start, ", ".join(entries))
            return
        last = layout.items[-1]
        at = _line_end(text, self.content_end.get(last.index, last.end))
        eol = _eol(text, at)
        dash = " " * layout.node.start_mark.column
        lead = eol + eol if _blank_separated(text, layout.items) else eol
        if last.flow:
            lines = [dash + "- " + _flow_mapping(merge_text, body, layout.styles) for body in bodies]
        else:
            first = last.pairs[0].key_node.start_mark.index
            indent = " " * (_column(text, first) if not _first_on_line(text, first) else len(dash) + 2)
            lines = [_block_entry(merge_text, body, layout.styles, dash=dash, indent=indent, eol=eol) for body in bodies]
        self.add(at, at, "".join(lead + line for line in lines))


def _shared_merge(items: Sequence[_Item]) -> tuple[str | None, Mapping[str, Any]]:
    texts = {item.merge_text for item in items}
    if len(texts) == 1 and None not in texts:
        return items[0].merge_text, items[0].defaults
    return None, {}


def _own_keys(sel: Mapping[str, Value], defaults: Mapping[str, Any]) -> list[tuple[str, Value]]:
    return [(k, v) for k, v in sel.items() if not (k in defaults and same_value(defaults[k], v))]


def _render_pair(key: str, value: Value, *, flow: bool, styles: Mapping[str, yaml.ScalarNode]) -> str:
    return f"{_render_key(key, flow=flow)}: {render_scalar(value, flow=flow, like=styles.get(key))}"


def _flow_mapping(merge_text: str | None, body: Sequence[tuple[str, Value]], styles: Mapping[str, yaml.ScalarNode]) -> str:
    parts = [] if merge_text is None else [f"<<: {merge_text}"]
    parts += [_render_pair(k, v, flow=True, styles=styles) for k, v in body]
    return "{" + ", ".join(parts) + "}"


def _block_entry(
    merge_text: str | None, body: Sequence[tuple[str, Value]], styles: Mapping[str, yaml.ScalarNode], *, dash: str, indent: str, eol: str
) -> str:
    parts = [] if merge_text is None else [f"<<: {merge_text}"]
    parts += [_render_pair(k, v, flow=False, styles=styles) for k, v in body]
    if not parts:
        return dash + "- {}"
    return dash + "- " + (eol + indent).join(parts)


def _blank_separated(text: str, items: Sequence[_Item]) -> bool:
    """True when every two neighbouring entries have a blank line between them."""
    if len(items) < 2:
        return False
    for before, after in zip(items, items[1:]):
        gap = text[_next_line(text, before.end):_line_start(text, after.start)]
        if not any(line.strip() == "" for line in gap.splitlines()):
            return False
    return True


# ---------------------------------------------------------------------------------
# One selection


def _upsert(editor: _Editor, layout: _Layout, sel: dict[str, Value], pivots: tuple[str, ...], path: str) -> ShapeChange:
    shape = {p: sel[p] for p in pivots}
    matches = [item for item in layout.items if all(p in item.merged and same_value(item.merged[p], sel[p]) for p in pivots)]
    if len(matches) > 1:
        a, b = matches[0], matches[1]
        raise CodegenError(
            path,
            f"params[{a.index}] and params[{b.index}] both match {shape_label(shape)}; add a pivot that tells them apart",
            line=b.node.start_mark.line + 1,
        )
    if not matches:
        index = len(layout.items) + len(editor.appended)
        editor.appended.append(sel)
        return ShapeChange(shape, "added", index, tuple(sel), {}, dict(sel))
    item = matches[0]
    changed = tuple(k for k, v in sel.items() if not (k in item.merged and same_value(item.merged[k], v)))
    if not changed:
        return ShapeChange(shape, "unchanged", item.index, ())
    _edit_entry(editor, item, {k: sel[k] for k in changed})
    before = {k: item.merged[k] for k in changed if k in item.merged}
    return ShapeChange(shape, "changed", item.index, changed, before, {k: sel[k] for k in changed})


def _edit_entry(editor: _Editor, item: _Item, updates: Mapping[str, Value]) -> None:
    text = editor.text
    own = {p.key: p for p in item.pairs if p.key is not None and not p.merge}
    removed: set[int] = set()
    added: list[tuple[str, Value]] = []
    for key, value in updates.items():
        pair = own.get(key)
        at_default = key in item.defaults and same_value(item.defaults[key], value)
        if pair is None:
            added.append((key, value))  # not set by the entry and differs from the default
        elif at_default:
            removed.add(id(pair))
        else:
            start, end, new = _replacement(text, pair, value, flow=item.flow)
            editor.add(start, end, new)
    kept = [p for p in item.pairs if id(p) not in removed]
    if not item.flow:
        editor.content_end[item.index] = _content_end(text, kept[-1].value_end)
    for run in _runs(item.pairs, removed):
        editor.add(*_removal(text, item, run))
    if added:
        editor.add(*_insertion(text, item, kept, added, editor.layout.styles))


def _replacement(text: str, pair: _Pair, value: Value, *, flow: bool) -> tuple[int, int, str]:
    node = pair.value_node
    like = node if isinstance(node, yaml.ScalarNode) and not pair.value_alias and node.style in (None, "'", '"') else None
    rendered = render_scalar(value, flow=flow, like=like)
    start, end = pair.value_start, pair.value_end
    if pair.value_alias:
        return start, end, rendered
    anchor = ""
    while text[start:start + 1] in ("&", "!"):  # node properties: keep an anchor, drop a tag
        m = re.compile(r"\S+\s*").match(text, start)
        assert m is not None
        if text[start] == "&":
            anchor = m.group().rstrip() + " "
        start = m.end()
    if like is None:  # a collection or block scalar becomes a plain scalar on the key's line
        end = max(_content_end(text, end), start)
        colon = text.index(":", pair.key_node.end_mark.index)
        if text.count("\n", colon, start):
            return colon + 1, end, " " + anchor + rendered
    if start == end:  # an empty (null) value: "KEY:" -> "KEY: value"
        return start, end, " " + anchor + rendered
    return pair.value_start, end, anchor + rendered


def _runs(pairs: Sequence[_Pair], removed: set[int]) -> Iterator[list[int]]:
    run: list[int] = []
    for i, pair in enumerate(pairs):
        if id(pair) in removed:
            run.append(i)
        elif run:
            yield run
            run = []
    if run:
        yield run


def _removal(text: str, item: _Item, run: list[int]) -> tuple[int, int, str]:
    pairs = item.pairs
    first, last = pairs[run[0]], pairs[run[-1]]
    after = pairs[run[-1] + 1] if run[-1] + 1 < len(pairs) else None
    key_start = first.key_node.start_mark.index
    if item.flow:
        if after is not None:
            return key_start, after.key_node.start_mark.index, ""
        if run[0] > 0:
            return pairs[run[0] - 1].value_end, last.value_end, ""
        return key_start, last.value_end, ""
    if _first_on_line(text, key_start):
        start, end = _line_start(text, key_start), _next_line(text, _content_end(text, last.value_end))
        if end == len(text) and not text.endswith("\n"):  # keep "no final newline"
            start = max(0, start - (2 if text[max(0, start - 2):start] == "\r\n" else 1))
        return start, end, ""
    if after is not None:  # the run starts on the "- " line: pull the next key up onto it
        return key_start, after.key_node.start_mark.index, ""
    return key_start, _content_end(text, last.value_end), "{}"


def _insertion(
    text: str, item: _Item, kept: Sequence[_Pair], added: Sequence[tuple[str, Value]], styles: Mapping[str, yaml.ScalarNode]
) -> tuple[int, int, str]:
    if item.flow:
        parts = [_render_pair(k, v, flow=True, styles=styles) for k, v in added]
        if kept:
            return kept[-1].value_end, kept[-1].value_end, "".join(", " + p for p in parts)
        return item.start + 1, item.start + 1, ", ".join(parts)
    assert kept, "a block entry keeps its merge key"
    at = _line_end(text, _content_end(text, kept[-1].value_end))
    indent = " " * _column(text, item.pairs[0].key_node.start_mark.index)
    eol = _eol(text, at)
    lines = [eol + indent + _render_pair(k, v, flow=False, styles=styles) for k, v in added]
    return at, at, "".join(lines)


# ---------------------------------------------------------------------------------
# The result must read back as intended


def _verify(
    new_text: str,
    path: str,
    document: Mapping[str, Any],
    layout: _Layout,
    wanted: Sequence[Mapping[str, Value]],
    changes: Sequence[ShapeChange],
) -> None:
    try:
        result = parse_manifest(new_text, path)
    except CodegenError as exc:
        raise CodegenError(path, f"the update would not be a valid manifest ({exc.message}); nothing was written") from None
    expected = [dict(item.merged) for item in layout.items]
    _, shared_defaults = _shared_merge(layout.items)
    for sel, change in zip(wanted, changes):
        if change.status == "added":
            expected.append({**shared_defaults, **sel})
        else:
            expected[change.index].update(sel)
    got = [dict(e.values) for e in result.entries]
    other_old = {k: v for k, v in document.items() if k != "params"}
    other_new = {k: v for k, v in result.document.items() if k != "params"}
    bad = next((i for i in range(max(len(got), len(expected))) if not _same_mapping(got[i:i + 1], expected[i:i + 1])), None)
    if bad is not None or other_old != other_new:
        where = f"params[{bad}]" if bad is not None else "keys outside params"
        raise CodegenError(
            path, f"cannot update in place: the edit would also change {where} (a shared anchor?); nothing was written"
        )


def _same_mapping(a: Sequence[Mapping[str, Any]], b: Sequence[Mapping[str, Any]]) -> bool:
    if len(a) != len(b):
        return False
    if not a:
        return True
    x, y = a[0], b[0]
    return x.keys() == y.keys() and all(same_value(x[k], y[k]) for k in x)
