"""The table registry, ``.tuning-codegen.yaml``: every table of a repository, listed once.

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
Paths are relative to the registry's folder and must stay inside the repository.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from hooks.errors import CodegenError, CodegenErrors
from hooks.languages import LANGUAGES
from hooks.manifest import compose_yaml, construct_yaml
from hooks.render import DEFAULT_INDENT
from hooks.table import Table, default_source_label
from hooks.textio import read_text

REGISTRY_NAME = ".tuning-codegen.yaml"
REQUIRED_KEYS = ("name", "manifest", "snippet", "target", "begin_marker", "end_marker")
OPTIONAL_KEYS = ("snippet_variants", "source_label", "indent", "language")
PATH_KEYS = ("manifest", "snippet", "target")


@dataclass(frozen=True)
class Registry:
    path: str
    root: str
    tables: tuple[Table, ...]


def find_git_root(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def find_registry(start: Path) -> Path | None:
    """Walk up from ``start`` to the git root (or the filesystem root) for the registry."""
    start = start.resolve()
    stop = find_git_root(start)
    for folder in (start, *start.parents):
        candidate = folder / REGISTRY_NAME
        if candidate.is_file():
            return candidate
        if folder == stop:
            break
    return None


def load_registry(path: str | os.PathLike[str]) -> Registry:
    name = os.fspath(path)
    root_node = compose_yaml(read_text(name), name)
    folder = Path(name).resolve().parent
    repo_root = find_git_root(folder) or folder
    tables_node = _check_top_level(root_node, name)
    errors: list[CodegenError] = []
    tables: list[Table] = []
    first_line: dict[str, int] = {}
    for item in tables_node.value:
        try:
            table = _table(item, name, folder, repo_root)
        except CodegenError as exc:
            errors.append(exc)
            continue
        line = item.start_mark.line + 1
        if table.name in first_line:
            errors.append(
                CodegenError(
                    name,
                    f"table name '{table.name}' is used twice (first on line {first_line[table.name]})",
                    line=line,
                )
            )
            continue
        first_line[table.name] = line
        tables.append(table)
    if errors:
        raise CodegenErrors(errors)
    return Registry(name, str(repo_root), tuple(tables))


def _check_top_level(root: yaml.Node | None, path: str) -> yaml.SequenceNode:
    if not isinstance(root, yaml.MappingNode):
        line = None if root is None else root.start_mark.line + 1
        raise CodegenError(path, "expected a mapping with a 'tables' list", line=line)
    tables_node: yaml.Node | None = None
    for key, value in root.value:
        if key.value == "tables":
            tables_node = value
        else:
            raise CodegenError(
                path,
                f"unknown top-level key '{key.value}' (expected 'tables')",
                line=key.start_mark.line + 1,
            )
    if tables_node is None:
        raise CodegenError(
            path,
            "no 'tables' key: list the tables under 'tables'",
            line=root.start_mark.line + 1,
        )
    if not isinstance(tables_node, yaml.SequenceNode):
        raise CodegenError(
            path,
            "'tables' must be a list of mappings",
            line=tables_node.start_mark.line + 1,
        )
    return tables_node


def _table(node: yaml.Node, path: str, folder: Path, repo_root: Path) -> Table:
    line = node.start_mark.line + 1
    if not isinstance(node, yaml.MappingNode):
        raise CodegenError(path, "each table must be a mapping", line=line)
    known = REQUIRED_KEYS + OPTIONAL_KEYS
    for key, _ in node.value:
        if key.value not in known:
            close = difflib.get_close_matches(str(key.value), known, n=1)
            hint = (
                f"; did you mean '{close[0]}'?"
                if close
                else f"; known keys: {', '.join(known)}"
            )
            raise CodegenError(
                path,
                f"unknown key '{key.value}' in table{hint}",
                line=key.start_mark.line + 1,
            )
    raw: dict[str, Any] = construct_yaml(node, path)
    label = f"table '{raw['name']}'" if isinstance(raw.get("name"), str) else "table"
    missing = [k for k in REQUIRED_KEYS if k not in raw]
    if missing:
        raise CodegenError(path, f"{label} is missing {', '.join(missing)}", line=line)
    for key in (*REQUIRED_KEYS, "source_label", "language"):
        if key in raw and (not isinstance(raw[key], str) or not raw[key]):
            raise CodegenError(
                path,
                f"{label}: '{key}' must be a non-empty string",
                line=_key_line(node, key),
            )
    indent = raw.get("indent", DEFAULT_INDENT)
    if not isinstance(indent, str) or indent.strip(" \t"):
        raise CodegenError(
            path,
            f"{label}: 'indent' must be a string of spaces or tabs",
            line=_key_line(node, "indent"),
        )
    language = raw.get("language", "mojo")
    if language not in LANGUAGES:
        raise CodegenError(
            path,
            f"{label}: unknown language '{language}' (choose from {', '.join(LANGUAGES)})",
            line=_key_line(node, "language"),
        )
    variants = raw.get("snippet_variants", {})
    if not isinstance(variants, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and v for k, v in variants.items()
    ):
        raise CodegenError(
            path,
            f"{label}: 'snippet_variants' must map variant names to snippet paths",
            line=_key_line(node, "snippet_variants"),
        )

    def resolve(key: str, value: str) -> str:
        full = os.path.normpath(folder / value)
        real = os.path.realpath(full)
        if os.path.commonpath([real, str(repo_root)]) != str(repo_root):
            raise CodegenError(
                path,
                f"{label}: {key} '{value}' resolves outside the repository ({repo_root})",
                line=_key_line(node, key),
            )
        return short_path(full)

    return Table(
        name=raw["name"],
        manifest=resolve("manifest", raw["manifest"]),
        snippet=resolve("snippet", raw["snippet"]),
        target=resolve("target", raw["target"]),
        begin_marker=raw["begin_marker"],
        end_marker=raw["end_marker"],
        source_label=raw.get("source_label") or default_source_label(raw["manifest"]),
        snippet_variants={
            k: resolve("snippet_variants", v) for k, v in variants.items()
        },
        indent=indent,
        language=LANGUAGES[language],
    )


def short_path(path: str) -> str:
    """``path`` relative to the working directory when it lies below it, for messages."""
    rel = os.path.relpath(path)
    return path if rel == ".." or rel.startswith(".." + os.sep) else rel


def _key_line(node: yaml.MappingNode, key: str) -> int:
    for key_node, _ in node.value:
        if key_node.value == key:
            return int(key_node.start_mark.line) + 1
    return int(node.start_mark.line) + 1
