"""The inputs as a mode reads them: rows kept by ``--query``, the metric (``-m`` as
given, or the default one), and with ``--combine`` repeated runs as one measurement,
one input per shape. Plain typed values in, one ``Prepared`` and the notes for stderr
out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import cast

from kprofile.core.defaults import DEFAULT_METRIC, Aggregate
from kprofile.core.metric import Metric, default_metric, resolve_metric
from kprofile.core.query import query_rows
from kprofile.core.runs import CombinedRuns, combine_runs, same_measurements
from kprofile.errors import PROG, KprofileError, Notice, usage_error
from kprofile.inputs.load import Results
from kprofile.modes.request import Prepared
from kprofile.progress import SILENT, Progress


def prepare(
    loaded: Sequence[Results],
    *,
    needs_metric: bool,
    query: str | None = None,
    metric: str | None = None,
    higher: bool | None = None,
    combine: str | None = None,
    pivots: tuple[str, ...] = (),
    progress: Progress = SILENT,
) -> tuple[Prepared, CombinedRuns | None, list[str]]:
    """What a mode reads (a mode without a metric, ``--merge``, reads the files as
    loaded), the repeated runs ``--combine`` joined, and the notes for stderr."""
    inputs, notes = list(loaded), list[str]()
    if not needs_metric:
        return Prepared(tuple(inputs), tuple(inputs), None, progress), None, notes
    if query:
        inputs = _filtered(inputs, query, notes)
    if all(r.kind == "yaml" for r in inputs):
        raise usage_error(
            "spec and manifest YAMLs hold no measurements; use --merge, "
            "or pass .pkl/.csv results"
        )
    chosen = _metric(inputs, metric, higher, notes)
    sources, runs = tuple(inputs), None
    if combine is not None:
        _refuse_repeated(inputs, chosen)
        how = cast(Aggregate, combine)  # click's choice
        try:
            runs = combine_runs(inputs, pivots=pivots, metric=chosen, how=how)
        except KprofileError as exc:
            raise usage_error(f"--combine: {exc.message}") from None
        inputs, sources = list(runs.parts), tuple(runs.files)
    return Prepared(tuple(inputs), sources, chosen, progress), runs, notes


def _refuse_repeated(inputs: Sequence[Results], metric: Metric) -> None:
    """``--combine`` of one run given twice would count it as two: refused."""
    repeated = same_measurements(inputs, metric)
    if repeated is not None:
        first, again = repeated
        raise KprofileError(
            again.path,
            f"--combine: the same measurements as {first.path} (the same run given "
            "twice would count as two runs, its spread 1.000 as noise measured); "
            "give each run once",
        )


def _metric(
    inputs: Sequence[Results], name: str | None, higher: bool | None, notes: list[str]
) -> Metric:
    """``-m`` as given (never second-guessed), else the default metric; a metric
    other than ``met (ms)`` chosen by default is said once on stderr."""
    frames = [r.frame for r in inputs]
    exclude = {r.row_key for r in inputs}
    if name is not None:
        return resolve_metric(frames, name, higher=higher, exclude=exclude)
    metric, instead = default_metric(frames, higher=higher, exclude=exclude)
    if instead:
        notes.append(
            Notice(
                f"{PROG}: no {DEFAULT_METRIC!r} column; metric {metric.column!r} "
                f"({metric.direction}); -m chooses another"
            )
        )
    return metric


def _filtered(inputs: Sequence[Results], query: str, notes: list[str]) -> list[Results]:
    kept = []
    for results in inputs:
        frame = query_rows(results.frame, query, path=results.path)
        if frame.empty:
            notes.append(
                f"{results.path}: no rows match --query {query!r}; file left out"
            )
        else:
            kept.append(dataclasses.replace(results, frame=frame))
    if not kept:
        raise usage_error(f"--query {query!r} matched no rows in any input")
    return kept
