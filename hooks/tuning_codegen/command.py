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
from typing import Any

import click

from tuning_codegen.bazel import import_bazel
from tuning_codegen.clirun import run_command
from tuning_codegen.commit.runner import hook_mode, split
from tuning_codegen.errors import (
    EXIT_INPUT_ERROR,
    EXIT_OK,
    InputError,
    InputErrors,
    heard_by,
)
from tuning_codegen.flags import BAZEL, FLAGS, REGISTRY, SINGLE, Flag, Request
from tuning_codegen.mdreport import MarkdownReporter
from tuning_codegen.report import REPORTERS, Reporter
from tuning_codegen.run import run_registry, run_single
from tuning_codegen.single import SINGLE_FLAGS, NameValue, single_table
from tuning_codegen.textio import read_text

PROG = "tuning-codegen"
EPILOG = """\b
Examples:
  tuning-codegen
      regenerate every table of .tuning-codegen.yaml
  tuning-codegen --check
      fail with a diff if any region is stale
  tuning-codegen --check --since origin/main
      check only the tables whose files changed
  tuning-codegen --list
      every table with its target and status
  tuning-codegen --check FILES...
      only the tables of these files (a manifest, snippet or target of each)
  tuning-codegen --check --format github
      in CI: annotate stale regions on their lines (json: one document)
  tuning-codegen --import-bazel BUILD.bazel > .tuning-codegen.yaml
      a registry from the reference's Bazel rules
  tuning-codegen --manifest tuning_table.yaml --snippet entry.mojo.snippet \\
      --target configs.mojo --begin-marker BEGIN-TUNING \\
      --end-marker END-TUNING --check
      one table, with the reference tool's flags
  tuning-codegen --hook [--check] [FILES...]
      what the pre-commit hooks run: judge the commit (the index); a hook's
      args: (--check, -q, --config PATH, --format github) go before FILES
\b
Exit status: 0 fresh or regenerated, 1 stale (--check; with --hook, also
when a file was rewritten), 2 bad input, 3 internal error (a bug: please
report it), 128+N killed by signal N (130: Ctrl-C).
"""


def _click_option(flag: Flag) -> Callable[[Callable[..., int]], Callable[..., int]]:
    """The click option of one row of ``FLAGS``."""
    settings: dict[str, Any] = {"help": flag.help}
    if flag.kind == "switch":
        settings["is_flag"] = True
    elif flag.kind == "choice":
        settings.update(type=click.Choice(flag.choices), default=flag.default)
    else:
        settings.update(metavar=flag.metavar, default=flag.default)
        settings["multiple"] = flag.kind == "repeat"
        if flag.field in TYPES:
            settings["type"] = TYPES[flag.field]
    if flag.show_default:
        settings["show_default"] = flag.show_default
    return click.option(*flag.names, flag.field, **settings)


def with_flags(function: Callable[..., int]) -> Callable[..., int]:
    """``function`` with every option of ``FLAGS``, in the table's order."""
    for flag in reversed(FLAGS):
        function = _click_option(flag)(function)
    return function


TYPES: dict[str, click.ParamType] = {"variants": NameValue()}


@click.command(
    name=PROG,
    epilog=EPILOG,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 80},
)
@click.version_option(package_name="kprofile", prog_name=PROG)
@click.argument("files", nargs=-1, type=click.Path())
@with_flags
def command(**fields: Any) -> int:
    """Render tuning manifests through snippets into the marked regions of source
    files."""
    fields["files"] = tuple(fields["files"])
    return dispatch(Request(**fields))


def dispatch(request: Request) -> int:
    """Run the mode the request's flags choose."""
    enter_build_working_directory()
    mode = chosen_mode(request)
    if mode == BAZEL:
        assert request.import_bazel is not None
        return print_imported_registry(request.import_bazel)
    reporter = {**REPORTERS, "markdown": MarkdownReporter}[request.fmt](
        quiet=request.quiet
    )
    if mode == SINGLE:
        return reported(reporter, lambda: _one_table(request, reporter))
    return reported(reporter, lambda: run_registry(request, os.getcwd(), reporter))


def chosen_mode(request: Request) -> str:
    """The mode of ``request`` (``BAZEL``, ``SINGLE`` or ``REGISTRY``), after refusing
    every flag the mode does not admit."""
    given = request.given()
    names = [f.long for f in given] + (["FILES"] if request.files else [])
    groups = {f.long: f.group for f in given}
    if request.import_bazel is not None:
        others = [n for n in names if n != "--import-bazel"]
        if others:
            raise click.UsageError(
                f"--import-bazel cannot be combined with {others[0]}"
            )
        return BAZEL
    if any(group == SINGLE for group in groups.values()):
        registry = [n for n in names if n == "FILES" or groups.get(n) == REGISTRY]
        if registry:
            raise click.UsageError(
                f"{registry[0]} cannot be combined with single-table flags "
                "(--manifest ...)"
            )
        missing = [f"--{k.replace('_', '-')}" for k in SINGLE_FLAGS
                   if getattr(request, k) is None]  # fmt: skip
        if missing:
            raise click.UsageError(f"single-table mode also needs {', '.join(missing)}")
        return SINGLE
    if request.hook and (request.since or request.list_tables):
        raise click.UsageError("--hook cannot be combined with --since or --list")
    return REGISTRY


def _one_table(request: Request, reporter: Reporter) -> int:
    assert request.manifest and request.snippet and request.target
    assert request.begin_marker is not None and request.end_marker is not None
    table = single_table(
        manifest=request.manifest,
        snippet=request.snippet,
        target=request.target,
        begin_marker=request.begin_marker,
        end_marker=request.end_marker,
        source_label=request.source_label,
        variants=request.variants,
        indent=request.indent,
        language=request.language,
    )
    return run_single(table, check=request.check, reporter=reporter)


def reported(reporter: Reporter, run: Callable[[], int]) -> int:
    """``run()``'s exit code, told to ``reporter``; its warnings as they come, and
    its errors before the error policy prints them on stderr."""
    try:
        with heard_by(reporter.warned):
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


def print_imported_registry(build_file: str) -> int:
    """``--import-bazel``: the registry on stdout; nothing else is read or written."""
    sys.stdout.write(import_bazel(read_text(build_file), build_file))
    return EXIT_OK


def run(argv: Sequence[str] | None = None) -> int:
    """The command under the error policy both console scripts share. A hook's
    command line is split first (``commit.runner.split``): click then reads its file
    names after a ``--``, so none of them can be taken for an option."""
    args = sys.argv[1:] if argv is None else list(argv)
    if hook_mode(args):
        options, files = split(args, hook=True)
        args = [*options, "--", *files]
    return run_command(command, args, PROG)
