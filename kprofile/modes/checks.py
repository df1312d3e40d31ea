"""Which flags may be given together, derived from the mode and view tables
(``kprofile.modes``): ``check_options`` returns the one mode the command line asks
for, or refuses the first combination the tables do not admit with the message the
user sees (``kprofile: error: ...``, exit 2).
"""

from __future__ import annotations

from kprofile.core.defaults import NOISE
from kprofile.errors import usage_error
from kprofile.modes import MODES, OWN_OPTIONS, VIEWS, Mode, View, given_views
from kprofile.options import Options


def check_options(options: Options) -> Mode:
    """The active mode, after refusing every combination the table does not admit."""
    chosen = [m for m in MODES if m.given(options)]
    if len(chosen) > 1:
        raise usage_error(f"{chosen[0].flag} and {chosen[1].flag} cannot be combined")
    mode = chosen[0] if chosen else MODES[0]
    views = given_views(options)
    if views and not mode.views:
        raise usage_error(
            f"{views[0].flag} is a per-file view; it cannot be combined with "
            f"{mode.label}"
        )
    _check_own_options(options, mode)
    _check_pictures(options)
    if options.allow_failed and options.fail_above is None:
        raise usage_error("--allow-failed only applies to --fail-above")
    if options.combine is not None and not (mode.metric and mode.combines):
        raise usage_error(f"--combine does not apply to {mode.label}")
    if options.combine is not None and options.diff and not options.baseline:
        raise usage_error(
            "-d --combine joins each side's runs: name the baseline's with --baseline "
            "FILE (the files given are the new runs)"
        )
    if options.spec is not None and not mode.metric:
        raise usage_error(f"--spec does not apply to {mode.label}")
    _check_sinks(options, mode, [v for v in views if v.selects])
    _check_closeness(options)
    if not options.files:
        raise usage_error("no input files; see kprofile --help")
    return mode


def _check_pictures(options: Options) -> None:
    """--heatmap names two parameters, and only where a picture is drawn; --report
    names an HTML file."""
    if options.heatmap and options.plot is None and options.report is None:
        raise usage_error("--heatmap only applies to --plot or --report")
    if options.heatmap and len(options.heatmap) != 2:
        given = ",".join(options.heatmap)
        raise usage_error(
            f"--heatmap: expected two parameters like BM,BN, got {given!r}"
        )
    if options.report is not None and not options.report.endswith(".html"):
        raise usage_error(
            f"--report: expected a file name ending in .html, got {options.report!r}"
        )


def _check_closeness(options: Options) -> None:
    """--keep-within goes with --update, --rerun-within with --rerun; the noise is
    measured by repeated runs joined with --combine."""
    if options.keep_within is not None and options.update is None:
        raise usage_error("--keep-within only applies to --update")
    if options.rerun_within is not None and options.rerun is None:
        raise usage_error("--rerun-within only applies to --rerun")
    if options.combine is not None:
        return
    joined = "repeated runs joined with --combine median|min|mean"
    for flag, value in (
        ("--keep-within", options.keep_within),
        ("--rerun-within", options.rerun_within),
    ):
        if value == NOISE:
            raise usage_error(f"{flag} noise: the noise is measured by {joined}")
    if options.rerun is not None and options.rerun_within is None:
        raise usage_error(
            "--rerun: how close to its best is a contender? give --rerun-within X "
            f"(0.02 or 2%), or {joined} (their noise)"
        )


def _check_own_options(options: Options, mode: Mode) -> None:
    for flag, given in OWN_OPTIONS:
        if not given(options) or flag in mode.options:
            continue
        owners = [m.label for m in MODES if flag in m.options]
        either = ", ".join(owners[:-1]) + " or " if len(owners) > 1 else ""
        raise usage_error(f"{flag} only applies to {either}{owners[-1]}")


def _check_sinks(options: Options, mode: Mode, selecting: list[View]) -> None:
    """-o, --update, --dry-run and --write-selection."""
    if options.dry_run and options.update is None:
        raise usage_error("--dry-run only applies to --update")
    if options.accept_foreign and options.update is None:
        raise usage_error("--accept-foreign only applies to --update")
    if options.write_selection and not options.output:
        raise usage_error("--write-selection only applies to -o")
    if options.output and not mode.output:
        raise usage_error(
            f"-o writes a manifest of selected entries; {mode.label} selects none"
        )
    if options.update is not None:
        _check_update(options, mode, selecting)
    if options.output and options.write_selection:
        if not selecting:
            flags = [v.flag for v in VIEWS if v.selects]
            raise usage_error(
                f"--write-selection needs {', '.join(flags[:-1])} or {flags[-1]}"
            )
        if len(selecting) > 1:
            raise usage_error(
                f"-o: {selecting[0].flag} and {selecting[1].flag} select different "
                "entries; pass one of them"
            )
    elif options.output:
        _one_config("-o", selecting)


def _check_update(options: Options, mode: Mode, selecting: list[View]) -> None:
    if not mode.update:
        raise usage_error(f"--update does not apply to {mode.label}")
    if options.output:
        raise usage_error("--update and -o both write a manifest; pass one of them")
    several = [v for v in selecting if v.kind != "config"]
    if several:
        common = "/".join(v.flag for v in VIEWS if v.kind == "config")
        raise usage_error(
            "--update takes one config per shape (the best, or the common config of "
            f"{common}); {several[0].flag} selects several"
        )
    _one_config("--update", selecting)


def _one_config(sink: str, selecting: list[View]) -> None:
    """Without --write-selection a sink takes one config per file: the best entry,
    or the common config of one view that picks one."""
    configs = [v for v in selecting if v.kind == "config"]
    if len(configs) > 1:
        raise usage_error(
            f"{sink}: {configs[0].flag} and {configs[1].flag} choose different "
            "configs; pass one of them"
        )
