"""One kprofile run, in the order it happens: check the command line against the mode
table, load every input, prepare them (``--query``, the metric, ``--combine``), make
the chosen mode's request and call its handler, apply what it returned (``-o``,
``--update``, the ``--combine`` report), print the report (stdout) and the messages
(stderr), and choose the exit code: 1 when a gate failed (``ModeResult.failed``,
said last on stderr), 2 when no input was usable.

The only module that reads the whole ``Options``, apart from the mode table that
makes each mode's request from it (``kprofile.modes``); ``kprofile.cli`` parses the
flags and calls ``run`` once it knows the analyzer's stack is installed.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from kprofile.core.metric import Metric
from kprofile.core.values import counted
from kprofile.errors import PROG, InvalidInput, KprofileError, usage_error
from kprofile.inputs.load import Results, load_inputs
from kprofile.inputs.sniff import expect_manifest
from kprofile.modes import Mode
from kprofile.modes.checks import check_options
from kprofile.modes.noise import noise_sections
from kprofile.modes.pictures import combine_pictures
from kprofile.modes.result import ModeResult
from kprofile.options import Options
from kprofile.prepare import prepare
from kprofile.progress import SILENT, Progress
from kprofile.render.progress import TerminalProgress
from kprofile.render.section import Picture, Section
from kprofile.report import Report, json_header, print_report
from tuning_codegen.colour import wants_colour
from tuning_codegen.errors import EXIT_INPUT_ERROR, EXIT_OK, EXIT_STALE, one_line

if TYPE_CHECKING:
    from kprofile.core.runs import CombinedRuns


def run(options: Options) -> int:
    mode = check_options(options)
    if options.update is not None and not os.path.exists(options.update):
        raise KprofileError(
            options.update,
            "--update: no such manifest; --update changes an existing one "
            "(-o PATH writes a new one)",
        )
    for flag, manifest in (("--update", options.update), ("--score", options.score)):
        if manifest is not None:
            expect_manifest(manifest, flag)
    if options.output:
        from kprofile.sinks.output import check_output  # start-up: -o only

        check_output(options.output)
    _check_folders(options)
    if options.rerun is not None:
        from kprofile.sinks.rerun import check_rerun  # start-up: --rerun only

        given = (options.spec, options.update, options.score)
        check_rerun(options.rerun, [*options.files, *(g for g in given if g)])
    progress = _progress(options)
    base, base_skipped = load_inputs(
        options.baseline, max_rows=options.max_rows, progress=progress
    )
    loaded, skipped = load_inputs(
        options.files, max_rows=options.max_rows, progress=progress
    )
    skipped = [*base_skipped, *skipped]
    _say_input_problems([*base, *loaded], skipped)
    for what, found in (("baseline", base if options.baseline else [None]),
                        ("input", loaded)):  # fmt: skip
        if not found:
            files = "file" if len(skipped) == 1 else "files"
            print(
                f"{PROG}: error: no usable {what} ({len(skipped)} {files} skipped)",
                file=sys.stderr,
            )
            return EXIT_INPUT_ERROR
    try:
        report = _analyse(options, mode, [*base, *loaded], progress, len(base))
    except MemoryError:  # inputs within every limit can still exceed this machine
        raise usage_error(
            "not enough memory for this analysis of the inputs; narrow them "
            "(--query, fewer files)"
        ) from None
    print_report(
        report, skipped, fmt=options.format, colour=options.color, quiet=options.quiet
    )
    return EXIT_OK if report.failed is None else EXIT_STALE


def _analyse(
    options: Options,
    mode: Mode,
    loaded: Sequence[Results],
    progress: Progress,
    baseline: int,
) -> Report:
    """Prepare the inputs, run the mode, and hand what it made to the sinks.
    ``baseline``: how many of the first inputs are ``--baseline``'s."""
    prepared, runs, notes = prepare(
        loaded,
        needs_metric=mode.metric,
        query=options.query,
        metric=options.metric,
        higher=options.higher_is_better,
        combine=options.combine,
        pivots=options.pivots,
        progress=progress,
        pooled=mode.pools,
        writes="-o" if options.output else "--update" if options.update else None,
        spec=options.spec,
        baseline=baseline,
    )
    result: ModeResult = mode.handler(mode.request(options, prepared))
    sections, pictures = _with_noise(options, result, runs, prepared.metric)
    written, notes = [*result.written], [*notes, *result.notes]
    if options.output:
        from kprofile.sinks.output import write_output  # start-up: -o only

        path, note = write_output(options.output, result.entries, prepared.sources)
        written.append(path)
        notes.append(note)
    if options.update is not None:
        sections = _updated(options, mode, result, sections, written, notes)
    if options.rerun is not None and result.rerun is not None:
        from kprofile.sinks.rerun import write_rerun  # start-up: --rerun only

        notes.append(write_rerun(options.rerun, result.rerun))
        written.append(options.rerun)
    report = Report(
        tuple(sections),
        prepared.metric,
        prepared.sources,
        tuple(written),
        tuple(notes),
        result.failed,
    )
    if options.plot is None and options.report is None:
        return report
    return _with_pictures(options, report, [*result.pictures, *pictures], progress)


def _with_noise(
    options: Options,
    result: ModeResult,
    runs: Sequence[CombinedRuns],
    metric: Metric | None,
) -> tuple[list[Section], list[Picture]]:
    """The mode's sections, then ``--combine``'s for each set of runs it joined
    (``-d``: each side's), and its pictures when drawn."""
    sections = [*result.sections]
    for joined in runs:
        sections += noise_sections(joined, side=len(runs) > 1)
    if metric is None or (options.plot is None and options.report is None):
        return sections, []
    return sections, [p for joined in runs for p in combine_pictures(joined, metric)]


def _with_pictures(
    options: Options, report: Report, pictures: list[Picture], progress: Progress
) -> Report:
    """``--plot``'s PNGs and ``--report``'s page written; the report saying so."""
    from kprofile.sinks.pictures import drawn, write_pictures  # start-up: --plot

    made = drawn(pictures, progress)
    written = write_pictures(
        made,
        plot=options.plot,
        report=options.report,
        sections=report.sections,
        header=json_header(report, ()),
    )
    notes = list(written.notes)
    if options.plot is not None:
        charts = counted(len(made), "chart", "charts")
        notes.append(f"wrote {charts} into {options.plot}")
    if options.report is not None:
        notes.append(f"wrote {options.report}")
    return report._replace(
        written=(*report.written, *written.paths), notes=(*report.notes, *notes)
    )


def _updated(
    options: Options,
    mode: Mode,
    result: ModeResult,
    sections: list[Section],
    written: list[str],
    notes: list[str],
) -> list[Section]:
    """``--update``: the change made (``written`` and ``notes`` grow), and the
    sections to show: the change first for the per-file views (their summaries
    only with -v), after the analysis that chose it otherwise (--ranges)."""
    from kprofile.sinks.update import apply_update  # start-up: --update only

    assert options.update is not None  # the caller's check
    update = apply_update(
        options.update,
        result.change,
        dry_run=options.dry_run,
        pivots_given=bool(options.pivots),
        accept_foreign=options.accept_foreign,
    )
    notes += update.warnings
    if update.written:
        written.append(options.update)
        notes.append(f"updated {options.update}")
    if mode.views:
        return [*update.sections, *(sections if options.verbose else [])]
    return [*sections, *update.sections]


def _check_folders(options: Options) -> None:
    """The folders files go into, refused before anything runs when they cannot
    be made (a file stands there); they are made when written."""
    folders = [("--out-dir", options.out_dir), ("--plot", options.plot)]
    if options.report is not None:
        folders.append(("--report", os.path.dirname(options.report) or "."))
    if all(folder is None for _, folder in folders):
        return
    from kprofile.sinks.derived import check_folder  # start-up: a folder written

    for flag, folder in folders:
        if folder is not None:
            check_folder(folder, flag)


def _say_input_problems(
    loaded: Sequence[Results], skipped: Sequence[InvalidInput]
) -> None:
    """Each input skipped, then the warnings of those loaded (rows left out)."""
    for record in skipped:
        print(record, file=sys.stderr)
    for results in loaded:
        for warning in results.warnings:
            print(one_line(warning), file=sys.stderr)


def _progress(options: Options) -> Progress:
    """rich's display on a terminal's stderr; nothing in a pipe or with -q."""
    if options.quiet or not sys.stderr.isatty():
        return SILENT
    return TerminalProgress(sys.stderr, colour=wants_colour(sys.stderr, options.color))
