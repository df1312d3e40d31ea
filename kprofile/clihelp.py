"""``kprofile --help`` as a reader looks for an option: grouped by what they want to do
(look at a run, pick a config, build a table, compare runs, write), at most 80 columns,
with examples; the full reference is ``docs/kprofile.md``.

Every parameter of the command belongs to one group of ``GROUPS`` (a test says so): a
new option is one ``PARAMETERS`` row in ``cli.py`` and its name in one group here.
"""

from __future__ import annotations

import click

WIDTH = 80

# (heading, parameter names in --help order); "help" and "version" are click's own
GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Views (a table per file, or per -p group)", (
        "metric", "higher_is_better", "ratio", "head", "tail", "verbose",
    )),
    ("Selection (one config per file or group; -o writes it)", (
        "top", "top_fraction", "within", "write_selection",
    )),
    ("Table modes (one table of configs for many shapes)", (
        "cover", "budget", "objective", "time_limit", "cover_loss_time_limit",
        "ranges", "tol", "range_end", "score", "fail_above", "allow_failed",
    )),
    ("Comparing runs and parameters", (
        "diff", "baseline", "combine", "correlation", "include_shapes", "importance",
        "merge", "sort_pivots",
    )),
    ("Shapes and rows", ("pivots", "spec", "query", "max_rows")),
    ("Output", (
        "output", "update", "keep_within", "dry_run", "accept_foreign", "rerun",
        "rerun_within", "out_dir", "plot", "heatmap", "report", "format", "color",
        "quiet", "version", "help",
    )),
)  # fmt: skip

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
  kprofile -d base.pkl new.pkl      per shape: each run's best config, whether
                                    it changed, the old config on the new run
  kprofile -d --combine median --baseline a.pkl --baseline b.pkl c.pkl d.pkl
                                    each side's two runs joined first
  kprofile -d base.pkl new.pkl --fail-above 1.05
                                    exit 1 when the baseline's best configs
                                    got slower than 1.05 (geomean), or failed
  kprofile --merge a.yaml b.yaml -p M,N,K --query 'M>64 and K<1024'
  kprofile -c run/*.pkl --out-dir out
                                    Kendall correlations, out/correlation.png
  kprofile new/*.pkl --update table.yaml --dry-run
                                    best config per shape into a curated
                                    manifest: summary and diff, no write
  kprofile new/*.pkl --update table.yaml --keep-within 2%
                                    ... changing only the entries whose
                                    config is more than 2% behind the best
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
  kprofile a.pkl b.pkl --combine median --rerun again.yaml
                                    a kbench spec of each shape's configs
                                    within the noise of its best, to rerun
  kprofile a.pkl b.pkl -p M,N,K --plot charts --report run.html
                                    per shape: the best configs run by run,
                                    the landscape, a heatmap; one HTML file
\b
Inputs: kbench .pkl (decoded as data, never executed) and .csv results,
spec and manifest .yaml. Unreadable files are reported and skipped.
Exit status: 0 success, 1 --fail-above failed, 2 bad input or options
(or no usable input), 3 internal error, 130 interrupted (Ctrl-C: nothing
written). Every option, with examples: docs/kprofile.md.
"""


class GroupedCommand(click.Command):
    """A click command whose options are listed under the headings of ``GROUPS``."""

    def format_options(
        self, ctx: click.Context, formatter: click.HelpFormatter
    ) -> None:
        records = _help_records(self, ctx)
        for heading, names in GROUPS:
            rows = [records.pop(n) for n in names if n in records]
            if rows:
                with formatter.section(heading):
                    formatter.write_dl(rows)
        if records:  # an option no group names: shown, and tests/ says which
            with formatter.section("Other"):
                formatter.write_dl(list(records.values()))


def _help_records(
    command: click.Command, ctx: click.Context
) -> dict[str, tuple[str, str]]:
    """Each option's --help row by parameter name ("help" for the help option, whose
    name click varies between versions); arguments are in the usage line."""
    records = {}
    for param in command.get_params(ctx):
        record = param.get_help_record(ctx)
        if record is not None and not isinstance(param, click.Argument):
            records["help" if "--help" in param.opts else str(param.name)] = record
    return records


def ungrouped(command: click.Command) -> list[str]:
    """The options that no group of ``GROUPS`` names (none, or --help shows an
    "Other" section)."""
    grouped = {n for _, names in GROUPS for n in names}
    return [
        n for n in _help_records(command, click.Context(command)) if n not in grouped
    ]
