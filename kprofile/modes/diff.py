"""``--diff``: the handler and its section (each later file's best against the
baseline's, shape by shape); the per-shape CSVs are written by ``kprofile.sinks.files``.
The analysis is ``kprofile.core.diff``."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from kprofile.core.metric import Metric
from kprofile.modes.pictures import shape_pictures
from kprofile.modes.pictures_judged import diff_pictures
from kprofile.modes.request import Data
from kprofile.modes.result import ModeResult
from kprofile.render.section import Picture, Section

if TYPE_CHECKING:
    from kprofile.core.diff import DiffResult


class DiffRequest(NamedTuple):
    data: Data
    out_dir: str = "."  # where the CSVs go


def run(request: DiffRequest) -> ModeResult:
    """``-d``: the comparison table, and one CSV per shape in ``--out-dir``."""
    from kprofile.core.diff import diff  # start-up: -d only
    from kprofile.sinks.files import write_tables  # start-up: -d, -c, --plot only

    data = request.data
    result = diff(data.inputs, data.metric, data.pivots)
    written = write_tables(result.tables, request.out_dir)
    section = diff_section(result, data.metric, list(written.paths))
    pictures: tuple[Picture, ...] = ()
    notes = written.notes
    if data.charts is not None:
        pictures, drawn = shape_pictures(data)
        pictures = (*diff_pictures(result.rows, data.metric), *pictures)
        notes += drawn
    return ModeResult((section,), written=written.paths, notes=notes,
                      pictures=pictures)  # fmt: skip


def diff_section(result: DiffResult, metric: Metric, written: list[str]) -> Section:
    facts = (
        ("baseline", "first file with each shape"),
        ("shapes by", ", ".join(result.keys) if result.keys else "(whole files)"),
        (
            "ratio",
            f"{metric.quotient('file best', 'baseline best', ' / ')}; > 1 is worse "
            f"({metric.direction})",
        ),
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
