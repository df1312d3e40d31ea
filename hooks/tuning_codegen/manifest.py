"""Loading tuning manifests: a YAML mapping whose ``params`` is a list of entries.

Read as the reference tool reads them: ``yaml.safe_load``'s semantics (``yamlload``),
merge keys wherever it applies them (in both styles found in real tables, and at the
top level too, so ``params`` may come from a merged mapping), then each entry's keys
made strings (``yes:`` is the key ``'True'``, which ``[@True]`` uses). A key written
twice in one mapping (or two keys of one entry that are one string once made
strings), a malformed document, a value the loader cannot construct and two entries
that are equal after merging are errors with file and line.
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

import yaml

from tuning_codegen.errors import InputError, one_line
from tuning_codegen.gcpause import paused_gc
from tuning_codegen.textio import read_text
from tuning_codegen.values import entry_key
from tuning_codegen.yamlbounds import (
    MAX_DEPTH,
    check_characters,
    check_conflicts,
    check_graph,
    node_budget,
)
from tuning_codegen.yamlload import Constructor, TooDeep, compose, construct

_TAGS = "tag:yaml.org,2002:"
MERGE_TAG = _TAGS + "merge"
_STR_TAG = _TAGS + "str"
MAP_TAG = _MAP_TAG = _TAGS + "map"
SEQ_TAG = _SEQ_TAG = _TAGS + "seq"


class Entry(NamedTuple):
    position: int  # in params
    line: int
    values: Mapping[str, Any]
    own: Mapping[str, int] = MappingProxyType({})
    """The keys the entry writes itself (not through a merge key), with their lines."""


class Manifest(NamedTuple):
    path: str
    entries: tuple[Entry, ...]
    document: Mapping[str, Any]


def load_manifest(path: str | os.PathLike[str]) -> Manifest:
    name = os.fspath(path)
    return parse_manifest(read_text(name), name)


def parse_manifest(text: str, path: str) -> Manifest:
    with paused_gc():  # a million objects for 50,000 entries, none of them garbage
        return _parse(text, path)


def _parse(text: str, path: str) -> Manifest:
    root = _root_mapping(compose_yaml(text, path), path)
    params_node = _find_key(root, "params")
    if params_node is None:
        raise InputError(
            path,
            "no 'params' key: a manifest lists its entries under 'params'",
            line=root.start_mark.line + 1,
        )
    if not isinstance(params_node, yaml.SequenceNode) or params_node.tag != _SEQ_TAG:
        raise InputError(
            path,
            f"'params' must be a list of mappings, got {_describe(params_node)}",
            line=params_node.start_mark.line + 1,
        )
    for index, item in enumerate(params_node.value):
        if not isinstance(item, yaml.MappingNode) or item.tag != _MAP_TAG:
            raise InputError(
                path,
                f"params[{index}] must be a mapping, got {_describe(item)}",
                line=item.start_mark.line + 1,
            )
    owns = [_own_keys(item, path) for item in params_node.value]  # before merging
    document = construct_yaml(root, path)
    lines = [item.start_mark.line + 1 for item in params_node.value]
    entries = tuple(
        Entry(i, line, {str(key): value for key, value in values.items()}, own)
        for i, (line, values, own) in enumerate(zip(lines, document["params"], owns))
    )
    _check_unique(entries, path)
    return Manifest(path, entries, document)


def _root_mapping(root: yaml.Node | None, path: str) -> yaml.MappingNode:
    """The document's mapping, its top-level merge keys applied (as safe_load does)."""
    if not isinstance(root, yaml.MappingNode) or root.tag != _MAP_TAG:
        what = "an empty document" if root is None else _describe(root)
        line = None if root is None else root.start_mark.line + 1
        raise InputError(
            path, f"expected a mapping with a 'params' list, got {what}", line=line
        )
    try:
        Constructor().flatten_mapping(root)
    except yaml.MarkedYAMLError as exc:
        raise _yaml_error(exc, path) from None
    return root


def _own_keys(entry: yaml.MappingNode, path: str) -> dict[str, int]:
    """Each key the entry writes itself, as the string the reference makes of it,
    with its line; two keys making one string are an error."""
    if all(
        key.tag == _STR_TAG and type(key) is yaml.ScalarNode for key, _ in entry.value
    ):  # the usual case: every key a string
        return {key.value: key.start_mark.line + 1 for key, _ in entry.value}
    own: dict[str, int] = {}
    spelled: dict[str, str] = {}
    for key, _ in entry.value:
        if not isinstance(key, yaml.ScalarNode) or key.tag == MERGE_TAG:
            continue
        name = key.value if key.tag == _STR_TAG else _key_string(key)
        if name is None:
            continue  # constructing the document reports it
        line = key.start_mark.line + 1
        if name in own:
            raise InputError(
                path,
                f"keys {spelled[name]!r} (line {own[name]}) and {key.value!r} are "
                f"both the key {name!r} once made strings, as the reference tool "
                "makes them; keep one",
                line=line,
            )
        own[name], spelled[name] = line, key.value
    return own


def _key_string(key: yaml.ScalarNode) -> str | None:
    try:
        return str(construct(key))
    except yaml.YAMLError:
        return None


def compose_yaml(text: str, path: str) -> yaml.Node | None:
    """Parse ``text`` into a node graph, bounded (``yamlbounds``): characters YAML
    allows only, aliases expanding to at most a budget of nodes, nesting at most
    ``MAX_DEPTH`` deep; and no key written twice in one mapping."""
    check_characters(text, path)
    check_conflicts(text, path)
    try:
        root = compose(text)
    except TooDeep as exc:
        line = None if exc.problem_mark is None else exc.problem_mark.line + 1
        raise InputError(
            path, f"invalid YAML: nested more than {MAX_DEPTH} levels deep", line=line
        ) from None
    except yaml.MarkedYAMLError as exc:
        raise _yaml_error(exc, path) from None
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        raise InputError(path, f"invalid YAML: {exc.reason}", line=line) from None
    except yaml.YAMLError as exc:
        raise InputError(path, f"invalid YAML: {one_line(str(exc))}") from None
    except RecursionError:  # the pure-Python composer, nested deeper than it can go
        raise InputError(
            path, f"invalid YAML: nested more than {MAX_DEPTH} levels deep"
        ) from None
    if root is not None:
        check_graph(
            root,
            node_budget(text),
            path,
            lambda node: _check_keys_once(node, path),
            aliases="*" in text,
        )
    return root


def construct_yaml(
    node: yaml.Node, path: str, constructor: Constructor | None = None
) -> Any:
    """The value of ``node``; any value the loader cannot construct is an error at its
    line (``yamlload.Constructor``, or the one given, to reuse)."""
    try:
        return construct(node, constructor)
    except yaml.MarkedYAMLError as exc:
        raise _yaml_error(exc, path) from None
    except yaml.YAMLError as exc:
        raise InputError(path, f"invalid YAML: {one_line(str(exc))}") from None


# Scanner errors whose mistake is where the construct started, not where the scanner
# noticed: a key without its ':' (noticed on the next line), a quote never closed.
_CONTEXT_HOLDS_IT = ("while scanning a simple key", "while scanning a quoted scalar")


def _yaml_error(exc: yaml.MarkedYAMLError, path: str) -> InputError:
    """The parser's complaint at the line that holds the mistake."""
    mark = exc.problem_mark or exc.context_mark
    if exc.context in _CONTEXT_HOLDS_IT and exc.context_mark is not None:
        mark = exc.context_mark
    problem = " ".join(p for p in (exc.context, exc.problem) if p) or "invalid YAML"
    return InputError(
        path, f"invalid YAML: {problem}", line=None if mark is None else mark.line + 1
    )


def describe_key(key: yaml.Node) -> str:
    """A mapping key as a message shows it: ``'name'``, or what it is if not a name."""
    if key.tag == MERGE_TAG:
        return "merge key '<<'"
    if isinstance(key, yaml.ScalarNode):
        return f"'{key.value}'"
    return f"({_describe(key)})"


def _check_keys_once(mapping: yaml.MappingNode, path: str) -> None:
    """A key written twice in one mapping is an error (PyYAML keeps the last)."""
    pairs = mapping.value
    if len({key.value for key, _ in pairs if type(key) is yaml.ScalarNode}) == len(
        pairs
    ):
        return  # every key spelled differently (the usual case): none twice
    seen: dict[tuple[str, str], int] = {}
    for key, _ in mapping.value:
        if not isinstance(key, yaml.ScalarNode):
            continue
        ident = (key.tag, key.value)
        line = key.start_mark.line + 1
        if ident in seen:
            what = describe_key(key)
            what = what if key.tag == MERGE_TAG else f"key {what}"
            raise InputError(
                path,
                f"{what} appears twice in one mapping (first on line {seen[ident]})",
                line=line,
            )
        seen[ident] = line


def _find_key(mapping: yaml.MappingNode, name: str) -> yaml.Node | None:
    """The value of the string key ``name``: the last one, as in a merged mapping,
    where a key of the mapping itself overrides a merged one."""
    found = None
    for key, value in mapping.value:
        if isinstance(key, yaml.ScalarNode) and key.tag == _STR_TAG:
            found = value if key.value == name else found
    return found


def describe_node(node: yaml.Node) -> str:
    """A node as a message names it: ``a list``, ``the scalar 'x'``, ``a !!set``."""
    return _describe(node)


def _describe(node: yaml.Node) -> str:
    if isinstance(node, yaml.ScalarNode):
        return f"the scalar {node.value!r}" if node.value else "nothing"
    standard = _MAP_TAG if isinstance(node, yaml.MappingNode) else _SEQ_TAG
    if node.tag != standard:
        tag = str(node.tag)
        return f"a {'!!' + tag[len(_TAGS) :] if tag.startswith(_TAGS) else tag}"
    return "a mapping" if isinstance(node, yaml.MappingNode) else "a list"


def _check_unique(entries: tuple[Entry, ...], path: str) -> None:
    """Two entries that are the same (``tuning_codegen.values``): stricter than the
    reference's equal ``repr``, which takes ``M: 1`` and ``M: 1.0`` for two entries."""
    first: dict[Hashable, int] = {}
    for entry in entries:
        key = entry_key(entry.values)
        if key in first:
            raise InputError(
                path,
                f"params[{entry.position}] is identical to params[{first[key]}] "
                "after merging",
                line=entry.line,
            )
        first[key] = entry.position
