"""``kprofile``: review kbench autotuning results and write tuning manifests.

Thin: click parses into ``Options``, ``kprofile.run.run`` does the work, this module
prints and decides the exit code.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import click

from hooks.clirun import run_command
from hooks.errors import EXIT_INPUT_ERROR, EXIT_OK
from kprofile.errors import PROG
from kprofile.options import DEFAULT_METRIC, Options, parse_columns, parse_fraction

EPILOG = """\b
Examples:
  kprofile run.pkl                  summary: entries, best, worst/best, shape
  kprofile run.pkl -r               every entry with its ratio to the best
  kprofile run.pkl --head 10        best 10 (--tail 10: worst 10)
  kprofile run.pkl -t 0.05 -v       best 5%: common config, -v lists them
  kprofile run.pkl --within 0.02    ... of the entries within 2% of the best
  kprofile run.pkl -m arith         metric by prefix: Arithmetic (GFLOPS/s)
  kprofile a.pkl b.pkl -o best      best entry of each file into best.yaml
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
\b
Inputs: kbench .pkl (restricted unpickler) and .csv results, spec and
manifest .yaml. Unreadable files are reported and skipped.
Exit status: 0 success, 2 bad input or options (or no usable input).
"""


@click.command(
    name=PROG,
    epilog=EPILOG,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.argument("files", nargs=-1, type=click.Path(), metavar="FILES...")
@click.option(
    "-m",
    "--metric",
    default=DEFAULT_METRIC,
    show_default=True,
    help="Metric column: a name or a case-insensitive prefix of one.",
)
@click.option(
    "--lower-is-better/--higher-is-better",
    "lower",
    default=None,
    help="Override the metric's direction (default: from its unit; per-second units are higher-is-better).",
)
@click.option(
    "-r",
    "--ratio",
    is_flag=True,
    help="Table of every entry with its ratio to the best.",
)
@click.option("--head", type=int, metavar="N", help="Table of the best N entries.")
@click.option(
    "--tail", type=int, metavar="N", help="Table of the worst N entries that ran."
)
@click.option(
    "-t",
    "--top",
    metavar="X",
    help="Common config of the best X fraction of entries (0.05 or 5%).",
)
@click.option(
    "--within",
    metavar="X",
    help="Common config of the entries within X of the best (0.02 = ratio <= 1.02).",
)
@click.option(
    "-v", "--verbose", is_flag=True, help="With --top/--within: also print the subset."
)
@click.option(
    "-d",
    "--diff",
    is_flag=True,
    help="First file is the baseline: each later file's best vs the baseline's, per shape; writes <shape>.csv.",
)
@click.option(
    "--merge",
    is_flag=True,
    help="Outer-join the inputs (usually manifests) on the pivots.",
)
@click.option(
    "-c",
    "--correlation",
    is_flag=True,
    help="Kendall correlation of numeric parameters with the metric; writes correlation.png.",
)
@click.option(
    "--update",
    metavar="MANIFEST",
    help="Put each file's best config (or --top/--within common config) into this existing manifest, matched by shape (-p; default: the columns constant in every file).",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="With --update: print the summary and the diff; write nothing.",
)
@click.option(
    "--cover",
    metavar="TOL",
    help="Fewest configs such that every shape has one within TOL of its best (0.02 or 2%); -o writes one entry per shape.",
)
@click.option(
    "--importance",
    is_flag=True,
    help="Rank parameters by how much a bad value can cost: the best ratio reachable with each value.",
)
@click.option(
    "--plot", metavar="DIR", help="With --importance: write PNG charts into DIR."
)
@click.option(
    "-p",
    "--pivots",
    multiple=True,
    metavar="COLS",
    help="Columns to join (--merge), group by (views, --diff) or match shapes by (--update, --cover, --importance): M,N,K or [M,N,K], repeatable.",
)
@click.option(
    "--sort-pivots",
    multiple=True,
    metavar="COLS",
    help="With --merge: sort the rows by these columns.",
)
@click.option(
    "--query",
    metavar="EXPR",
    help="Keep rows where EXPR holds, e.g. 'M>64 and K<1024' (`quoted name` for any column).",
)
@click.option(
    "-o",
    "--output",
    metavar="PATH",
    help="Write the selected entries as a manifest (PATH.yaml). Nothing is written without it.",
)
@click.option(
    "--out-dir",
    default=".",
    show_default=True,
    metavar="DIR",
    help="Folder for --diff CSVs and the --correlation PNG.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown", "json"]),
    default="text",
    show_default=True,
    help="text: rich tables on a terminal, plain when piped.",
)
def command(files: tuple[str, ...], **opts: object) -> int:
    """Review kbench autotuning results: rank, compare, select, and write manifests."""
    from kprofile.run import NoUsableInput, load, run

    options = _options(files, opts)
    outcome = load(options)
    for record in outcome.skipped:
        print(record, file=sys.stderr)
    try:
        run(options, outcome)
    except NoUsableInput as exc:
        count = len(exc.skipped)
        print(
            f"{PROG}: error: no usable input ({count} file{'s' if count != 1 else ''} skipped)",
            file=sys.stderr,
        )
        return EXIT_INPUT_ERROR
    _print(options, outcome)
    for message in outcome.messages:
        print(message, file=sys.stderr)
    if outcome.skipped:
        total = len(outcome.skipped) + len(outcome.inputs)
        print(
            f"{PROG}: skipped {len(outcome.skipped)} of {total} input files",
            file=sys.stderr,
        )
    return EXIT_OK


def _options(files: tuple[str, ...], opts: dict[str, object]) -> Options:
    lower = opts["lower"]
    top, within, cover = opts["top"], opts["within"], opts["cover"]
    return Options(
        files=files,
        metric=str(opts["metric"]),
        higher_is_better=None if lower is None else not lower,
        ratio=bool(opts["ratio"]),
        head=opts["head"],  # type: ignore[arg-type]
        tail=opts["tail"],  # type: ignore[arg-type]
        top=None
        if top is None
        else parse_fraction(str(top), "--top", allow_zero=False),
        within=None
        if within is None
        else parse_fraction(str(within), "--within", allow_zero=True),
        verbose=bool(opts["verbose"]),
        diff=bool(opts["diff"]),
        merge=bool(opts["merge"]),
        correlation=bool(opts["correlation"]),
        pivots=parse_columns(opts["pivots"], "-p/--pivots"),  # type: ignore[arg-type]
        sort_pivots=parse_columns(opts["sort_pivots"], "--sort-pivots"),  # type: ignore[arg-type]
        query=opts["query"],  # type: ignore[arg-type]
        output=opts["output"],  # type: ignore[arg-type]
        out_dir=str(opts["out_dir"]),
        format=str(opts["fmt"]),
        update=opts["update"],  # type: ignore[arg-type]
        dry_run=bool(opts["dry_run"]),
        cover=None
        if cover is None
        else parse_fraction(str(cover), "--cover", allow_zero=True),
        importance=bool(opts["importance"]),
        plot=opts["plot"],  # type: ignore[arg-type]
    )


def _print(options: Options, outcome: object) -> None:
    from kprofile.render import output
    from kprofile.run import Outcome

    assert isinstance(outcome, Outcome)
    if options.format == "json":
        metric = outcome.metric
        header = {
            "metric": None
            if metric is None
            else {"column": metric.column, "higher_is_better": metric.higher_is_better},
            "inputs": [r.path for r in outcome.inputs],
            "skipped": [
                {"path": s.path, "kind": s.kind, "reason": s.reason}
                for s in outcome.skipped
            ],
            "written": list(outcome.written),
        }
        sys.stdout.write(output.render_json(outcome.sections, header))
    elif options.format == "markdown":
        sys.stdout.write(output.render_markdown(outcome.sections))
    elif sys.stdout.isatty():
        output.render_rich(outcome.sections, sys.stdout)
    else:
        sys.stdout.write(output.render_plain(outcome.sections))
    sys.stdout.flush()


def main(argv: Sequence[str] | None = None) -> int:
    return run_command(command, argv, PROG)


if __name__ == "__main__":
    raise SystemExit(main())
