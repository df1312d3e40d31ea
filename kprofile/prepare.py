"""The inputs as a mode reads them: rows kept by ``--query``, the metric (``-m`` as
given, or the default one), and with ``--combine`` repeated runs as one measurement,
one input per shape. Plain typed values in, one ``Prepared`` and the notes for stderr
out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from kprofile.core.defaults import DEFAULT_METRIC, Aggregate
from kprofile.core.metric import Metric, default_metric, resolve_metric
from kprofile.core.problems import problem, shape_keys, unsure_note
from kprofile.core.structure import file_structure
from kprofile.errors import PROG, KprofileError, Notice, usage_error
from kprofile.inputs.load import Results
from kprofile.inputs.results import Structure
from kprofile.inputs.sniff import YAML
from kprofile.modes.request import Prepared
from kprofile.progress import SILENT, Progress

if TYPE_CHECKING:
    from kprofile.core.runs import CombinedRuns


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
    pooled: bool = False,
    writes: str | None = None,
    spec: str | None = None,
    baseline: int = 0,
) -> tuple[Prepared, tuple[CombinedRuns, ...], list[str]]:
    """What a mode reads (a mode without a metric, ``--merge``, reads the files as
    loaded), the repeated runs ``--combine`` joined, and the notes for stderr.
    Repeated runs without ``--combine`` (``_repeated``): a mode that reads every
    input as one set of measurements (``pooled``) says how it joins them; one that
    would write an entry per run (``writes``: ``-o``, ``--update``) refuses.
    ``spec``: the kbench spec the results were swept with, whose groups tell the
    problem sizes (``--spec``); else each file's structure tells them.
    ``baseline``: how many of the first inputs are ``-d``'s baseline runs
    (``--baseline``); each side is then filtered and combined on its own, and holds
    a shape once (``_sides``)."""
    inputs, notes = list(loaded), list[str]()
    if not needs_metric:
        return Prepared(tuple(inputs), tuple(inputs), None, progress), (), notes
    inputs = with_structure(inputs, spec)  # the files as kbench wrote them
    notes += problem_notes(inputs, pivots)
    sides = [inputs[:baseline], inputs[baseline:]] if baseline else [inputs]
    if query:
        sides = [_filtered(side, query, notes) for side in sides]
        inputs = [r for side in sides for r in side]
    _measuring(inputs)
    chosen = _metric(inputs, metric, higher, notes)
    if baseline:
        prepared, joined_sides = _sides(sides, pivots, chosen, combine, progress)
        return prepared, joined_sides, notes
    sources = tuple(inputs)
    runs: tuple[CombinedRuns, ...] = ()
    if combine is not None:
        joined = _combined(inputs, pivots, chosen, cast(Aggregate, combine))
        inputs, sources, runs = list(joined.parts), tuple(joined.files), (joined,)
    elif pooled or writes:
        notes += _repeated(inputs, pivots, pooled=pooled, writes=writes)
    names = tuple(joined.label for joined in runs for _ in joined.parts)
    joined_runs = runs[0] if runs else None
    prepared = Prepared(tuple(inputs), sources, chosen, progress, 0, names, joined_runs)
    return prepared, runs, notes


def _measuring(inputs: Sequence[Results]) -> None:
    """Refuse inputs that are all specs or manifests: they hold no measurements."""
    if all(r.kind == "yaml" for r in inputs):
        raise KprofileError(
            inputs[0].path,
            f"this is {YAML}, which holds no measurements; pass kbench results "
            "(.pkl/.csv), or --merge to join YAMLs",
        )


def _sides(
    sides: Sequence[Sequence[Results]],
    pivots: tuple[str, ...],
    metric: Metric,
    combine: str | None,
    progress: Progress,
) -> tuple[Prepared, tuple[CombinedRuns, ...]]:
    """``-d --baseline``: the baseline's runs first, then the new ones; with
    ``--combine`` each side's runs joined apart (named after their side), without it
    a shape held twice on one side refused, as ``-o`` refuses it."""
    sources = tuple(r for side in sides for r in side)
    if combine is None:
        for side in sides:
            _repeated(side, pivots, pooled=False, writes="-d", among=sources)
        return Prepared(sources, sources, metric, progress, len(sides[0])), ()
    how = cast(Aggregate, combine)
    runs = tuple(
        dataclasses.replace(joined, label=f"{what}, {joined.label}")
        for what, side in zip(("baseline", "new runs"), sides)
        for joined in [_combined(side, pivots, metric, how, among=sources)]
    )
    names = tuple(joined.label for joined in runs for _ in joined.parts)
    inputs = tuple(p for joined in runs for p in joined.parts)
    prepared = Prepared(inputs, sources, metric, progress, len(runs[0].parts), names)
    return prepared, runs


def _combined(
    inputs: Sequence[Results],
    pivots: tuple[str, ...],
    metric: Metric,
    how: Aggregate,
    *,
    among: Sequence[Results] = (),
) -> CombinedRuns:
    """``--combine``: the runs of each shape and config as one measurement. One run
    given twice would count as two: refused. ``among``: every input, whose shape
    columns these share (``-d``'s sides)."""
    from kprofile.core.runs import (  # start-up: --combine only
        combine_runs,
        same_measurements,
    )

    repeated = same_measurements(inputs, metric)
    if repeated is not None:
        first, again = repeated
        raise KprofileError(
            again.path,
            f"--combine: the same measurements as {first.path} (the same run given "
            "twice would count as two runs, its spread 1.000 as noise measured); "
            "give each run once",
        )
    try:
        return combine_runs(
            inputs, pivots=pivots or shape_keys(among), metric=metric, how=how
        )
    except KprofileError as exc:
        raise usage_error(f"--combine: {exc.message}") from None


def _repeated(
    inputs: Sequence[Results],
    pivots: Sequence[str],
    *,
    pooled: bool,
    writes: str | None,
    among: Sequence[Results] = (),
) -> list[str]:
    """Shapes that several inputs measure, without ``--combine``: a pooled mode keeps
    each config's best run, and says so once; writing an entry per run is refused,
    and so is ``-d`` comparing a side that holds a shape twice (``among``: both
    sides, whose shape columns it shares)."""
    from kprofile.core.runs import repeated_shapes  # start-up: -o, --update, pools

    runs = [r for r in inputs if r.kind != "yaml"]  # a spec or manifest measures none
    keyed = [r for r in among if r.kind != "yaml"] or runs
    repeated = repeated_shapes(runs, shape_keys(keyed, pivots))
    if repeated is None:
        return []
    hint = "--combine median|min|mean"
    if writes == "-d":
        side = "the baseline" if runs[0] is keyed[0] else "the new runs"
        raise KprofileError(
            repeated.again,
            f"repeated runs: {repeated.said()}, and -d compares one run of a shape "
            f"per side ({side}); join the runs with {hint}, or give each shape once",
        )
    if not pooled:
        raise KprofileError(
            repeated.again,
            f"repeated runs: {repeated.said()}, and {writes} would write one entry "
            f"per run of a shape; join the runs with {hint}, or give each shape once",
        )
    return [
        f"{repeated.again}: repeated runs: {repeated.said()}; each config counts "
        f"its best run ({hint} joins the runs instead)"
    ]


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
    from kprofile.core.query import query_rows  # start-up: --query only

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


def with_structure(inputs: Sequence[Results], spec: str | None) -> list[Results]:
    """Each input with what its structure (or the spec's groups) says of its
    parameters, read once, before ``--query`` keeps some of its rows."""
    if spec is not None:
        from kprofile.inputs.specroles import read_roles  # start-up: --spec only

        sizes = read_roles(spec).structure.sizes
        return [
            dataclasses.replace(
                r,
                structure=Structure(
                    tuple(p for p in sizes if p in r.params),
                    (),
                    file_structure(r).constant,
                ),
            )
            for r in inputs
        ]
    return [dataclasses.replace(r, structure=file_structure(r)) for r in inputs]


def problem_notes(inputs: Sequence[Results], pivots: Sequence[str]) -> list[str]:
    """The parameters taken as part of the problem without the results telling;
    with ``-p``, the problem sizes it leaves out (problems ranked as one)."""
    runs = [r for r in inputs if r.kind != "yaml"]
    found = problem(runs)
    if not pivots:
        note = unsure_note(runs, found)
        return [] if note is None else [note]
    runtime = {p for r in runs for p in r.runtime}
    fixed = {p for r in runs for p in file_structure(r).constant}
    merged = [p for p in found.keys if p not in {*pivots, *runtime, *fixed}]
    if not merged:
        return []
    where = runs[0].path if len(runs) == 1 else f"{len(runs)} inputs"
    names = ", ".join(merged)
    return [
        f"{where}: warning: -p {','.join(pivots)} ranks problems with different "
        f"{names} as one; -p {','.join([*pivots, *merged])} keeps them apart"
    ]
