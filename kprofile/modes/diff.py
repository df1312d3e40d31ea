"""``--diff``: the handler and its section (each later file's best against the
baseline's, shape by shape); the per-shape CSVs are written by ``kprofile.sinks.files``.
The analysis is ``kprofile.core.diff``."""

from __future__ import annotations

from kprofile.core.diff import DiffResult, diff
from kprofile.core.metric import Metric
from kprofile.options import Options
from kprofile.outcome import Outcome
from kprofile.render.section import Section
from kprofile.sinks.files import write_tables


def run(options: Options, outcome: Outcome, metric: Metric | None) -> None:
    """``-d``: the comparison table, and one CSV per shape in ``--out-dir``."""
    assert metric is not None  # the mode table says this mode needs one
    result = diff(outcome.inputs, metric, options.pivots)
    written = write_tables(result.tables, options.out_dir)
    outcome.written += written
    outcome.sections.append(diff_section(result, metric, written))


def diff_section(result: DiffResult, metric: Metric, written: list[str]) -> Section:
    facts = (
        ("baseline", "first file with each shape"),
        ("shapes by", ", ".join(result.keys) if result.keys else "(whole files)"),
        ("ratio", f"file best vs baseline best; > 1 is worse ({metric.direction})"),
    )
    return Section(
        "diff",
        f"diff: {metric.column}",
        None,
        facts,
        result.rows,
        result.baselines,
        notes=tuple(f"wrote {p}" for p in written),
    )
