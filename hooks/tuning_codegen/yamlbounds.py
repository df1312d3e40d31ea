"""Bounds on a YAML document, checked before anything is constructed from it.

Aliases share one node, so composing a document is linear in its text; what grows is
everything done afterwards with the values (merging, comparing, rendering), which sees
each alias expanded. ``check_graph`` counts the nodes every alias pulls in (sizes
memoized per node, so the count itself is linear) and refuses a document that would
expand past a budget proportional to its text, one nested deeper than ``MAX_DEPTH``,
and one whose anchor is used inside itself. ``check_characters`` refuses characters
YAML does not allow (a NUL byte, most control characters) with their line.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import yaml

from tuning_codegen.errors import InputError

MAX_DEPTH = 100
BASE_NODES = 1_000_000
NODES_PER_CHARACTER = 10

_NOT_PRINTABLE = re.compile(
    "[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)


def node_budget(text: str) -> int:
    return BASE_NODES + NODES_PER_CHARACTER * len(text)


def check_characters(text: str, path: str) -> None:
    found = _NOT_PRINTABLE.search(text)
    if found is None:
        return
    start = found.start()
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    raise InputError(
        path,
        f"invalid YAML: character U+{ord(found.group()):04X} is not allowed "
        f"(column {column})",
        line=line,
    )


def _children(node: yaml.Node) -> list[yaml.Node]:
    """Keys and values of a mapping, items of a sequence: what an alias pulls in."""
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _error(node: yaml.Node, path: str, problem: str) -> InputError:
    return InputError(path, f"invalid YAML: {problem}", line=node.start_mark.line + 1)


def check_graph(
    root: yaml.Node,
    budget: int,
    path: str,
    visit: Callable[[yaml.MappingNode], None] | None = None,
    *,
    aliases: bool = True,
) -> None:
    """Refuse a graph whose expansion exceeds ``budget`` nodes or ``MAX_DEPTH``.

    Depth-first without recursion (the graph may be nested as deep as the parser
    allows); each node is measured once, scalars without a stack entry. ``visit`` is
    called once for every mapping, so other checks need no walk of their own. Without
    ``aliases`` (the text has no ``*``) the graph is a tree no larger than its text:
    only its depth is measured.
    """
    if not aliases:
        _check_tree(root, path, visit)
        return
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, list[yaml.Node] | None]] = [(root, None)]
    while stack:
        node, kids = stack.pop()
        key = id(node)
        if kids is not None:  # every child measured: measure the node
            open_nodes.discard(key)
            size[key] = 1 + sum([size[id(kid)] for kid in kids])
            depth[key] = 1 + max([depth[id(kid)] for kid in kids], default=0)
            _check_measures(node, size[key], depth[key], budget, path)
            continue
        if key in size:
            continue
        kids = _children(node)
        if visit is not None and isinstance(node, yaml.MappingNode):
            visit(node)
        open_nodes.add(key)
        stack.append((node, kids))
        for kid in kids:
            kid_key = id(kid)
            if kid_key in size:
                continue
            if kid_key in open_nodes:
                raise _error(kid, path, "an anchor is used inside itself")
            if isinstance(kid, yaml.ScalarNode):
                size[kid_key] = depth[kid_key] = 1
            else:
                stack.append((kid, None))


def _check_tree(
    root: yaml.Node, path: str, visit: Callable[[yaml.MappingNode], None] | None
) -> None:
    """``check_graph`` for a graph without aliases: depth and ``visit`` only."""
    if type(root) is yaml.ScalarNode:
        return
    stack: list[tuple[yaml.Node, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()  # depth: of the node; its kids are one deeper
        if depth + (1 if node.value else 0) > MAX_DEPTH:
            raise _error(node, path, f"nested more than {MAX_DEPTH} levels deep")
        if type(node) is yaml.MappingNode:
            if visit is not None:
                visit(node)
            for key, value in node.value:
                if type(key) is not yaml.ScalarNode:
                    stack.append((key, depth + 1))
                if type(value) is not yaml.ScalarNode:
                    stack.append((value, depth + 1))
        else:
            stack += [
                (kid, depth + 1)
                for kid in node.value
                if type(kid) is not yaml.ScalarNode
            ]


def _check_measures(
    node: yaml.Node, size: int, depth: int, budget: int, path: str
) -> None:
    if size > budget:
        raise _error(node, path, f"aliases expand it to more than {budget} nodes")
    if depth > MAX_DEPTH:
        raise _error(node, path, f"nested more than {MAX_DEPTH} levels deep")


_CONFLICT = re.compile(r"^(?:<{7}|>{7})(?: |$)|^={7}$", re.MULTILINE)


def check_conflicts(text: str, path: str) -> None:
    """The markers git leaves in a file a merge could not join (``<<<<<<< HEAD``,
    ``=======``, ``>>>>>>> branch``) are one error at the first of them, not a YAML
    error somewhere near it."""
    if "<<<<<<<" not in text and ">>>>>>>" not in text:
        return
    found = _CONFLICT.search(text)
    if found is None:
        return
    line = text.count("\n", 0, found.start()) + 1
    marker = found.group()[:7]
    raise InputError(
        path,
        f"unresolved merge conflict (git's {marker} line): resolve it, then run again",
        line=line,
    )
