"""What a run prints: the report on stdout (text, Markdown or JSON, with JSON's header
of metric, inputs, skipped files, files written and the failed gate), then on stderr
the notes, how many inputs were skipped and why a gate failed."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, NamedTuple

from kprofile.core.metric import Metric
from kprofile.errors import PROG, InvalidInput, Notice
from kprofile.inputs.load import Results
from kprofile.render import render
from kprofile.render.section import Section
from tuning_codegen.errors import one_line


class Report(NamedTuple):
    sections: tuple[Section, ...]
    metric: Metric | None
    sources: tuple[Results, ...]  # the input files as analysed
    written: tuple[str, ...]
    notes: tuple[str, ...]
    failed: str | None


def print_report(
    report: Report,
    skipped: Sequence[InvalidInput],
    *,
    fmt: str,
    colour: str,
    quiet: bool = False,
) -> None:
    """The report on stdout, then each note once on stderr (a ``Notice`` not at
    all when ``quiet``)."""
    header = json_header(report, skipped)
    render(report.sections, fmt, sys.stdout, header, colour=colour)
    for note in dict.fromkeys(report.notes):
        if not (quiet and isinstance(note, Notice)):
            print(one_line(note), file=sys.stderr)
    if skipped:
        total = len(skipped) + len(report.sources)
        print(f"{PROG}: skipped {len(skipped)} of {total} input files", file=sys.stderr)
    if report.failed is not None:
        print(f"{PROG}: {report.failed}", file=sys.stderr)


def json_header(report: Report, skipped: Sequence[InvalidInput]) -> dict[str, Any]:
    metric = report.metric
    return {
        "metric": None
        if metric is None
        else {"column": metric.column, "higher_is_better": metric.higher_is_better},
        "inputs": [r.path for r in report.sources],
        "skipped": [
            {"path": s.path, "kind": s.kind, "reason": s.reason} for s in skipped
        ],
        "written": list(report.written),
        "failed": report.failed,
    }
