"""One table of a registry (and the registry's ``defaults``), read and checked: its
keys, the types and choices of its settings, its paths placed inside the repository,
its formatter. Every mistake is an error at the key's line.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import yaml

from tuning_codegen.errors import InputError
from tuning_codegen.filenames import os_name
from tuning_codegen.languages import DEFAULT_INDENT, LANGUAGES
from tuning_codegen.manifest import (
    MAP_TAG,
    MERGE_TAG,
    construct_yaml,
    describe_key,
    describe_node,
)
from tuning_codegen.paths import RealPaths, placement_problem, short_path
from tuning_codegen.table import (
    Formatter,
    Table,
    default_source_label,
    setting_problems,
    unsafe_text,
)
from tuning_codegen.yamlload import Constructor

REQUIRED_KEYS = ("name", "manifest", "snippet", "target", "begin_marker", "end_marker")
OPTIONAL_KEYS = ("snippet_variants", "source_label", "indent", "language", "format")
KNOWN_KEYS = REQUIRED_KEYS + OPTIONAL_KEYS
_KNOWN = frozenset(KNOWN_KEYS)
DEFAULT_KEYS = ("indent", "language", "format")
TOP_LEVEL_KEYS = ("tables", "defaults")
INDENT_MARKER = "marker"
MAX_FORMAT_ARGS = 64
MAX_FORMAT_ARG = 4096


class Where(NamedTuple):
    """Where the registry is, and the paths resolved so far."""

    path: str
    folder: str
    root: str
    resolve: RealPaths
    real: dict[str, str]
    cwd: str  # asked once: every path is shown relative to it
    placed: dict[str, tuple[str, str, str | None]]  # value -> shown, real, problem
    constructor: Constructor  # one for every table: scalars worked out once


def read_defaults(node: yaml.Node | None, path: str) -> dict[str, Any]:
    """The ``defaults`` mapping, checked: ``indent``, ``language`` and ``format`` (a
    mapping of language names to commands)."""
    if node is None:
        return {}
    if not isinstance(node, yaml.MappingNode) or node.tag != MAP_TAG:
        raise InputError(
            path,
            f"'defaults' must be a mapping of {', '.join(DEFAULT_KEYS)}, got "
            f"{describe_node(node)}",
            line=node.start_mark.line + 1,
        )
    for key, _ in node.value:
        if key.tag == MERGE_TAG:
            raise merge_key_error(key, path, "in 'defaults'")
        if not (isinstance(key, yaml.ScalarNode) and key.value in DEFAULT_KEYS):
            raise InputError(
                path,
                f"unknown key {describe_key(key)} in 'defaults' (known keys: "
                f"{', '.join(DEFAULT_KEYS)})",
                line=key.start_mark.line + 1,
            )
    raw: dict[str, Any] = construct_yaml(node, path)

    def fail(key: str, message: str) -> InputError:
        return InputError(path, f"defaults: {message}", line=_key_line(node, key))

    _check_values(raw, fail, keys=("language",))
    formats = raw.get("format", {})
    if not isinstance(formats, dict) or not all(k in LANGUAGES for k in formats):
        raise fail(
            "format",
            "'format' must map language names "
            f"({', '.join(LANGUAGES)}) to formatter commands",
        )
    raw["format"] = {
        language: _formatter(
            command, lambda m: fail("format", m), f"defaults of {path}"
        )
        for language, command in formats.items()
    }
    return raw


def merge_key_error(key: yaml.Node, path: str, where: str) -> InputError:
    return InputError(
        path,
        f"a merge key ('<<') {where}: the registry takes none; write each table's "
        "settings out in full",
        line=key.start_mark.line + 1,
    )


def _check_keys(node: yaml.MappingNode, path: str) -> None:
    for key, _ in node.value:
        if key.tag == MERGE_TAG:
            raise merge_key_error(key, path, "in a table")
        if isinstance(key, yaml.ScalarNode) and key.value in _KNOWN:
            continue
        import difflib  # only when a key is wrong: keeps the hook's start-up small

        close = (
            difflib.get_close_matches(str(key.value), KNOWN_KEYS, n=1)
            if isinstance(key, yaml.ScalarNode)
            else []
        )
        hint = (
            f"; did you mean '{close[0]}'?"
            if close
            else f"; known keys: {', '.join(KNOWN_KEYS)}"
        )
        raise InputError(
            path,
            f"unknown key {describe_key(key)} in table{hint}",
            line=key.start_mark.line + 1,
        )


def read_table(node: yaml.Node, where: Where, defaults: Mapping[str, Any]) -> Table:
    path = where.path
    if not isinstance(node, yaml.MappingNode) or node.tag != MAP_TAG:
        raise InputError(
            path,
            f"each table must be a mapping, got {describe_node(node)}",
            line=node.start_mark.line + 1,
        )
    _check_keys(node, path)
    raw: dict[str, Any] = construct_yaml(node, path, where.constructor)
    label = f"table '{raw['name']}'" if isinstance(raw.get("name"), str) else "table"
    missing = [k for k in REQUIRED_KEYS if k not in raw]
    if missing:
        line = node.start_mark.line + 1
        raise InputError(path, f"{label} is missing {', '.join(missing)}", line=line)

    def fail(key: str, message: str) -> InputError:
        return InputError(path, f"{label}: {message}", line=_key_line(node, key))

    _check_values(raw, fail)

    def resolve(key: str, value: str) -> str:
        shown, real, problem = _placed(value, where)
        if problem is not None:
            raise fail(key, f"{key} '{value}' {problem}")
        where.real[shown] = real
        return shown

    language = raw.get("language", defaults.get("language", "mojo"))
    indent = raw.get("indent", defaults.get("indent", DEFAULT_INDENT))
    variants = raw.get("snippet_variants", {})
    table = Table(
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
        indent=DEFAULT_INDENT if indent == INDENT_MARKER else indent,
        language=LANGUAGES[language],
        formatter=_table_formatter(raw, defaults, language, label, path, fail),
        indent_from_marker=indent == INDENT_MARKER,
    )
    for key, problem in setting_problems(table):
        raise fail(key, problem)
    return table


def _table_formatter(
    raw: Mapping[str, Any],
    defaults: Mapping[str, Any],
    language: str,
    label: str,
    path: str,
    fail: Callable[[str, str], InputError],
) -> Formatter | None:
    """The table's own ``format`` (null: none, whatever the defaults say), else the
    default for its language."""
    if "format" not in raw:
        found: Formatter | None = defaults.get("format", {}).get(language)
        return found
    if raw["format"] is None:
        return None
    return _formatter(
        raw["format"], lambda message: fail("format", message), f"{label} in {path}"
    )


def _formatter(
    command: Any, fail: Callable[[str], InputError], origin: str
) -> Formatter:
    """A ``format`` command, checked: a non-empty list of one-line strings whose
    first is a program name looked up on PATH (never a path: nothing from the
    repository is run)."""
    if (
        not isinstance(command, list)
        or not command
        or len(command) > MAX_FORMAT_ARGS
        or not all(isinstance(arg, str) and arg for arg in command)
    ):
        raise fail(
            "'format' must be a command: a list of strings such as "
            '[mojo, format, -q, "{file}"] (or null for none)'
        )
    for arg in command:
        problem = unsafe_text(arg)
        if problem is not None or len(arg) > MAX_FORMAT_ARG:
            raise fail(f"'format' argument {arg[:40]!r} {problem or 'is too long'}")
    if "/" in command[0] or "\\" in command[0] or command[0].startswith("{"):
        raise fail(
            f"'format' names the program {command[0]!r} by a path; name a command "
            "found on PATH (nothing in the repository is run)"
        )
    return Formatter(tuple(command), origin)


def _placed(value: str, where: Where) -> tuple[str, str, str | None]:
    """A registered path as shown, resolved, and why it may not be used (each value
    worked out once: tables share snippets and targets). The path is in the OS's
    form (``filenames.os_name``) from here on."""
    if value not in where.placed:
        try:
            name = os_name(value)
        except UnicodeEncodeError as exc:
            char = f"U+{ord(value[exc.start]):04X}"
            refused = f"holds {char}, which no file name can hold"
            where.placed[value] = (value, value, refused)
            return where.placed[value]
        full = os.path.normpath(os.path.join(where.folder, name))
        real = where.resolve(full)
        problem = placement_problem(full, where.root, real)
        where.placed[value] = (short_path(full, where.cwd), real, problem)
    return where.placed[value]


def _check_values(
    raw: dict[str, Any],
    fail: Callable[[str, str], InputError],
    keys: Sequence[str] = (*REQUIRED_KEYS, "source_label", "language"),
) -> None:
    """Types and choices of a table's settings (``fail(key, message)`` locates)."""
    for key in keys:
        if key in raw and (not isinstance(raw[key], str) or not raw[key]):
            raise fail(key, f"'{key}' must be a non-empty string")
    if not isinstance(raw.get("indent", DEFAULT_INDENT), str):
        raise fail("indent", "'indent' must be a string of spaces or tabs, or 'marker'")
    language = raw.get("language", "mojo")
    if language not in LANGUAGES:
        choices = ", ".join(LANGUAGES)
        raise fail("language", f"unknown language '{language}' (choose from {choices})")
    variants = raw.get("snippet_variants", {})
    if not isinstance(variants, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and v for k, v in variants.items()
    ):
        raise fail(
            "snippet_variants",
            "'snippet_variants' must map variant names to snippet paths",
        )


def _key_line(node: yaml.MappingNode, key: str) -> int:
    for key_node, _ in node.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
            return int(key_node.start_mark.line) + 1
    return int(node.start_mark.line) + 1
