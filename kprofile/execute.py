"""Executing a parsed command line: load the inputs, run the mode, print the report
(stdout) and the messages (stderr), and choose the exit code: 1 when a gate failed
(``Outcome.failed``, said last on stderr). ``kprofile.cli`` parses
the flags and calls ``execute`` once it knows the analyzer's stack is installed.
"""

from __future__ import annotations

import sys
from typing import Any

from kprofile.errors import PROG, usage_error
from kprofile.options import Options
from kprofile.outcome import NoUsableInput, Outcome
from kprofile.progress import SILENT, Progress
from kprofile.render import render
from kprofile.render.progress import TerminalProgress
from kprofile.run import load, run
from tuning_codegen.colour import wants_colour
from tuning_codegen.errors import EXIT_INPUT_ERROR, EXIT_OK, EXIT_STALE, one_line


def execute(options: Options) -> int:
    mode, outcome = load(options, _progress(options))
    for record in outcome.skipped:
        print(record, file=sys.stderr)
    for results in outcome.inputs:
        for warning in results.warnings:
            print(one_line(warning), file=sys.stderr)
    try:
        run(options, mode, outcome)
    except MemoryError:  # inputs within every limit can still exceed this machine
        raise usage_error(
            "not enough memory for this analysis of the inputs; narrow them "
            "(--query, fewer files)"
        ) from None
    except NoUsableInput as exc:
        count = len(exc.skipped)
        files = "file" if count == 1 else "files"
        print(
            f"{PROG}: error: no usable input ({count} {files} skipped)", file=sys.stderr
        )
        return EXIT_INPUT_ERROR
    _print(options, outcome)
    for message in outcome.messages:
        print(one_line(message), file=sys.stderr)
    if outcome.skipped:
        total = len(outcome.skipped) + len(outcome.sources)
        skipped = len(outcome.skipped)
        print(f"{PROG}: skipped {skipped} of {total} input files", file=sys.stderr)
    if outcome.failed is not None:
        print(f"{PROG}: {outcome.failed}", file=sys.stderr)
        return EXIT_STALE
    return EXIT_OK


def _progress(options: Options) -> Progress:
    """rich's display on a terminal's stderr; nothing in a pipe or with -q."""
    if options.quiet or not sys.stderr.isatty():
        return SILENT
    return TerminalProgress(sys.stderr, colour=wants_colour(sys.stderr, options.color))


def _print(options: Options, outcome: Outcome) -> None:
    header = _json_header(outcome)
    render(outcome.sections, options.format, sys.stdout, header, colour=options.color)


def _json_header(outcome: Outcome) -> dict[str, Any]:
    metric = outcome.metric
    return {
        "metric": None
        if metric is None
        else {"column": metric.column, "higher_is_better": metric.higher_is_better},
        "inputs": [r.path for r in outcome.sources],
        "skipped": [
            {"path": s.path, "kind": s.kind, "reason": s.reason}
            for s in outcome.skipped
        ],
        "written": list(outcome.written),
        "failed": outcome.failed,
    }
