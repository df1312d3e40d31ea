"""``kprofile``: review kbench autotuning results and write tuning manifests.

Thin: click parses every flag with a typed parameter into one ``Options`` record (the
names of the click parameters are its fields) and ``kprofile.run`` does the work, from
loading the inputs to the exit code.
"""

from __future__ import annotations

import functools
import importlib.util
import signal
import sys
from collections.abc import Callable, Sequence
from typing import Any

import click

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
from kprofile.options import (
    Columns,
    Fraction,
    Number,
    Options,
    PathText,
    Positive,
    Ratio,
    Seconds,
    parse_columns,
)
from tuning_codegen.clirun import run_command
from tuning_codegen.colour import CHOICES as COLOUR_CHOICES
from tuning_codegen.errors import Interrupted

ANALYSIS_MODULES = ("pandas", "numpy", "scipy", "matplotlib", "rich")
ANALYSIS_PYTHON = (3, 11)

EPILOG = """\b
Examples:
  kprofile run.pkl                  summary: entries, best, worst/best, shape
  kprofile run.pkl -r               every entry with its ratio to the best
  kprofile run.pkl --head 10        best 10 (--tail 10: worst 10)
  kprofile run.pkl -t 0.05 -v       within 5% of max of the best: common
                                    config, -v lists the entries
  kprofile run.pkl --within 0.02    ... of the entries within 2% of the best
  kprofile run.pkl -m arith         metric by prefix: Arithmetic (GFLOPS/s)
  kprofile a.pkl b.pkl -o best      best entry of each file into best.yaml
  kprofile run/*.pkl -t 0.05 -o common
                                    each file's common config into common.yaml
  kprofile -d base.pkl new.pkl      new best vs baseline best per shape, CSVs
  kprofile --merge a.yaml b.yaml -p M,N,K --query 'M>64 and K<1024'
  kprofile -c run/*.pkl             Kendall correlations and correlation.png
  kprofile new/*.pkl --update table.yaml --dry-run
                                    best config per shape into a curated
                                    manifest: summary and diff, no write
  kprofile run/*.pkl --cover 0.02 -o table
                                    fewest configs within 2% of each best
  kprofile run/*.pkl --importance --plot charts
                                    which parameters matter, and PNG charts
  kprofile sweep/*.pkl --ranges M -o table
                                    fewest M ranges per (N, K), one config
                                    within 3% of the best at every M
  kprofile --score table.yaml new/*.pkl --fail-above 1.05
                                    the table's ratio to each shape's best on
                                    results it was not built from; exit 1
                                    when the geomean is above 1.05
  kprofile run/*.pkl --budget 8 -o table
                                    the best table of at most 8 configs
  kprofile a.pkl b.pkl --combine median
                                    repeated runs as one measurement; flags
                                    shapes whose best is within the noise
\b
Inputs: kbench .pkl (decoded as data, never executed) and .csv results,
spec and manifest .yaml. Unreadable files are reported and skipped.
Exit status: 0 success, 1 --fail-above failed, 2 bad input or options
(or no usable input), 3 internal error, 130 interrupted (Ctrl-C: nothing written).
"""


def _option(*decls: str, **attrs: Any) -> Callable[[Callable[..., Any]], Any]:
    return click.option(*decls, **attrs)


# The parameters, in --help order. Each name is a field of Options.
PARAMETERS = (
    click.argument("files", nargs=-1, type=click.Path(), metavar="FILES..."),
    _option("-m", "--metric",
            help="Metric column: a name or a case-insensitive prefix of one.  "
            f"[default: {DEFAULT_METRIC}, else the only 'met (UNIT)' column]"),
    _option("--higher-is-better/--lower-is-better", "higher_is_better", default=None,
            help="Override the metric's direction (default: from its unit; "
            "per-second units are higher-is-better)."),
    _option("-r", "--ratio", is_flag=True,
            help="Table of every entry with its ratio to the best."),
    _option("--head", type=Positive("entries"), metavar="N",
            help="Table of the best N entries."),
    _option("--tail", type=Positive("entries"), metavar="N",
            help="Table of the worst N entries that ran."),
    _option("-t", "--top", type=Fraction(band=False), metavar="X",
            help="Common config of the entries the reference kprofile.py selects: "
            "metric below min + X*max (0.05 or 5%; higher-is-better: above "
            "max - X*max)."),
    _option("--top-fraction", type=Fraction(band=False), metavar="X",
            help="Common config of the best X fraction of the entries that ran, "
            "by count (0.05 or 5%)."),
    _option("--within", type=Fraction(band=True), metavar="X",
            help="Common config of the entries within X of the best "
            "(0.02 = ratio <= 1.02)."),
    _option("-v", "--verbose", is_flag=True,
            help="With --top/--top-fraction/--within: also print the subset; with "
            "--update: also each file's summary; with --score/--budget: every "
            "shape's ratio."),
    _option("-d", "--diff", is_flag=True,
            help="First file is the baseline: each later file's best vs the "
            "baseline's, per shape; writes <shape>.csv."),
    _option("--merge", is_flag=True,
            help="Outer-join the inputs (usually manifests) on the pivots."),
    _option("-c", "--correlation", is_flag=True,
            help="Kendall correlation of the numeric tuning parameters with the "
            "metric; writes correlation.png."),
    _option("--include-shapes", is_flag=True,
            help="With -c: correlate the shape columns (M, N, K) too."),
    _option("--cover", type=Fraction(band=True), metavar="TOL",
            help="Fewest configs such that every shape has one within TOL of its "
            "best (0.02 or 2%); -o writes one entry per shape."),
    _option("--time-limit", "--cover-time-limit", "time_limit", type=Seconds(),
            metavar="SECONDS", default=COVER_TIME_LIMIT, show_default=True,
            help="With --cover or --budget: stop the search after SECONDS ('none': "
            "no limit). The table is marked exact (optimal) only if it was proven in "
            "time; otherwise it shows the best table found, a lower bound and the "
            "gap."),
    _option("--cover-loss-time-limit", type=Seconds(), metavar="SECONDS",
            default=COVER_LOSS_TIME_LIMIT, show_default=True,
            help="With --cover: of that, at most SECONDS to find the lowest-loss "
            "table among the smallest ('none': the rest)."),
    _option("--importance", is_flag=True,
            help="Rank parameters by how much a bad value can cost: the best ratio "
            "reachable with each value."),
    _option("--plot", type=PathText(), metavar="DIR",
            help="With --importance: write PNG charts into DIR."),
    _option("--ranges", metavar="COL",
            help="Fewest [COL, COL_END) ranges per group (-p; default: the shape "
            "columns but COL), each with one config within --tol of the best at "
            "every swept COL value. -o writes one entry per range; --update "
            "replaces each group's ranges."),
    _option("--tol", type=Fraction(band=True), metavar="X",
            help="With --ranges: how far from each point's best its config may be "
            f"(0.03 or 3%).  [default: {RANGES_TOL:g}]"),
    _option("--range-end", type=Number(), metavar="VALUE",
            help="With --ranges: where each group's last range ends (e.g. the "
            "largest COL the kernel supports; default: its last point + 1)."),
    _option("--score", metavar="TABLE",
            help="Score the manifest TABLE on the results: each shape's dispatched "
            "entry (exact keys, [M, M_END) ranges, first match wins), its ratio to "
            "the shape's best; geomean, median, share within 2/5/10%, worst shapes."),
    _option("--fail-above", type=Ratio(), metavar="R",
            help="With --score: exit 1 when the geomean ratio is above R (e.g. 1.05), "
            "when the table's config failed at a shape or nothing ran at one, or "
            "when no shape could be scored."),
    _option("--allow-failed", is_flag=True,
            help="With --fail-above: judge the scored shapes alone; shapes where the "
            "table's config failed or nothing ran are counted, not failed."),
    _option("--budget", type=Positive("configs"), metavar="K",
            help="The best table of at most K shared configs (each shape gets the "
            "best of them), proven with HiGHS; -o writes one entry per shape."),
    _option("--objective", type=click.Choice(OBJECTIVES),
            help="With --budget: minimize the geomean ratio over the shapes, or the "
            "worst ratio (then the geomean).  [default: geomean]"),
    _option("-p", "--pivots", multiple=True, type=Columns("-p/--pivots"),
            metavar="COLS",
            help="Columns to join (--merge), group by (views, --diff) or match "
            "shapes by (--update, --cover, --importance, --score, --budget, "
            "--combine): M,N,K or [M,N,K], repeatable."),
    _option("--sort-pivots", multiple=True, type=Columns("--sort-pivots"),
            metavar="COLS", help="With --merge: sort the rows by these columns."),
    _option("--query", metavar="EXPR",
            help="Keep rows where EXPR holds, e.g. 'M>64 and K<1024' "
            "(`quoted name` for any column)."),
    _option("--combine", type=click.Choice(AGGREGATES),
            help="Rows with the same shape and config, from one file or several, "
            "as one measurement: the median, min or mean of their successful runs; "
            "reports shapes whose best is within the run-to-run noise of others."),
    _option("--max-rows", type=Positive("rows"), default=DEFAULT_MAX_ROWS,
            show_default=True, metavar="N",
            help="Refuse a spec YAML whose params expand to more than N rows."),
    _option("-o", "--output", type=PathText(), metavar="PATH",
            help="Write a manifest (PATH.yaml): per file (or -p group) its best "
            "entry, or the common config of --top/--top-fraction/--within; --cover, "
            "--budget: one entry per shape. Nothing is written without it."),
    _option("--write-selection", is_flag=True,
            help="With -o: write the rows --head, --tail, --top, --top-fraction or "
            "--within selected, instead of one config per file."),
    _option("--update", type=PathText(), metavar="MANIFEST",
            help="Put each file's best config (or the --top/--top-fraction/--within "
            "common config) into this existing manifest, matched by shape (-p; "
            "default: the columns constant in every file)."),
    _option("--dry-run", is_flag=True,
            help="With --update: print the summary and the diff; write nothing."),
    _option("--out-dir", type=PathText(), default=".", show_default=True,
            metavar="DIR",
            help="Folder for --diff CSVs and the --correlation PNG."),
    _option("--format", type=click.Choice(["text", "markdown", "json"]),
            default="text", show_default=True,
            help="text: rich tables on a terminal, plain when piped."),
    _option("--color", type=click.Choice(COLOUR_CHOICES), default="auto",
            show_default=True,
            help="Colour on a terminal: auto (none if NO_COLOR is set), always "
            "(rich tables even when piped), never."),
    _option("-q", "--quiet", is_flag=True,
            help="No progress display and no notices on stderr (the metric chosen "
            "by default, how to split shapes); warnings and errors stay."),
)  # fmt: skip


def with_parameters(function: Callable[[Options], int]) -> click.Command:
    """The click command whose parameters fill one ``Options`` for ``function``."""

    @functools.wraps(function)
    def callback(**values: Any) -> int:
        values["pivots"] = parse_columns(values["pivots"], "-p/--pivots")
        values["sort_pivots"] = parse_columns(values["sort_pivots"], "--sort-pivots")
        return function(Options(**values))

    callback = click.version_option(package_name="kprofile", prog_name=PROG)(callback)
    for parameter in reversed(PARAMETERS):
        callback = parameter(callback)
    settings = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
    return click.command(name=PROG, epilog=EPILOG, context_settings=settings)(callback)


@with_parameters
def command(options: Options) -> int:
    """Review kbench autotuning results: rank, compare, select, and write manifests."""
    check_analysis_extra()
    try:
        from kprofile.run import run  # pandas and the rest: once checked

        return run(options)
    except KeyboardInterrupt:  # Ctrl-C: exit 130, like a signal during a write
        raise Interrupted(signal.SIGINT) from None


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
