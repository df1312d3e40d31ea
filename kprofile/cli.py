"""``kprofile``: review kbench autotuning results and write tuning manifests.

Thin: click parses every flag with a typed parameter into one ``Options`` record (the
names of the click parameters are its fields) and ``kprofile.run`` does the work, from
loading the inputs to the exit code.
"""

from __future__ import annotations

import functools
import gc
import importlib.util
import signal
import sys
from collections.abc import Callable, Sequence
from typing import Any

import click

from kprofile.clihelp import EPILOG, WIDTH, GroupedCommand
from kprofile.clitypes import (
    Columns,
    Fraction,
    Number,
    PathText,
    Positive,
    Ratio,
    Seconds,
    Within,
    parse_columns,
)
from kprofile.core.defaults import (
    AGGREGATES,
    COVER_LOSS_TIME_LIMIT,
    COVER_TIME_LIMIT,
    DEFAULT_METRIC,
    OBJECTIVES,
    RANGES_TOL,
)
from kprofile.errors import PROG, usage_error
from kprofile.inputs.limits import DEFAULT_MAX_ROWS
from kprofile.options import Options
from tuning_codegen.clirun import run_command
from tuning_codegen.colour import CHOICES as COLOUR_CHOICES
from tuning_codegen.errors import Interrupted
from tuning_codegen.gcpause import paused_gc

ANALYSIS_MODULES = ("pandas", "numpy", "scipy", "matplotlib", "rich")
ANALYSIS_PYTHON = (3, 11)


def _option(*decls: str, **attrs: Any) -> Callable[[Callable[..., Any]], Any]:
    return click.option(*decls, **attrs)


# The parameters, in --help order. Each name is a field of Options.
PARAMETERS = (
    click.argument("files", nargs=-1, type=click.Path(), metavar="FILES..."),
    _option("-m", "--metric",
            help="Metric column: a name or a case-insensitive prefix of one.  "
            f"[default: {DEFAULT_METRIC}, else the only 'met (UNIT)' column]"),
    _option("--higher-is-better/--lower-is-better", "higher_is_better", default=None,
            help="Override the metric's direction (default: from its unit)."),
    _option("-r", "--ratio", is_flag=True,
            help="Every entry with its ratio to the best."),
    _option("--head", type=Positive("entries"), metavar="N",
            help="The best N entries."),
    _option("--tail", type=Positive("entries"), metavar="N",
            help="The worst N entries that ran."),
    _option("-t", "--top", type=Fraction(band=False), metavar="X",
            help="Common config of the entries below min + X*max (kprofile.py's "
            "--top; 0.05 or 5%)."),
    _option("--top-fraction", type=Fraction(band=False), metavar="X",
            help="Common config of the best X fraction of the entries, by count."),
    _option("--within", type=Fraction(band=True), metavar="X",
            help="Common config of the entries within X of the best (0.02: ratio "
            "<= 1.02)."),
    _option("-v", "--verbose", is_flag=True,
            help="Also list the selected entries (--top...), each file's summary "
            "(--update), every shape's ratio (--score, --budget)."),
    _option("-d", "--diff", is_flag=True,
            help="Compare runs per shape, config by config: each run's best, "
            "whether it changed, the baseline's best config on the new run."),
    _option("--baseline", multiple=True, type=click.Path(), metavar="FILE",
            help="With -d: a baseline run (repeatable; the files given are the new "
            "runs). Default: the first file with each shape."),
    _option("--merge", is_flag=True,
            help="Outer-join the inputs (usually manifests) on the pivots."),
    _option("-c", "--correlation", is_flag=True,
            help="Kendall correlation of the numeric parameters with the metric "
            "(--out-dir: correlation.png)."),
    _option("--include-shapes", is_flag=True,
            help="With -c: correlate the shape columns (M, N, K) too."),
    _option("--cover", type=Fraction(band=True), metavar="TOL",
            help="Fewest configs giving every shape one within TOL of its best "
            "(0.02 or 2%)."),
    _option("--time-limit", "--cover-time-limit", "time_limit", type=Seconds(),
            metavar="SECONDS", default=COVER_TIME_LIMIT, show_default=True,
            help="With --cover/--budget: stop the search after SECONDS ('none': "
            "no limit); the table says whether it is proven optimal."),
    _option("--cover-loss-time-limit", type=Seconds(), metavar="SECONDS",
            default=COVER_LOSS_TIME_LIMIT, show_default=True,
            help="With --cover: of that, the time to find the lowest-loss table "
            "among the smallest."),
    _option("--importance", is_flag=True,
            help="Rank parameters by what a bad value costs: the best ratio "
            "reachable with each value."),
    _option("--plot", type=PathText(), metavar="DIR",
            help="Write the mode's PNG charts into DIR (created if needed)."),
    _option("--heatmap", multiple=True, type=Columns("--heatmap"), metavar="P1,P2",
            help="With --plot/--report: the two parameters of each shape's heatmap "
            "(default: the two --importance ranks first)."),
    _option("--ranges", metavar="COL",
            help="Fewest [COL, COL_END) ranges per group (-p), each with one "
            "config within --tol of the best at every COL."),
    _option("--tol", type=Fraction(band=True), metavar="X",
            help=f"With --ranges: how far from the best (0.03 or 3%).  "
            f"[default: {RANGES_TOL:g}]"),
    _option("--range-end", type=Number(), metavar="VALUE",
            help="With --ranges: where each group's last range ends (default: "
            "its last point + 1)."),
    _option("--score", metavar="TABLE",
            help="Score the manifest TABLE on the results: each shape's dispatched "
            "entry against the shape's best."),
    _option("--fail-above", type=Ratio(), metavar="R",
            help="With --score: exit 1 when the geomean ratio is above R, or the "
            "table's config failed or nothing ran at a shape. With -d: when the "
            "baseline's best configs' geomean kept/before is above R, or one "
            "failed or has no run."),
    _option("--allow-failed", is_flag=True,
            help="With --fail-above: judge the scored shapes alone."),
    _option("--budget", type=Positive("configs"), metavar="K",
            help="The best table of at most K configs (proven with HiGHS)."),
    _option("--objective", type=click.Choice(OBJECTIVES),
            help="With --budget: minimize the geomean ratio, or the worst ratio.  "
            "[default: geomean]"),
    _option("-p", "--pivots", multiple=True, type=Columns("-p/--pivots"),
            metavar="COLS",
            help="The shape columns to group, join and match by (default: the "
            "problem: kbench's runtime parameters and the problem sizes the "
            "sweep shows): M,N,K or [M,N,K]."),
    _option("--spec", type=PathText(), metavar="SPEC.yaml",
            help="The kbench spec the results were swept with: a key fixed in each "
            "of its groups is a problem size, a list is tuned."),
    _option("--sort-pivots", multiple=True, type=Columns("--sort-pivots"),
            metavar="COLS", help="With --merge: sort the rows by these columns."),
    _option("--query", metavar="EXPR",
            help="Keep rows where EXPR holds, e.g. 'M>64 and K<1024'."),
    _option("--combine", type=click.Choice(AGGREGATES),
            help="Repeated runs of a shape and config as one measurement (their "
            "median, min or mean); reports shapes within the noise."),
    _option("--max-rows", type=Positive("rows"), default=DEFAULT_MAX_ROWS,
            show_default=True, metavar="N",
            help="Refuse a spec YAML that expands to more than N rows."),
    _option("-o", "--output", type=PathText(), metavar="PATH",
            help="Write a manifest PATH.yaml: the best (or common) config per "
            "file or group; per shape with --cover, --budget."),
    _option("--write-selection", is_flag=True,
            help="With -o: write every selected row, not one config per file."),
    _option("--update", type=PathText(), metavar="MANIFEST",
            help="Put the chosen config of each shape into this existing manifest."),
    _option("--keep-within", type=Within(), metavar="X|noise",
            help="With --update: keep an entry's config where it measures within X "
            "of the shape's new best (0.02 or 2%; noise: the run-to-run spread, "
            "with --combine)."),
    _option("--dry-run", is_flag=True,
            help="With --update: print the summary and the diff; write nothing."),
    _option("--accept-foreign", is_flag=True,
            help="With --update: put in results of another benchmark, or that "
            "sweep parameters no entry names (refused otherwise)."),
    _option("--rerun", type=PathText(), metavar="SPEC.yaml",
            help="Write a kbench spec of each shape's contenders, the configs "
            "within --rerun-within of its best: measure them again, then "
            "--combine."),
    _option("--rerun-within", type=Within(), metavar="X|noise",
            help="With --rerun: how close to the best a contender is (0.02 or 2%; "
            "default with --combine: noise, the run-to-run spread)."),
    _option("--out-dir", type=PathText(), metavar="DIR",
            help="Write -d's per-shape CSVs and -c's correlation.png into DIR "
            "(created if needed); without it they are not written."),
    _option("--report", type=PathText(), metavar="FILE.html",
            help="Write one self-contained HTML report: the tables and charts."),
    _option("--format", type=click.Choice(["text", "markdown", "json"]),
            default="text", show_default=True,
            help="text: rich tables on a terminal, plain when piped."),
    _option("--color", type=click.Choice(COLOUR_CHOICES), default="auto",
            show_default=True,
            help="Colour on a terminal (auto: none if NO_COLOR is set)."),
    _option("-q", "--quiet", is_flag=True,
            help="No progress display and no notices on stderr (the metric chosen "
            "by default); warnings and errors stay."),
)  # fmt: skip


def with_parameters(function: Callable[[Options], int]) -> click.Command:
    """The click command whose parameters fill one ``Options`` for ``function``."""

    @functools.wraps(function)
    def callback(**values: Any) -> int:
        values["pivots"] = parse_columns(values["pivots"], "-p/--pivots")
        values["sort_pivots"] = parse_columns(values["sort_pivots"], "--sort-pivots")
        values["heatmap"] = parse_columns(values["heatmap"], "--heatmap")
        return function(Options(**values))

    callback = click.version_option(package_name="kprofile", prog_name=PROG)(callback)
    for parameter in reversed(PARAMETERS):
        callback = parameter(callback)
    settings = {"help_option_names": ["-h", "--help"], "max_content_width": WIDTH}
    return click.command(
        name=PROG, cls=GroupedCommand, epilog=EPILOG, context_settings=settings
    )(callback)


@with_parameters
def command(options: Options) -> int:
    """Review kbench autotuning results: rank, compare, select, and write manifests."""
    check_analysis_extra()
    try:
        return analyzer()(options)
    except KeyboardInterrupt:  # Ctrl-C: exit 130, like a signal during a write
        raise Interrupted(signal.SIGINT) from None


@functools.cache
def analyzer() -> Callable[[Options], int]:
    """``kprofile.run.run``, imported once the stack is checked installed. Importing
    pandas, numpy and kprofile makes many objects, none of them garbage, that live as
    long as the process: the collector is paused while they are made, and they are
    frozen once made (``gc.freeze``), so that no later collection walks them again
    (the full one at exit included)."""
    with paused_gc():
        from kprofile.run import run  # pandas and the rest: once checked

        gc.freeze()
    keep_freed_memory()
    return run


def keep_freed_memory() -> None:
    """Let glibc's malloc keep what the analysis frees for its next arrays: by
    default a run that makes and frees arrays of a few MB (a chunk's temporaries)
    faults fresh zeroed pages in again and again (at 5,000,000 rows twice the pages
    it keeps). Blocks under 4 MiB come from the heap and stay with the process;
    larger ones are mapped and given back as before. Not glibc: nothing."""
    import ctypes  # start-up: the analyzer only, once

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(_M_MMAP_THRESHOLD, 4 << 20)  # a column at 500,000 rows and more
    mallopt(_M_TRIM_THRESHOLD, 2**31 - 1)


_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's malloc.h


def check_analysis_extra() -> None:
    """The analyzer's stack is an extra: without it, say how to install it. Its
    Python is 3.11 or newer (the base install, tuning-codegen's, runs on 3.10 too)."""
    if sys.version_info < ANALYSIS_PYTHON:
        found = ".".join(map(str, sys.version_info[:3]))
        raise usage_error(
            f"the analyzer needs Python {'.'.join(map(str, ANALYSIS_PYTHON))} or "
            f"newer, and this is {found}; install kprofile with a newer Python "
            "(tuning-codegen, the pre-commit hook, runs on this one)"
        )
    missing = [m for m in ANALYSIS_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        raise usage_error(
            f"the analyzer needs {', '.join(missing)}, which this installation "
            f"lacks; install it with: {install_command()}"
        )


def install_command() -> str:
    """The pip command that adds the analysis extra to this installation."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        direct = distribution("kprofile").read_text("direct_url.json")
    except PackageNotFoundError:
        direct = None
    if direct:
        import json
        from urllib.parse import unquote, urlparse

        url = json.loads(direct).get("url", "")
        if url.startswith("file://"):
            return f"pip install '{unquote(urlparse(url).path)}[analysis]'"
    return "pip install 'kprofile[analysis]'"


def main(argv: Sequence[str] | None = None) -> int:
    return run_command(command, argv, PROG)


if __name__ == "__main__":
    raise SystemExit(main())
