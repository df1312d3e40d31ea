"""Where a parameter is written in a spec or manifest YAML: its line, for a message.

The expanded table keeps values, not positions; a message about a value (``--merge -o``
refusing a set) reads the file again and finds the first key of that name under
``params`` (merged-in anchors included) whose value, or one of whose listed
alternatives, is what the message is about.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import yaml

from tuning_codegen.errors import InputError
from tuning_codegen.manifest import compose_yaml
from tuning_codegen.textio import read_text

MERGE_TAG = "tag:yaml.org,2002:merge"
Wanted = Callable[[yaml.Node], bool]


def is_collection(node: yaml.Node) -> bool:
    """A mapping (sets are mappings too) or a list, not a scalar."""
    return isinstance(node, (yaml.MappingNode, yaml.SequenceNode))


def any_node(node: yaml.Node) -> bool:
    return True


def key_line(path: str, name: str, wanted: Wanted = any_node) -> int | None:
    """The line of the first value (or listed alternative) of parameter ``name``
    (``NAME`` or ``$NAME``) that ``wanted`` accepts; without one, of its first key;
    None if the file no longer reads."""
    try:
        root = compose_yaml(read_text(path), path)
    except (InputError, OSError):
        return None
    first: int | None = None
    for key, value in _pairs(root):
        if not isinstance(key, yaml.ScalarNode) or key.value.removeprefix("$") != name:
            continue
        first = first or key.start_mark.line + 1
        options = value.value if isinstance(value, yaml.SequenceNode) else [value]
        for option in options:
            if wanted(option):
                return int(option.start_mark.line) + 1
    return first


def _pairs(root: yaml.Node | None) -> Iterator[tuple[yaml.Node, yaml.Node]]:
    """Every key and value of the entries under ``params``, merges followed."""
    if not isinstance(root, yaml.MappingNode):
        return
    for key, value in root.value:
        if key.value == "params" and isinstance(value, yaml.SequenceNode):
            for entry in value.value:
                yield from _entry_pairs(entry, depth=0)


def _entry_pairs(
    node: yaml.Node, *, depth: int
) -> Iterator[tuple[yaml.Node, yaml.Node]]:
    if not isinstance(node, yaml.MappingNode) or depth > 8:
        return
    for key, value in node.value:
        if key.tag == MERGE_TAG:
            merged = value.value if isinstance(value, yaml.SequenceNode) else [value]
            for target in merged:
                yield from _entry_pairs(target, depth=depth + 1)
        else:
            yield key, value
