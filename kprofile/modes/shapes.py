"""The per-shape view: when the inputs hold several shapes, one table over all of
them after the per-file summaries, one row per shape (and per input holding it): the
shape's columns, the input (``file``, when there are several), its best config (the
parameters that vary), its best metric, the runner-up's ratio, how many configs are
within 2% of the best, and its failed runs by kind.

Shapes are what every mode finds (``kprofile.core.problems.shape_keys``: ``-p``, or
the problem); the analysis, every group at once, is ``kprofile.core.shapes``. Rows
come shape by shape in order of first appearance, each shape's inputs in argument
order.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from kprofile.core.columns import Grouping, group_rows, values_at, varying
from kprofile.core.defaults import SHAPES_BAND
from kprofile.core.problems import shape_keys
from kprofile.core.values import plain, shape_label
from kprofile.inputs.failures import KINDS, OTHER
from kprofile.inputs.load import Results
from kprofile.modes.difftable import typed
from kprofile.modes.pictures_judged import shapes_pictures
from kprofile.modes.request import Data
from kprofile.render.section import Picture, Section
from tuning_codegen.values import value_key

if TYPE_CHECKING:
    from kprofile.core.shapes import ShapeBests

FILE = "file"
RUNNER_UP = "runner-up ratio"
WITHIN = f"within {SHAPES_BAND:.0%}"
FAILED = "failed"


def shapes_section(
    data: Data, groupings: Mapping[int, Grouping] | None = None
) -> Section | None:
    """The table, or None when the inputs hold one shape. ``groupings``: an input's
    rows already grouped by the shape's columns (``-p``), by its position."""
    keys = shape_keys(data.inputs, data.pivots)
    if not several_shapes(data.inputs, keys):
        return None
    from kprofile.core.shapes import shape_bests  # start-up: several shapes only

    found = []
    for i, results in enumerate(data.inputs):
        grouping = (groupings or {}).get(i) or group_rows(results, _own(results, keys))
        params = [p for p in results.params if p not in keys]
        found.append(shape_bests(grouping, data.metric, params, SHAPES_BAND))
    rows = _rows(found, keys)
    names = data.labels
    table = {k: typed([v.get(k) for _, _, v in rows]) for k in keys}
    if len(set(names)) > 1:
        table[FILE] = typed([names[i] for i, _, _ in rows])
    table |= _configs(found, rows, keys)
    table |= _measures(found, rows, f"best {data.metric.column}")
    return Section(
        "shapes",
        f"shapes: the best config of each ({data.metric.column})",
        None,
        _facts(rows, keys),
        pd.DataFrame(table),
        notes=_notes(data, keys),
    )


def shapes_pictures_of(section: Section, keys: Sequence[str]) -> list[Picture]:
    """The table's runner-up ratios as a chart (``--plot``, ``--report``)."""
    frame = section.table
    assert isinstance(frame, pd.DataFrame)  # shapes_section makes one
    labels = [
        shape_label(dict(zip(keys, row)))
        for row in zip(*(frame[k].tolist() for k in keys))
    ]
    files = frame[FILE].tolist() if FILE in frame else [RUNNER_UP] * len(frame)
    return shapes_pictures(labels, files, frame[RUNNER_UP].tolist())


def several_shapes(inputs: Sequence[Results], keys: Sequence[str]) -> bool:
    """Whether the inputs hold more than one shape (values of ``keys``)."""
    if not keys:
        return False
    if any(varying(r, _own(r, keys)) for r in inputs):
        return True
    return len({_first(r, keys) for r in inputs}) > 1


def _own(results: Results, keys: Sequence[str]) -> list[str]:
    """Those of the shape's columns the input has."""
    return [k for k in keys if k in results.frame.columns]


def _first(results: Results, keys: Sequence[str]) -> tuple[Hashable, ...]:
    """The shape of the input's first row."""
    frame = results.frame
    return tuple(_key(frame[k].iloc[0] if k in frame else None) for k in keys)


Row = tuple[int, int, dict[str, Any]]  # input, group, the shape's values


def _rows(found: Sequence[ShapeBests], keys: Sequence[str]) -> list[Row]:
    """Every (input, group), shape by shape in order of first appearance."""
    order: dict[tuple[Hashable, ...], list[Row]] = {}
    for i, bests in enumerate(found):
        for g, values in enumerate(bests.grouping.values or ({},)):
            if not values:  # a whole file: one shape, its first row's
                first = _first(bests.grouping.results, keys)
                frame = bests.grouping.results.frame
                values = {k: plain(frame[k].iloc[0]) for k in keys if k in frame}
            else:
                first = tuple(_key(values.get(k)) for k in keys)
            order.setdefault(first, []).append((i, g, values))
    return [row for rows in order.values() for row in rows]


def _configs(
    found: Sequence[ShapeBests], rows: Sequence[Row], keys: Sequence[str]
) -> dict[str, Any]:
    """Each row's best config: the parameters that vary in some shape (all of them
    when none does); missing where nothing ran."""
    params = list(
        dict.fromkeys(
            p for b in found for p in b.grouping.results.params if p not in keys
        )
    )
    tuned = [
        p
        for p in params
        if any(p in b.grouping.constant and not b.grouping.constant[p].all()
               for b in found)
    ] or params  # fmt: skip
    best = {i: b.best for i, b in enumerate(found)}
    columns: dict[str, list[Any]] = {p: [] for p in tuned}
    gathered: dict[tuple[int, str], list[Any]] = {}
    for i, g, _ in rows:
        for p in tuned:
            if (i, p) not in gathered:
                gathered[(i, p)] = values_at(found[i].grouping.results, p, best[i])
            columns[p].append(gathered[(i, p)][g])
    return {p: typed(values) for p, values in columns.items()}


def _measures(
    found: Sequence[ShapeBests], rows: Sequence[Row], best: str
) -> dict[str, Any]:
    """The best metric, the runner-up's ratio, the configs within the band, the
    failed runs and (where kbench's record was read) their kinds."""
    at = [(found[i], g) for i, g, _ in rows]
    out: dict[str, Any] = {
        best: [float(b.value[g]) for b, g in at],
        RUNNER_UP: [float(b.runner_up[g]) for b, g in at],
        WITHIN: typed([int(b.within[g]) for b, g in at]),
        FAILED: typed([int(b.failed[g]) for b, g in at]),
    }
    kinds = [k for k in (*KINDS, OTHER) if any(_kind(b, k, None) for b in found)]
    for kind in kinds:
        out[f"{FAILED} {kind}"] = typed([_kind(b, kind, g) for b, g in at])
    return out


def _kind(bests: ShapeBests, kind: str, g: int | None) -> int | None:
    """Group ``g``'s failed runs of ``kind``, or all groups' (None: no record
    read)."""
    if bests.failed_by is None:
        return None
    counts = bests.failed_by.get(kind)
    if counts is None:
        return 0
    return int(counts.sum() if g is None else counts[g])


def _facts(rows: Sequence[Row], keys: Sequence[str]) -> tuple[tuple[str, Any], ...]:
    shapes = len({tuple(_key(v.get(k)) for k in keys) for _, _, v in rows})
    return (
        ("shapes", shapes),
        ("shapes by", ", ".join(keys)),
        (RUNNER_UP, "the best run of another config, over the best"),
        (WITHIN, f"configs within {SHAPES_BAND:.0%} of the best (ratio <= "
                 f"{1 + SHAPES_BAND:g}), the best included"),
    )  # fmt: skip


def _notes(data: Data, keys: Sequence[str]) -> tuple[str, ...]:
    """Where a file's summary above mixes its shapes (no ``-p``), the ``-p`` that
    shows each on its own."""
    mixed = [r.path for r in data.inputs if varying(r, keys)]
    if data.pivots or not mixed:
        return ()
    which = (
        f"the summary of {mixed[0]} above is over all its shapes"
        if len(mixed) == 1
        else f"the summaries of {len(mixed)} files above are each over all of "
        "that file's shapes"
    )
    return (f"{which}; -p {','.join(keys)} shows each on its own",)


def _key(value: Any) -> Hashable:
    return value_key(plain(value))
