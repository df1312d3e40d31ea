"""``--diff``: the handler and its section, runs compared config by config (each
later run's best config and value against the baseline's, whether the best config
changed, the baseline's best config on the later run, a geomean row per later run),
and ``--fail-above``'s verdict on the baseline's configs. The analysis is
``kprofile.core.diff``; the table is ``modes.difftable``; the per-shape CSVs of
``--out-dir`` are written by ``kprofile.sinks.files``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from kprofile.modes.difftable import (
    Pair,
    diff_table,
    gate_words,
    judged,
    later_runs,
    slower,
)
from kprofile.modes.gate import judge
from kprofile.modes.pictures import shape_pictures
from kprofile.modes.pictures_judged import diff_pictures
from kprofile.modes.request import Data
from kprofile.modes.result import ModeResult
from kprofile.render.section import Picture, Section

if TYPE_CHECKING:
    from kprofile.core.diff import DiffResult

KEPT = (
    "the baseline's best config on each later run: kept/best its time over that "
    "run's best, kept/before over its own time on the baseline"
)


class DiffRequest(NamedTuple):
    data: Data
    out_dir: str | None = None  # where the per-shape CSVs go (None: not written)
    baseline: int = 0  # --baseline: how many of the first inputs are the baseline's
    described: str = "first file with each shape"  # the baseline, as the facts say
    fail_above: float | None = None  # the gate on the baseline's configs
    allow_failed: bool = False  # the gate judges the compared shapes alone


def run(request: DiffRequest) -> ModeResult:
    """``-d``: the comparison table, the gate, and the CSVs with ``--out-dir``."""
    from kprofile.core.diff import diff  # start-up: -d only

    data = request.data
    result = diff(
        data.inputs,
        data.metric,
        data.pivots,
        baseline=request.baseline,
        names=data.names,
    )
    runs = later_runs(result)
    table = diff_table(result, runs)
    facts = _facts(result, runs, request)
    failed = None
    if request.fail_above is not None:
        verdict, failed = _gate(result, runs, request)
        facts += (("fail above", verdict),)
    written, said = _written(result, request.out_dir)
    section = Section(
        "diff",
        f"diff: {data.metric.column}",
        None,
        facts,
        table.frame,
        table.baselines,
        notes=(*table.notes, *(f"wrote {p}" for p in written)),
    )
    pictures: tuple[Picture, ...] = ()
    if data.charts is not None:
        pictures, drawn = shape_pictures(data)
        shown = table.frame.iloc[: len(table.frame) - table.geomeans]
        pictures = (*diff_pictures(shown, data.metric), *pictures)
        said += drawn
    return ModeResult((section,), failed=failed, written=written, notes=said,
                      pictures=pictures)  # fmt: skip


Runs = list[tuple[str, list[Pair]]]


def _facts(
    result: DiffResult, runs: Runs, request: DiffRequest
) -> tuple[tuple[str, Any], ...]:
    metric = request.data.metric
    keys = result.keys
    quotient = metric.quotient("file best", "baseline best", " / ")
    return (
        ("baseline", request.described),
        ("shapes by", ", ".join(keys) if keys else "(whole files)"),
        ("ratio", f"{quotient}; > 1 is worse ({metric.direction})"),
        ("kept", KEPT),
        ("changed", _changed(runs)),
    )


def _changed(runs: Runs) -> str:
    """``best config changed at 4 of 5 shapes`` (per later run when several)."""
    said = []
    for name, pairs in runs:
        flags = [p.compared.changed for p in pairs if p.compared.changed is not None]
        which = f" ({name})" if len(runs) > 1 else ""
        said.append(f"{sum(flags)} of {len(flags)} shapes{which}")
    return "best config changed at " + ", ".join(said) if said else "no shape compared"


def _gate(
    result: DiffResult, runs: Runs, request: DiffRequest
) -> tuple[str, str | None]:
    """``-d --fail-above R``, judged per later run (each shape's first later run,
    then its second...): it fails when one fails, naming the shapes."""
    assert request.fail_above is not None  # asked for
    limit = request.fail_above
    vanished = [result.shapes[s].label for s in result.vanished()]
    verdicts, whys = [], []
    for slot, (name, pairs) in enumerate(runs or [("", [])]):
        gone = vanished if slot == 0 else []
        verdict, why = judge(
            judged(pairs, len(gone)),
            limit,
            allow_failed=request.allow_failed,
            words=gate_words(),
        )
        prefix = f"{name}: " if len(runs) > 1 else ""
        verdicts.append(prefix + verdict)
        if why is not None:
            whys.append(prefix + why + slower(pairs, limit, gone))
    return "; ".join(verdicts), "; ".join(whys) or None


def _written(
    result: DiffResult, out_dir: str | None
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The per-shape CSVs in ``out_dir`` (none without it), and what to say."""
    if out_dir is None:
        return (), ()
    from kprofile.core.difftables import shape_tables  # start-up: --out-dir only
    from kprofile.sinks.files import write_tables  # start-up: --out-dir only

    written = write_tables(shape_tables(result), out_dir)
    return written.paths, written.notes
