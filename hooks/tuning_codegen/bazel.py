"""``--import-bazel BUILD``: the codegen test rules of a Bazel BUILD file as a registry.

A repository that runs Modular's ``tuning_codegen.py`` from Bazel has one test rule per
table, e.g. ``modular_run_binary_test(name = "sm100_bf16_tuning_codegen_test", args =
["--check", "--manifest=...", ...], binary = ":tuning_codegen")``. The BUILD file is
parsed with ``ast`` (Starlark is Python syntax) and never executed; only literal
strings, lists of them and ``+`` between them are read. What only Bazel would know is
refused at its line, never written down as a path: a make variable in an argument
(``$(location :t)``, ``$(execpath ...)``, ``$(VAR)``, ``$$``), a call (``select()``,
``glob()``, a macro), a variable. Paths stay as written: Bazel runs the tool from the
workspace root, so the registry is meant to be saved there.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import yaml

from tuning_codegen.errors import InputError, quote_path

CODEGEN_BINARY = "tuning_codegen"
REQUIRED = (
    "manifest",
    "snippet",
    "target",
    "begin-marker",
    "end-marker",
    "source-label",
)
OPTIONAL = ("indent", "language")
DROPPED = ("check",)
SUFFIXES = ("_tuning_codegen_test", "_test")
MAX_BUILD_BYTES = 16 * 2**20
MAKE_VARIABLE = re.compile(r"\$(\([^)]*\)?|\$|\w+|.?)")


class _NotStatic(Exception):
    """A value that only running Starlark would know (a variable, a call, ...)."""


@dataclass
class ImportedTable:
    name: str
    line: int
    flags: dict[str, str] = field(default_factory=dict)
    variants: dict[str, str] = field(default_factory=dict)


def import_bazel(text: str, path: str) -> str:
    """The ``.tuning-codegen.yaml`` text for every codegen rule in BUILD ``text``."""
    if len(text.encode()) > MAX_BUILD_BYTES:
        raise InputError(path, "BUILD file larger than 16 MiB; refusing to parse it")
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as exc:
        raise InputError(path, f"not parseable: {exc.msg}", line=exc.lineno) from None
    except (RecursionError, MemoryError, ValueError):
        raise InputError(path, "not parseable: nested too deeply") from None
    tables = [_table(call, path) for call in _codegen_calls(tree, path)]
    if not tables:
        raise InputError(
            path, "no rule runs the tuning codegen with the reference flags"
        )
    _check_unique(tables, path)
    return _registry_text(tables, path)


def _codegen_calls(tree: ast.AST, path: str) -> Iterator[ast.Call]:
    """Rule calls whose ``binary`` is the codegen (or that name none) and whose
    ``args`` hold the reference flags."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        if "args" not in keywords:
            continue
        binary = keywords.get("binary")
        if binary is not None and not _is_codegen_label(binary):
            continue  # a rule of another binary
        try:
            args = _strings(keywords["args"])
        except _NotStatic:
            if binary is not None or _mentions_codegen(node):
                raise _not_static(keywords["args"], path) from None
            continue
        if _has_reference_flags(args):
            _refuse_make_variables(keywords["args"], path)
            yield node


def _not_static(args: ast.expr, path: str) -> InputError:
    """What in a codegen rule's ``args`` only running Starlark would give, at its
    line: the first call (``select()``, ``glob()``) or variable."""
    what, line = "a value", args.lineno
    for node in ast.walk(args):
        if isinstance(node, ast.Call):
            name = ast.unparse(node.func)
            known = " (Bazel picks it by configuration)" if name == "select" else ""
            what, line = f"{name}(){known}", node.lineno
            break
        if isinstance(node, ast.Name | ast.Attribute):
            what, line = f"the variable {ast.unparse(node)}", node.lineno
            break
    return InputError(
        path,
        f"args of this codegen rule cannot be read without running Starlark: {what} "
        "is known to Bazel only; write them as a list of string literals",
        line=line,
    )


def _refuse_make_variables(args: ast.expr, path: str) -> None:
    """An argument holding a make variable (``$(location :t)``, ``$(VAR)``, ``$$``)
    is what Bazel expands it to, which only Bazel knows."""
    for node in ast.walk(args):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found = MAKE_VARIABLE.search(node.value)
            if found is not None:
                raise InputError(
                    path,
                    f"{node.value!r} holds the make variable {found.group()!r}, which "
                    "Bazel expands when it runs the rule; write the path it stands "
                    "for",
                    line=node.lineno,
                )


def _is_codegen_label(node: ast.expr) -> bool:
    if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
        return False
    label = node.value
    name = label.rsplit(":", 1)[1] if ":" in label else label.rsplit("/", 1)[-1]
    return name == CODEGEN_BINARY


def _mentions_codegen(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Name) and CODEGEN_BINARY in call.func.id


def _strings(node: ast.expr) -> list[str]:
    """A list literal of string literals (``+`` of lists and of strings allowed)."""
    if isinstance(node, ast.List | ast.Tuple):
        return [_string(item) for item in node.elts]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _strings(node.left) + _strings(node.right)
    raise _NotStatic


def _string(node: ast.expr) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _string(node.left) + _string(node.right)
    raise _NotStatic


def _has_reference_flags(args: list[str]) -> bool:
    names = {a[2:].partition("=")[0] for a in args if a.startswith("--")}
    return all(flag in names for flag in REQUIRED)


def _table(call: ast.Call, path: str) -> ImportedTable:
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    name_node = keywords.get("name")
    try:
        rule_name = _string(name_node) if name_node is not None else ""
    except _NotStatic:
        rule_name = ""
    if not rule_name:
        raise InputError(path, "a codegen rule needs a literal name", line=call.lineno)
    table = ImportedTable(_table_name(rule_name), call.lineno)
    for flag, value in _flag_values(_strings(keywords["args"]), path, call.lineno):
        if flag == "snippet-variant":
            _add_variant(table, value, path)
        elif flag in table.flags:
            raise InputError(path, f"--{flag} given twice", line=call.lineno)
        else:
            table.flags[flag] = value
    return table


def _table_name(rule_name: str) -> str:
    for suffix in SUFFIXES:
        if rule_name.endswith(suffix) and len(rule_name) > len(suffix):
            return rule_name[: -len(suffix)]
    return rule_name


def _flag_values(args: list[str], path: str, line: int) -> Iterator[tuple[str, str]]:
    """``--flag=value`` and ``--flag value`` alike; ``--check`` dropped."""
    position = 0
    while position < len(args):
        arg = args[position]
        position += 1
        if not arg.startswith("--"):
            raise InputError(path, f"unexpected argument {arg!r}", line=line)
        flag, sep, value = arg[2:].partition("=")
        if flag in DROPPED and not sep:
            continue
        if flag not in (*REQUIRED, *OPTIONAL, "snippet-variant"):
            raise InputError(path, f"unknown tuning_codegen flag --{flag}", line=line)
        if not sep:
            if position == len(args) or args[position].startswith("--"):
                raise InputError(path, f"--{flag} needs a value", line=line)
            value, position = args[position], position + 1
        yield flag, value


def _add_variant(table: ImportedTable, value: str, path: str) -> None:
    name, sep, snippet = value.partition("=")
    if not sep or not name or not snippet:
        raise InputError(
            path, f"--snippet-variant expects NAME=PATH, got {value!r}", line=table.line
        )
    if name in table.variants:
        raise InputError(path, f"snippet variant {name!r} given twice", line=table.line)
    table.variants[name] = snippet


def _check_unique(tables: list[ImportedTable], path: str) -> None:
    first: dict[str, int] = {}
    for table in tables:
        if table.name in first:
            raise InputError(
                path,
                f"two rules give the table name {table.name!r} "
                f"(line {first[table.name]} and line {table.line})",
                line=table.line,
            )
        first[table.name] = table.line


def _registry_text(tables: list[ImportedTable], path: str) -> str:
    entries = []
    for table in tables:
        entry: dict[str, object] = {"name": table.name}
        for flag in ("manifest", "snippet"):
            entry[flag] = table.flags[flag]
        if table.variants:
            entry["snippet_variants"] = dict(table.variants)
        for flag in ("target", "begin-marker", "end-marker", "source-label", *OPTIONAL):
            if flag in table.flags:
                entry[flag.replace("-", "_")] = table.flags[flag]
        entries.append(entry)
    body = yaml.safe_dump(
        {"tables": entries}, sort_keys=False, default_flow_style=False, width=1000,
        allow_unicode=True,
    )  # fmt: skip
    header = (
        "# Imported by tuning-codegen --import-bazel from:\n"
        f"#   {quote_path(path)}\n"
        "# One table per codegen test rule. Paths are relative to the Bazel workspace\n"
        "# root: save this file there as .tuning-codegen.yaml.\n"
    )
    return header + body
