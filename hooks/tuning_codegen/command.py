"""The ``tuning-codegen`` command: its options, and the mode they choose.

Two modes share one pipeline (render every table, splice in memory, then write or diff):
single-table mode takes the reference tool's flags; registry mode reads
``.tuning-codegen.yaml`` and handles every table a change affects. The entry point,
``tuning_codegen.cli``, comes here unless a hook run has nothing to do.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

import click

from tuning_codegen.bazel import import_bazel
from tuning_codegen.clirun import run_command
from tuning_codegen.errors import EXIT_INPUT_ERROR, EXIT_OK, InputError, InputErrors
from tuning_codegen.languages import DEFAULT_INDENT, LANGUAGES
from tuning_codegen.report import REPORTERS, Reporter
from tuning_codegen.run import run_registry, run_single
from tuning_codegen.single import (
    SINGLE_FLAGS,
    NameValue,
    check_single_flags,
    single_table,
)
from tuning_codegen.textio import read_text

PROG = "tuning-codegen"
EPILOG = """\b
Examples:
  tuning-codegen                      regenerate every table in .tuning-codegen.yaml
  tuning-codegen --check              fail with a diff if any region is stale
  tuning-codegen --check --since origin/main
                                      check only tables whose files changed
  tuning-codegen --list               every table with its target and status
  tuning-codegen --check FILES...     only the tables of these files (each must be
                                      a manifest, snippet or target of one)
  tuning-codegen --check --format github
                                      in CI: annotate stale regions on their lines
  tuning-codegen --check --format json
                                      one JSON document: tables, diffs, errors
  tuning-codegen --import-bazel BUILD.bazel > .tuning-codegen.yaml
                                      a registry from the reference's Bazel rules
  tuning-codegen --manifest tuning_table.yaml --snippet entry.mojo.snippet \\
      --target configs.mojo --begin-marker BEGIN-TUNING --end-marker END-TUNING \\
      --source-label tuning_table.yaml --check
                                      one table, the reference tool's flags
  tuning-codegen --hook -- FILES...    what the pre-commit hooks run
\b
Exit status: 0 fresh or regenerated, 1 stale (--check), 2 bad input,
3 internal error (a bug: please report it), 128+N killed by signal N
(130: Ctrl-C).
"""


@click.command(
    name=PROG,
    epilog=EPILOG,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(package_name="kprofile", prog_name=PROG)
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
    type=NameValue(),
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
    "if a registered file is not in the commit (the index).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(sorted(REPORTERS)),
    default="text",
    show_default=True,
    help="github: also print a GitHub Actions ::error command for each stale "
    "region and each error, so a pull request shows it on its line. json: one "
    "document on stdout (tables, status, diffs, errors with path and line).",
)
@click.option(
    "--import-bazel",
    metavar="BUILD_FILE",
    help="Print a .tuning-codegen.yaml holding every codegen test rule of this "
    "Bazel BUILD file (parsed, never run); save it at the workspace root.",
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
    variants: tuple[tuple[str, str], ...],
    target: str | None,
    begin_marker: str | None,
    end_marker: str | None,
    source_label: str | None,
    indent: str,
    language: str,
    hook: bool,
    fmt: str,
    import_bazel: str | None,
) -> int:
    """Render tuning manifests through snippets into the marked regions of source
    files."""
    enter_build_working_directory()
    registry_flags = ("--config", "--since", "--table", "--list", "FILES", "--hook")
    used = (config, since, table_names, list_tables, files, hook)
    registry_used = [f for f, on in zip(registry_flags, used) if on]
    single = (manifest, snippet, target, begin_marker, end_marker)
    given = {k: v for k, v in zip(SINGLE_FLAGS, single) if v is not None}
    if import_bazel is not None:
        extra = [f for f, on in (("--check", check), ("--snippet-variant", variants),
                                 ("--source-label", source_label)) if on]  # fmt: skip
        return print_imported_registry(import_bazel, [*registry_used, *given, *extra])
    reporter = REPORTERS[fmt]()
    if given or variants or source_label:
        check_single_flags(given, registry_used)

        def one_table() -> int:
            table = single_table(
                **given, source_label=source_label, variants=variants,
                indent=indent, language=language,
            )  # fmt: skip
            return run_single(table, check=check, reporter=reporter)

        return reported(reporter, one_table)
    if hook and (since or list_tables):
        raise click.UsageError("--hook cannot be combined with --since or --list")
    return reported(
        reporter,
        lambda: run_registry(
            config=config,
            table_names=table_names,
            since=since,
            files=files,
            check=check,
            list_only=list_tables,
            cwd=os.getcwd(),
            hook=hook,
            reporter=reporter,
        ),  # fmt: skip
    )


def reported(reporter: Reporter, run: Callable[[], int]) -> int:
    """``run()``'s exit code, told to ``reporter``; its errors too, before the error
    policy prints them on stderr."""
    try:
        code = run()
    except (InputError, InputErrors) as exc:
        reporter.failed(exc.errors if isinstance(exc, InputErrors) else (exc,))
        reporter.finish(EXIT_INPUT_ERROR)
        raise
    reporter.finish(code)
    return code


def enter_build_working_directory() -> None:
    """Under ``bazel run`` the tool starts in its runfiles; like the reference, work
    from where the user stands (``$BUILD_WORKING_DIRECTORY``), so paths given on the
    command line and the registry's discovery mean what they mean there."""
    folder = os.environ.get("BUILD_WORKING_DIRECTORY")
    if not folder:
        return
    try:
        os.chdir(folder)
    except OSError as exc:
        raise InputError(
            folder, f"BUILD_WORKING_DIRECTORY: cannot enter: {exc.strerror or exc}"
        ) from None


def print_imported_registry(build_file: str, others: Sequence[str]) -> int:
    """``--import-bazel``: the registry on stdout; nothing else is read or written."""
    if others:
        name = others[0] if others[0].startswith(("--", "FILES")) else f"--{others[0]}"
        raise click.UsageError(f"--import-bazel cannot be combined with {name}")
    sys.stdout.write(import_bazel(read_text(build_file), build_file))
    return EXIT_OK


def run(argv: Sequence[str] | None = None) -> int:
    """The command under the error policy both console scripts share."""
    return run_command(command, argv, PROG)
