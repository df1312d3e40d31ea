"""Every flag of ``tuning-codegen``, once: the table click's options are made from, the
record a parsed command line becomes, and the one splitter of a hook's command line.

A new option is one row of ``FLAGS`` and one field of ``Request`` (same name), then
whatever the pipeline does with it; ``command.py`` builds the click option from the
row, and the no-op fast path (``cli.py``) reads the same row, so the two parsers
cannot drift apart (``tests/tuning_codegen/test_flags.py`` compares them).

A hook's command line is ``tuning-codegen --hook [ARGS] [FILES]``: pre-commit appends
the ``args:`` a user wrote to the entry, then the names of the files being committed
(names of files that exist, relative to the repository root, each once). So in hook
mode ``split`` ends the options at the first token that is no option, at ``--``, or at
a token naming an existing path: a staged file named ``-h`` or ``--check`` is a file
name, never an option. A token naming an existing path that occurs again later is an
option the user wrote (``args: [--check]``) followed by pre-commit's file of that name.
This module imports only the standard library: the fast path needs it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import NamedTuple

from tuning_codegen.languages import DEFAULT_INDENT, LANGUAGES

# What a flag admits, by mode: the mode a command line chooses is the one of the
# flags it gives (single-table flags, --import-bazel), else the registry mode.
REGISTRY = "registry"
SINGLE = "single"
BAZEL = "bazel"
OUTPUT = "output"  # how results are shown: any mode but --import-bazel
FORMATS = ("github", "json", "text")  # the reporters of tuning_codegen.report


class Flag(NamedTuple):
    """One option: its spellings, the ``Request`` field it sets, its kind
    (``switch``, ``value``, ``repeat`` or ``choice``), its help and what it admits."""

    names: tuple[str, ...]
    field: str
    kind: str
    help: str
    group: str
    metavar: str | None = None
    choices: tuple[str, ...] = ()
    default: object = None
    show_default: str | bool = False
    hook: bool = False  # accepted after --hook (in a pre-commit hook's args:)

    @property
    def long(self) -> str:
        return next(n for n in self.names if n.startswith("--"))

    @property
    def takes_value(self) -> bool:
        return self.kind != "switch"


FLAGS: tuple[Flag, ...] = (
    Flag(
        ("--check",),
        "check",
        "switch",
        "Write nothing; print a diff and exit 1 if a region is stale.",
        OUTPUT,
        hook=True,
    ),
    Flag(
        ("-q", "--quiet"),
        "quiet",
        "switch",
        "Print only errors, warnings and the one line that says a region is stale "
        "(no diffs, no 'regenerated' lines).",
        OUTPUT,
        hook=True,
    ),
    Flag(
        ("--config",),
        "config",
        "value",
        "Registry file (default: .tuning-codegen.yaml, searched upwards to the git "
        "root). In a pre-commit hook: args: [--config, tools/registry.yaml].",
        REGISTRY,
        metavar="PATH",
        hook=True,
    ),
    Flag(
        ("--table",),
        "tables",
        "repeat",
        "Only this table (repeatable).",
        REGISTRY,
        metavar="NAME",
    ),
    Flag(
        ("--since",),
        "since",
        "value",
        "Only tables whose files changed between REF and the working tree "
        "(e.g. origin/main).",
        REGISTRY,
        metavar="REF",
    ),
    Flag(
        ("--list",),
        "list_tables",
        "switch",
        "Print every table with its target and status (fresh, stale, error); exit 2 "
        "on an error, and with --check 1 if one is stale.",
        REGISTRY,
    ),
    Flag(
        ("--manifest",),
        "manifest",
        "value",
        "Single-table mode: the manifest YAML.",
        SINGLE,
        metavar="PATH",
    ),
    Flag(
        ("--snippet",),
        "snippet",
        "value",
        "Single-table mode: the snippet template.",
        SINGLE,
        metavar="PATH",
    ),
    Flag(
        ("--snippet-variant",),
        "variants",
        "repeat",
        "Single-table mode: a snippet for entries with _template: NAME (repeatable).",
        SINGLE,
        metavar="NAME=PATH",
    ),
    Flag(
        ("--target",),
        "target",
        "value",
        "Single-table mode: the file holding the region.",
        SINGLE,
        metavar="PATH",
    ),
    Flag(
        ("--begin-marker",),
        "begin_marker",
        "value",
        "Single-table mode: text of the line before the region.",
        SINGLE,
        metavar="TEXT",
    ),
    Flag(
        ("--end-marker",),
        "end_marker",
        "value",
        "Single-table mode: text of the line after the region.",
        SINGLE,
        metavar="TEXT",
    ),
    Flag(
        ("--source-label",),
        "source_label",
        "value",
        "Single-table mode: name in the provenance comment (default: the manifest's "
        "file name).",
        SINGLE,
        metavar="TEXT",
    ),
    Flag(
        ("--indent",),
        "indent",
        "value",
        "Single-table mode: indent of the generated lines.",
        SINGLE,
        metavar="TEXT",
        default=DEFAULT_INDENT,
        show_default="8 spaces",
    ),
    Flag(
        ("--language",),
        "language",
        "choice",
        "Single-table mode: comment prefix and boolean/null literals.",
        SINGLE,
        choices=tuple(sorted(LANGUAGES)),
        default="mojo",
        show_default=True,
    ),
    Flag(
        ("--hook",),
        "hook",
        "switch",
        "Pre-commit mode: judge the commit (the index): only the tables its changes "
        "touch (FILES, else what is staged), reading every file as staged; fail if a "
        "registered file is not in the commit, and exit 1 whenever a file was "
        "rewritten.",
        REGISTRY,
        hook=True,
    ),
    Flag(
        ("--format",),
        "fmt",
        "choice",
        "github: also print a GitHub Actions ::error command for each stale region "
        "and each error, so a pull request shows it on its line. json: one document "
        "on stdout (tables, status, diffs, errors with path and line).",
        OUTPUT,
        choices=FORMATS,
        default="text",
        show_default=True,
        hook=True,
    ),
    Flag(
        ("--import-bazel",),
        "import_bazel",
        "value",
        "Print a .tuning-codegen.yaml holding every codegen test rule of this Bazel "
        "BUILD file (parsed, never run); save it at the workspace root.",
        BAZEL,
        metavar="BUILD_FILE",
    ),
)
BY_NAME = {name: flag for flag in FLAGS for name in flag.names}


class Request(NamedTuple):
    """A parsed command line: one field per row of ``FLAGS``, and the file names."""

    files: tuple[str, ...] = ()
    check: bool = False
    quiet: bool = False
    config: str | None = None
    tables: tuple[str, ...] = ()
    since: str | None = None
    list_tables: bool = False
    manifest: str | None = None
    snippet: str | None = None
    variants: tuple[tuple[str, str], ...] = ()
    target: str | None = None
    begin_marker: str | None = None
    end_marker: str | None = None
    source_label: str | None = None
    indent: str = DEFAULT_INDENT
    language: str = "mojo"
    hook: bool = False
    fmt: str = "text"
    import_bazel: str | None = None

    def given(self) -> list[Flag]:
        """The flags set to something other than their default, in table order."""
        return [f for f in FLAGS if getattr(self, f.field) != _default(f)]


def _default(flag: Flag) -> object:
    if flag.kind == "repeat":
        return ()
    if flag.kind == "switch":
        return False
    return flag.default


class UsageProblem(Exception):
    """A command line the parser refuses: click's wording, without click."""


def hook_mode(args: Sequence[str]) -> bool:
    """Whether ``--hook`` is among the options (before any ``--``)."""
    for arg in args:
        if arg == "--":
            return False
        if arg == "--hook":
            return True
    return False


def split(args: Sequence[str], *, hook: bool) -> tuple[list[str], list[str]]:
    """``args`` cut into option tokens and file names (see the module's docstring);
    without ``hook``, only ``--`` ends the options, and a token that is no option is a
    file wherever it stands, as click reads it."""
    options: list[str] = []
    files: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--":
            return options, files + list(args[index + 1 :])
        if hook and _is_file(arg, args, index):
            return options, files + list(args[index:])
        if arg.startswith("-") and arg != "-":
            taken = _option_tokens(args, index)
            options += args[index : index + taken]
            index += taken
            continue
        if hook:
            return options, files + list(args[index:])
        files.append(arg)
        index += 1
    return options, files


def _is_file(arg: str, args: Sequence[str], index: int) -> bool:
    """A token naming an existing path is pre-commit's file name, unless the same
    token comes again (the user's option, then pre-commit's file)."""
    return os.path.lexists(arg) and arg not in args[index + 1 :]


def _option_tokens(args: Sequence[str], index: int) -> int:
    """How many tokens the option at ``index`` takes: 1, or 2 with its value."""
    arg = args[index]
    name = arg.partition("=")[0] if arg.startswith("--") else arg
    flag = BY_NAME.get(name)
    if flag is None or not flag.takes_value or "=" in arg:
        return 1
    return 2 if index + 1 < len(args) else 1


def parse_fast(args: Sequence[str]) -> Request | None:
    """The request of a hook run that a quick answer can serve (``--hook`` and only
    flags a pre-commit hook's ``args:`` take: ``--check``, ``-q``, ``--config``,
    ``--format text|github``), or None for anything else: click parses that."""
    if not hook_mode(args):
        return None
    options, files = split(args, hook=True)
    values: dict[str, object] = {}
    index = 0
    while index < len(options):
        arg = options[index]
        name, equals, inline = arg.partition("=") if arg.startswith("--") else (
            arg, "", ""
        )  # fmt: skip
        flag = BY_NAME.get(name)
        if flag is None or not flag.hook or (equals and not flag.takes_value):
            return None
        if flag.takes_value:
            if equals:
                value = inline
            elif index + 1 < len(options):
                index += 1
                value = options[index]
            else:
                return None
            if flag.kind == "choice" and value not in ("text", "github"):
                return None  # json prints a document even for nothing to do
            values[flag.field] = value
        else:
            values[flag.field] = True
        index += 1
    return Request(files=tuple(files), **values)  # type: ignore[arg-type]
