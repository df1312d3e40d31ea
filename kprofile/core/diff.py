"""``--diff``, the analysis: runs compared config by config, shape by shape.

Each input is a run. Shapes are what every mode tells apart
(``kprofile.core.problems.shape_keys``: ``-p``, or the problem). A shape's baseline
is the first input in argument order that holds it, so ``-d base.pkl new.pkl``
compares two runs and per-shape files (``-d run1/*.pkl run2/*.pkl``) pair up by
shape; with ``baseline`` (``--baseline``: how many of the first inputs are the
baseline's) it is the baseline input that holds it, and the later runs are the
others (each side holds a shape once: ``kprofile.prepare`` refuses repeated runs, or
``--combine`` joined them).

For each later run of a shape: its best config and value, its best's ratio to the
baseline's (``ratio``, above 1.0 worse), whether the best config changed (another
config than the baseline's best), and the baseline's best config on this run: its
ratio to this run's best (``kept/best``: what keeping the old choice costs now) and
to its own time on the baseline (``kept/before``: did the old choice get slower?).
Where it has no measurement on this run, why (``Compared.status``). A config is the
values of every parameter that is not the shape's, matched across runs as
``same_value`` means it (``core.configs``). Every group of every run is ranked at
once (``core.shapes.ranked_in_groups``); nothing is computed per shape with pandas.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from kprofile.core.columns import Grouping, first_minimum, group_rows, input_labels
from kprofile.core.configs import shared_config_keys
from kprofile.core.metric import Metric, ratio_to
from kprofile.core.problems import shape_keys
from kprofile.core.scorecols import FAILED, NO_RUN, NOT_MEASURED, RUN_FAILED, SCORED
from kprofile.core.shapes import ranked_in_groups
from kprofile.core.values import plain, shape_label
from kprofile.errors import usage_error
from kprofile.inputs.load import Results
from tuning_codegen.values import value_key

NO_BASELINE = "no baseline"  # a shape only later runs hold (--baseline)


@dataclass(frozen=True, eq=False)
class Run:
    """One input, its rows grouped by the shape's columns: per group its shape id,
    its best row's position in ``grouping.order`` (-1: nothing ran) and its value;
    per row (group by group, ``grouping.order``) its metric, its key (``inf``: did
    not run) and its config."""

    name: str
    grouping: Grouping
    shape: np.ndarray
    top: np.ndarray
    value: np.ndarray
    values: np.ndarray
    keys: np.ndarray
    config: np.ndarray
    best: np.ndarray  # each group's best row of the file (-1: nothing ran)
    best_config: np.ndarray  # its config (-1: nothing ran)

    @property
    def results(self) -> Results:
        return self.grouping.results


Member = tuple[int, int]  # (run, group)


@dataclass(frozen=True, eq=False)
class Shape:
    """A shape: its label, its baseline (None: no run of the baseline holds it) and
    its later runs."""

    label: str
    base: Member | None
    later: tuple[Member, ...]


@dataclass(frozen=True, eq=False)
class Kept:
    """Per group of one later run, compared with its shape's baseline (every group
    at once): the ``Comparison``'s fields, each an array (``changed``: -1 where
    nothing compares, else 0 or 1)."""

    ratio: np.ndarray
    changed: np.ndarray
    kept_best: np.ndarray
    kept_before: np.ndarray
    status: np.ndarray
    kind: list[str]


@dataclass(frozen=True, eq=False)
class DiffResult:
    """The runs, their shapes, and per run what it kept of the baseline."""

    keys: tuple[str, ...]
    runs: tuple[Run, ...]
    shapes: tuple[Shape, ...]
    kept: tuple[Kept, ...]
    params: tuple[str, ...]  # what a config is made of
    metric: Metric

    def vanished(self) -> list[int]:
        """The shapes of the baseline that no later run holds."""
        return [
            s for s, shape in enumerate(self.shapes)
            if shape.base is not None and not shape.later
        ]  # fmt: skip

    def compared(self, member: Member) -> Comparison:
        """A later run of a shape against the shape's baseline."""
        j, g = member
        kept = self.kept[j]
        changed = int(kept.changed[g])
        return Comparison(
            float(kept.ratio[g]),
            None if changed < 0 else bool(changed),
            float(kept.kept_best[g]),
            float(kept.kept_before[g]),
            str(kept.status[g]),
            kept.kind[g],
        )


class Comparison(NamedTuple):
    ratio: float  # this run's best over the baseline's
    changed: bool | None  # None: nothing to compare
    kept_best: float  # the baseline's best config here, over this run's best
    kept_before: float  # ... over its time on the baseline
    status: str  # SCORED, FAILED, NOT_MEASURED, NO_RUN, NO_BASELINE
    kind: str  # FAILED: the kind kbench recorded, else RUN_FAILED


def diff(
    inputs: Sequence[Results],
    metric: Metric,
    pivots: Sequence[str],
    *,
    baseline: int = 0,
    names: Sequence[str] = (),
) -> DiffResult:
    """Every input's shapes against their baseline (module docstring)."""
    if len(inputs) < 2:
        raise usage_error("--diff needs a baseline and at least one more file")
    keys = shape_keys(inputs, pivots)
    params = tuple(dict.fromkeys(p for r in inputs for p in r.params if p not in keys))
    configs = shared_config_keys(inputs, params)
    named = list(names) or input_labels(inputs)
    ids: dict[tuple[Hashable, ...], int] = {}
    labels: list[str] = []
    runs = tuple(
        _run(name, r, keys, metric, config, (ids, labels))
        for name, r, config in zip(named, inputs, configs)
    )
    shapes = _shapes(runs, labels, baseline)
    kept = _kept(runs, shapes, metric)
    return DiffResult(keys, runs, shapes, kept, params, metric)


def _run(
    name: str,
    results: Results,
    keys: Sequence[str],
    metric: Metric,
    config: np.ndarray,
    known: tuple[dict[tuple[Hashable, ...], int], list[str]],
) -> Run:
    """One input grouped and ranked; its groups' shapes numbered in ``known`` (ids
    by first appearance, and their labels)."""
    grouping = group_rows(results, [k for k in keys if k in results.frame.columns])
    values, ranked, top = ranked_in_groups(grouping, metric)
    ran = np.isfinite(ranked[top])
    config = config[grouping.order]
    ids, labels = known
    shape = np.empty(len(grouping), dtype=np.int64)
    for g, found in enumerate(grouping.values):
        if not found and keys:  # a file of one shape, not split: its first row's
            frame = results.frame
            found = {k: plain(frame[k].iloc[0]) for k in keys if k in frame}
        key = tuple(value_key(plain(found.get(k))) for k in keys)
        if key not in ids:
            ids[key] = len(ids)
            labels.append(shape_label(found) or "(all)")
        shape[g] = ids[key]
    return Run(
        name,
        grouping,
        shape,
        np.where(ran, top, -1),
        np.where(ran, values[top], np.nan),
        values,
        ranked,
        config,
        np.where(ran, grouping.order[top], -1),
        np.where(ran, config[top], -1),
    )


def _shapes(runs: Sequence[Run], labels: list[str], baseline: int) -> tuple[Shape, ...]:
    """Each shape's baseline and later runs, in argument order."""
    members: list[list[Member]] = [[] for _ in labels]
    for i, run in enumerate(runs):
        for g, s in enumerate(run.shape.tolist()):
            members[s].append((i, g))
    out = []
    for label, held in zip(labels, members):
        if baseline:
            base = [m for m in held if m[0] < baseline]
            later = [m for m in held if m[0] >= baseline]
            out.append(Shape(label, base[0] if base else None, tuple(later)))
        else:
            out.append(Shape(label, held[0], tuple(held[1:])))
    return tuple(out)


def _kept(
    runs: Sequence[Run], shapes: Sequence[Shape], metric: Metric
) -> tuple[Kept, ...]:
    """Per run, each group's baseline best config and value, and that config's
    best run here: every row of a run compared with its group's target at once."""
    based = [np.zeros(len(r.shape), dtype=bool) for r in runs]
    targets = [np.full(len(r.shape), -1, dtype=np.int64) for r in runs]
    before = [np.full(len(r.shape), np.nan) for r in runs]
    for shape in shapes:
        if shape.base is None:
            continue
        i, g = shape.base
        for j, h in shape.later:
            based[j][h] = True
            targets[j][h] = runs[i].best_config[g]
            before[j][h] = runs[i].value[g]
    return tuple(
        _kept_in(run, metric, *found)
        for run, *found in zip(runs, based, targets, before)
    )


def _kept_in(
    run: Run,
    metric: Metric,
    based: np.ndarray,
    target: np.ndarray,
    before: np.ndarray,
) -> Kept:
    """``Kept`` of one run, ``target`` the config to find in each of its groups."""
    starts, stops = run.grouping.starts, run.grouping.stops
    hit = run.config == np.repeat(target, stops - starts)  # no config is -1
    keys = np.where(hit, run.keys, np.inf)
    top = first_minimum(keys, starts)
    value = np.where(np.isfinite(keys[top]), run.values[top], np.nan)
    rows = np.flatnonzero(hit)  # each group's first row of its target, if any
    if len(rows):
        found = rows[np.minimum(np.searchsorted(rows, starts), len(rows) - 1)]
        measured = (found >= starts) & (found < stops)
        first = np.where(measured, found, starts)
    else:
        measured, first = np.zeros(len(starts), dtype=bool), starts
    status = np.where(
        target < 0,
        np.where(based, NO_RUN, NO_BASELINE),
        np.where(np.isfinite(value), SCORED,
                 np.where(measured, FAILED, NOT_MEASURED)),
    ).astype(object)  # fmt: skip
    changed = np.where(
        (target < 0) | (run.top < 0), -1, run.best_config != target
    ).astype(np.int8)
    return Kept(
        ratio_to(run.value, before, metric),
        changed,
        ratio_to(value, run.value, metric),
        ratio_to(value, before, metric),
        status,
        _kinds(run, first),
    )


def _kinds(run: Run, rows: np.ndarray) -> list[str]:
    """What kbench recorded of the failure at each group's row ``rows`` (positions
    in ``grouping.order``); ``failed`` where it recorded nothing."""
    column = run.results.failure
    if column is None:
        return [RUN_FAILED] * len(rows)
    kinds = run.results.frame[column].iloc[run.grouping.order[rows]].tolist()
    return [k if isinstance(k, str) and k else RUN_FAILED for k in kinds]
