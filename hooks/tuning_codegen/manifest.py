"""Loading tuning manifests: a YAML mapping whose ``params`` is a list of entries.

Merge keys work in both styles found in real tables (a mapping anchor and a list of
mappings anchor); a key written twice in one mapping, a malformed document and two
entries that are equal after merging are errors with file and line.
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from tuning_codegen.errors import InputError, one_line
from tuning_codegen.textio import read_text
from tuning_codegen.values import entry_key
from tuning_codegen.yamlbounds import (
    MAX_DEPTH,
    check_characters,
    check_graph,
    node_budget,
)

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MERGE_TAG = "tag:yaml.org,2002:merge"


@dataclass(frozen=True)
class Entry:
    index: int
    line: int
    values: Mapping[str, Any]


@dataclass(frozen=True)
class Manifest:
    path: str
    entries: tuple[Entry, ...]
    document: Mapping[str, Any]


def load_manifest(path: str | os.PathLike[str]) -> Manifest:
    name = os.fspath(path)
    return parse_manifest(read_text(name), name)


def parse_manifest(text: str, path: str) -> Manifest:
    root = compose_yaml(text, path)
    if not isinstance(root, yaml.MappingNode):
        what = "an empty document" if root is None else _describe(root)
        line = None if root is None else root.start_mark.line + 1
        raise InputError(
            path, f"expected a mapping with a 'params' list, got {what}", line=line
        )
    params_node = _find_key(root, "params")
    if params_node is None:
        raise InputError(
            path,
            "no 'params' key: a manifest lists its entries under 'params'",
            line=root.start_mark.line + 1,
        )
    if not isinstance(params_node, yaml.SequenceNode):
        raise InputError(
            path,
            f"'params' must be a list of mappings, got {_describe(params_node)}",
            line=params_node.start_mark.line + 1,
        )
    for index, item in enumerate(params_node.value):
        if not isinstance(item, yaml.MappingNode):
            raise InputError(
                path,
                f"params[{index}] must be a mapping, got {_describe(item)}",
                line=item.start_mark.line + 1,
            )
    document = construct_yaml(root, path)
    lines = [item.start_mark.line + 1 for item in params_node.value]
    entries = tuple(
        Entry(i, line, values)
        for i, (line, values) in enumerate(zip(lines, document["params"]))
    )
    _check_unique(entries, path)
    return Manifest(path, entries, document)


def compose_yaml(text: str, path: str) -> yaml.Node | None:
    """Parse ``text`` into a node graph, bounded (``yamlbounds``): characters YAML
    allows only, aliases expanding to at most a budget of nodes, nesting at most
    ``MAX_DEPTH`` deep; and no key written twice in one mapping."""
    check_characters(text, path)
    loader = _Loader(text)
    try:
        root = loader.get_single_node()
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
    finally:
        loader.dispose()
    if root is not None:
        check_graph(
            root, node_budget(text), path, lambda node: _check_keys_once(node, path)
        )
    return root


def construct_yaml(node: yaml.Node, path: str) -> Any:
    loader = _Loader("")
    try:
        return loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        raise _yaml_error(exc, path) from None
    except (yaml.YAMLError, TypeError, ValueError) as exc:
        raise InputError(path, f"invalid YAML: {one_line(str(exc))}") from None
    finally:
        loader.dispose()


def _yaml_error(exc: yaml.MarkedYAMLError, path: str) -> InputError:
    mark = exc.problem_mark or exc.context_mark
    problem = " ".join(p for p in (exc.context, exc.problem) if p) or "invalid YAML"
    return InputError(
        path, f"invalid YAML: {problem}", line=None if mark is None else mark.line + 1
    )


def describe_key(key: yaml.Node) -> str:
    """A mapping key as a message shows it: ``'name'``, or what it is if not a name."""
    if key.tag == _MERGE_TAG:
        return "merge key '<<'"
    if isinstance(key, yaml.ScalarNode):
        return f"'{key.value}'"
    return f"({_describe(key)})"


def _check_keys_once(mapping: yaml.MappingNode, path: str) -> None:
    """A key written twice in one mapping is an error (PyYAML keeps the last)."""
    seen: dict[tuple[str, str], int] = {}
    for key, _ in mapping.value:
        if not isinstance(key, yaml.ScalarNode):
            continue
        ident = (key.tag, key.value)
        line = key.start_mark.line + 1
        if ident in seen:
            what = describe_key(key)
            what = what if key.tag == _MERGE_TAG else f"key {what}"
            raise InputError(
                path,
                f"{what} appears twice in one mapping (first on line {seen[ident]})",
                line=line,
            )
        seen[ident] = line


def _find_key(mapping: yaml.MappingNode, name: str) -> yaml.Node | None:
    for key, value in mapping.value:
        if (
            isinstance(key, yaml.ScalarNode)
            and key.tag != _MERGE_TAG
            and key.value == name
        ):
            return value
    return None


def _describe(node: yaml.Node) -> str:
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    return f"the scalar {node.value!r}" if node.value else "nothing"


def _check_unique(entries: tuple[Entry, ...], path: str) -> None:
    first: dict[Hashable, int] = {}
    for entry in entries:
        key = entry_key(entry.values)
        if key in first:
            raise InputError(
                path,
                f"params[{entry.index}] is identical to params[{first[key]}] "
                "after merging",
                line=entry.line,
            )
        first[key] = entry.index
