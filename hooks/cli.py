"""``tuning-codegen``: regenerate or check the generated regions of tuning tables.

Two modes share one pipeline (render every table, splice in memory, then write or diff):
single-table mode takes the reference tool's flags; registry mode reads
``.tuning-codegen.yaml`` and handles every table a change affects.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import click

from hooks.clirun import run_command
from hooks.errors import CodegenError
from hooks.languages import DEFAULT_INDENT, LANGUAGES
from hooks.table import Table, default_source_label, setting_problems

PROG = "tuning-codegen"
SINGLE_FLAGS = ("manifest", "snippet", "target", "begin_marker", "end_marker")
SETTING_FLAGS = {
    "name": "--target",
    "begin_marker": "--begin-marker",
    "end_marker": "--end-marker",
    "source_label": "--source-label",
    "indent": "--indent",
}

EPILOG = """\b
Examples:
  tuning-codegen                      regenerate every table in .tuning-codegen.yaml
  tuning-codegen --check              fail with a diff if any region is stale
  tuning-codegen --check --since origin/main
                                      check only tables whose files changed
  tuning-codegen --list               every table with its target and status
  tuning-codegen --manifest tuning_table.yaml --snippet entry.mojo.snippet \\
      --target configs.mojo --begin-marker BEGIN-TUNING --end-marker END-TUNING \\
      --source-label tuning_table.yaml --check
                                      one table, the reference tool's flags
\b
Exit status: 0 fresh or regenerated, 1 stale (--check), 2 bad input,
3 internal error (a bug: please report it).
"""


def _parse_variant(value: str) -> tuple[str, str]:
    name, sep, path = value.partition("=")
    if not sep or not name or not path:
        raise CodegenError("--snippet-variant", f"expected NAME=PATH, got {value!r}")
    return name, path


def single_table(
    *,
    manifest: str,
    snippet: str,
    target: str,
    begin_marker: str,
    end_marker: str,
    source_label: str | None,
    variants: Sequence[str],
    indent: str,
    language: str,
) -> Table:
    parsed: dict[str, str] = {}
    for value in variants:
        name, path = _parse_variant(value)
        if name in parsed:
            raise CodegenError("--snippet-variant", f"variant '{name}' given twice")
        parsed[name] = path
    table = Table(
        name=os.path.basename(target),
        manifest=manifest,
        snippet=snippet,
        target=target,
        begin_marker=begin_marker,
        end_marker=end_marker,
        source_label=source_label or default_source_label(manifest),
        snippet_variants=parsed,
        indent=indent,
        language=LANGUAGES[language],
    )
    for setting, problem in setting_problems(table):
        raise CodegenError(SETTING_FLAGS[setting], problem)
    return table


@click.command(
    name=PROG,
    epilog=EPILOG,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.argument("files", nargs=-1, type=click.Path())
@click.option(
    "--check",
    is_flag=True,
    help="Write nothing; print a diff and exit 1 if a region is stale.",
)
@click.option(
    "--config",
    "config",
    metavar="PATH",
    help="Registry file (default: .tuning-codegen.yaml, searched upwards to the git "
    "root).",
)
@click.option(
    "--table",
    "table_names",
    metavar="NAME",
    multiple=True,
    help="Only this table (repeatable).",
)
@click.option(
    "--since",
    metavar="REF",
    help="Only tables whose files changed between REF and the working tree "
    "(e.g. origin/main).",
)
@click.option(
    "--list",
    "list_tables",
    is_flag=True,
    help="Print every table with its target and status (fresh, stale, error); "
    "exit 2 on an error, and with --check 1 if one is stale.",
)
@click.option(
    "--manifest", metavar="PATH", help="Single-table mode: the manifest YAML."
)
@click.option(
    "--snippet", metavar="PATH", help="Single-table mode: the snippet template."
)
@click.option(
    "--snippet-variant",
    "variants",
    metavar="NAME=PATH",
    multiple=True,
    help="Single-table mode: a snippet for entries with _template: NAME (repeatable).",
)
@click.option(
    "--target", metavar="PATH", help="Single-table mode: the file holding the region."
)
@click.option(
    "--begin-marker",
    metavar="TEXT",
    help="Single-table mode: text of the line before the region.",
)
@click.option(
    "--end-marker",
    metavar="TEXT",
    help="Single-table mode: text of the line after the region.",
)
@click.option(
    "--source-label",
    metavar="TEXT",
    help="Single-table mode: name in the provenance comment (default: the "
    "manifest's file name).",
)
@click.option(
    "--indent",
    default=DEFAULT_INDENT,
    show_default="8 spaces",
    help="Single-table mode: indent of the generated lines.",
)
@click.option(
    "--language",
    type=click.Choice(sorted(LANGUAGES)),
    default="mojo",
    show_default=True,
    help="Single-table mode: comment prefix and boolean/null literals.",
)
@click.option(
    "--hook",
    is_flag=True,
    help="Pre-commit mode: only tables the FILES touch (none given: none), and fail "
    "if a registered file is deleted or renamed.",
)
def command(
    files: tuple[str, ...],
    check: bool,
    config: str | None,
    table_names: tuple[str, ...],
    since: str | None,
    list_tables: bool,
    manifest: str | None,
    snippet: str | None,
    variants: tuple[str, ...],
    target: str | None,
    begin_marker: str | None,
    end_marker: str | None,
    source_label: str | None,
    indent: str,
    language: str,
    hook: bool,
) -> int:
    """Render tuning manifests through snippets into the marked regions of source
    files."""
    from hooks.run import run_registry, run_single  # keeps --help fast

    single = (manifest, snippet, target, begin_marker, end_marker)
    given = {k: v for k, v in zip(SINGLE_FLAGS, single) if v is not None}
    if given or variants or source_label:
        registry_flags = ("--config", "--since", "--table", "--list", "FILES", "--hook")
        used = (config, since, table_names, list_tables, files, hook)
        _check_single_flags(given, [f for f, on in zip(registry_flags, used) if on])
        table = single_table(
            **given,
            source_label=source_label,
            variants=variants,
            indent=indent,
            language=language,
        )
        return run_single(table, check=check)
    if hook and (since or list_tables):
        raise click.UsageError("--hook cannot be combined with --since or --list")
    return run_registry(
        config=config,
        table_names=table_names,
        since=since,
        files=files,
        check=check,
        list_only=list_tables,
        cwd=Path.cwd(),
        hook=hook,
    )


def _check_single_flags(given: dict[str, str], registry_flags: list[str]) -> None:
    if registry_flags:
        raise click.UsageError(
            f"{registry_flags[0]} cannot be combined with single-table flags "
            "(--manifest ...)"
        )
    missing = [f"--{k.replace('_', '-')}" for k in SINGLE_FLAGS if k not in given]
    if missing:
        raise click.UsageError(f"single-table mode also needs {', '.join(missing)}")


def main(argv: Sequence[str] | None = None) -> int:
    return run_command(command, argv, PROG)


if __name__ == "__main__":
    raise SystemExit(main())
