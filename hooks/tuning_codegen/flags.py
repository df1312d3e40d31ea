"""Every flag of ``tuning-codegen``, once: the table click's options are made from, and
the record a parsed command line becomes.

A new option is one row of ``FLAGS`` and one field of ``Request`` (same name), then
whatever the pipeline does with it; ``command.py`` builds the click option from the
row, and the no-op fast path (``cli.py``, through ``commit.runner``) reads the same
row, so the two parsers cannot drift apart (``tests/tuning_codegen/test_flags.py``
compares them). This module imports only the standard library: the fast path needs
it.
"""

from __future__ import annotations

from typing import NamedTuple

from tuning_codegen.languages import DEFAULT_INDENT, LANGUAGES

# What a flag admits, by mode: the mode a command line chooses is the one of the
# flags it gives (single-table flags, --import-bazel), else the registry mode.
REGISTRY = "registry"
SINGLE = "single"
BAZEL = "bazel"
OUTPUT = "output"  # how results are shown: any mode but --import-bazel
FORMATS = (
    "github",
    "json",
    "markdown",
    "text",
)  # the reporters of tuning_codegen.report


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
        "touch (what git has staged, against each parent of a merge, and FILES), "
        "reading every file as staged; fail if a registered file is not in the "
        "commit, and exit 1 whenever a file was rewritten.",
        REGISTRY,
        hook=True,
    ),
    Flag(
        ("--format",),
        "fmt",
        "choice",
        "github: also print a GitHub Actions ::error command for each stale region "
        "and each error, so a pull request shows it on its line. json: one document "
        "on stdout (tables, status, diffs, errors with path and line). markdown: the "
        "report as Markdown (each stale region's entry, the diffs fenced), for a "
        "pull request comment or >> $GITHUB_STEP_SUMMARY.",
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
