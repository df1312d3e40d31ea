"""The table registry, ``.tuning-codegen.yaml``: every table of a repository, once.

```yaml
tables:
  - name: sm100-bf16
    manifest: kernels/sm100/tuning_table_sm100_bf16.yaml
    snippet: kernels/sm100/tuning_sm100.mojo.snippet
    snippet_variants: {ranged: kernels/sm100/tuning_ranged.mojo.snippet}
    target: kernels/sm100/tuning_configs.mojo
    begin_marker: BEGIN-TUNING-LIST-SM100-BF16
    end_marker: END-TUNING-LIST-SM100-BF16
```
Paths are relative to the registry's folder and must stay inside the repository (and
out of its ``.git`` folder). Two tables writing one target need markers of their own.

A table may also name the repository's formatter for its target, and ``defaults``
give settings to every table that does not set them itself::

```yaml
defaults:
  indent: marker                 # the begin marker line's own indentation
  format:                        # by language: a command, run without a shell
    mojo: [mojo, format, -q, "-"]                               # stdin to stdout
    python: [ruff, format, --quiet, --stdin-filename, "{path}", "-"]
    cpp: [clang-format, "--assume-filename={path}"]
tables:
  - name: ...
    format: [mojo, format, -q, "{file}"]   # a temporary copy formatted in place
```
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import NamedTuple

import yaml

from tuning_codegen.crosscheck import shared_formatters, shared_markers, targets_read
from tuning_codegen.errors import InputError, InputErrors, memory_named
from tuning_codegen.gcpause import paused_gc
from tuning_codegen.manifest import (
    MAP_TAG,
    MERGE_TAG,
    SEQ_TAG,
    compose_yaml,
    describe_key,
    describe_node,
)
from tuning_codegen.paths import (
    REGISTRY_NAME,
    RealPaths,
    find_git_root,
    find_registry,
    short_path,
)
from tuning_codegen.table import (
    Table,
)
from tuning_codegen.tablereader import (
    TOP_LEVEL_KEYS,
    Where,
    merge_key_error,
    read_defaults,
    read_table,
)
from tuning_codegen.textio import read_text
from tuning_codegen.yamlload import Constructor

__all__ = [
    "REGISTRY_NAME",
    "Registry",
    "discover_registry",
    "find_git_root",
    "find_registry",
    "load_registry",
    "parse_registry",
    "short_path",
]


class Registry(NamedTuple):
    path: str
    root: str
    tables: tuple[Table, ...]
    real: Mapping[str, str] = MappingProxyType({})  # each path -> resolved

    def real_path(self, path: str) -> str:
        return self.real.get(path) or os.path.realpath(path)


def discover_registry(config: str | None, cwd: str) -> Registry | None:
    """The registry ``--config`` names, else the one found from ``cwd`` up to the
    repository root (None: there is none)."""
    if config is not None:
        return load_registry(config)
    found = find_registry(cwd)
    return None if found is None else load_registry(short_path(found))


def unregistered(registry: Registry, files: Iterable[str]) -> list[str]:
    """Those of ``files`` that are neither the registry nor a file any of its tables
    reads or writes."""
    known = {registry.real_path(registry.path)}
    known.update(registry.real_path(p) for t in registry.tables for p in t.inputs())
    resolve = RealPaths()
    return [f for f in files if resolve(os.path.abspath(f)) not in known]


def load_registry(path: str | os.PathLike[str]) -> Registry:
    name = os.fspath(path)
    with memory_named(name):
        return parse_registry(read_text(name), name)


def parse_registry(text: str, name: str) -> Registry:
    """The registry ``name`` holding ``text`` (read from disk, or from the index)."""
    with paused_gc():  # a registry of 10,000 tables is a million objects, no garbage
        return _parse_registry(text, name)


def _parse_registry(text: str, name: str) -> Registry:
    root_node = compose_yaml(text, name)
    folder = os.path.dirname(os.path.realpath(name))
    root = find_git_root(folder) or folder
    where = Where(name, folder, root, RealPaths(), {}, os.getcwd(), {}, Constructor())
    tables_node, defaults_node = _check_top_level(root_node, name)
    defaults = read_defaults(defaults_node, name)
    errors: list[InputError] = []
    tables: list[Table] = []
    lines: dict[str, int] = {}
    for item in tables_node.value:
        try:
            table = read_table(item, where, defaults)
        except InputError as exc:
            errors.append(exc)
            continue
        line = item.start_mark.line + 1
        if table.name in lines:
            errors.append(
                InputError(
                    name,
                    f"table name '{table.name}' is used twice "
                    f"(first on line {lines[table.name]})",
                    line=line,
                )
            )
            continue
        lines[table.name] = line
        tables.append(table)
    where.real[name] = where.resolve(name)
    errors += shared_markers(tables, lines, where.real, name)
    errors += targets_read(tables, lines, where.real, name)
    errors += shared_formatters(tables, lines, where.real, name)
    if errors:
        raise InputErrors(errors)
    return Registry(name, where.root, tuple(tables), where.real)


def _check_top_level(
    root: yaml.Node | None, path: str
) -> tuple[yaml.SequenceNode, yaml.Node | None]:
    """The ``tables`` list and the ``defaults`` node (None: not given)."""
    if not isinstance(root, yaml.MappingNode) or root.tag != MAP_TAG:
        line = None if root is None else root.start_mark.line + 1
        what = "an empty document" if root is None else describe_node(root)
        raise InputError(
            path, f"expected a mapping with a 'tables' list, got {what}", line=line
        )
    found: dict[str, yaml.Node] = {}
    for key, value in root.value:
        if key.tag == MERGE_TAG:
            raise merge_key_error(key, path, "at the top level")
        if isinstance(key, yaml.ScalarNode) and key.value in TOP_LEVEL_KEYS:
            found[key.value] = value
        else:
            raise InputError(
                path,
                f"unknown top-level key {describe_key(key)} (expected 'tables', "
                "and optionally 'defaults')",
                line=key.start_mark.line + 1,
            )
    tables_node = found.get("tables")
    if tables_node is None:
        raise InputError(
            path,
            "no 'tables' key: list the tables under 'tables'",
            line=root.start_mark.line + 1,
        )
    if not isinstance(tables_node, yaml.SequenceNode) or tables_node.tag != SEQ_TAG:
        raise InputError(
            path,
            f"'tables' must be a list of mappings, got {describe_node(tables_node)}",
            line=tables_node.start_mark.line + 1,
        )
    return tables_node, found.get("defaults")
