"""``-d``'s table and what its gate judges, from ``kprofile.core.diff``'s result.

One row per (shape, run), shape by shape, each shape's baseline first: the run's
best config (the parameters that vary), its best value, its ratio to the baseline's
best, whether the best config changed, and the baseline's best config on it
(``kept/best``, ``kept/before``); then a geomean row per later run (the first later
run of each shape, then the second...). The rows are made shape by shape from
arrays every shape shares; nothing here calls pandas per shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pandas as pd

from kprofile.core.columns import values_at
from kprofile.core.metric import geomean
from kprofile.core.scorecols import FAILED, NO_RUN, NOT_MEASURED, SCORED
from kprofile.inputs.load import MESH_IDX
from kprofile.modes.gate import Judged, Words

if TYPE_CHECKING:
    from kprofile.core.diff import Comparison, DiffResult, Run

RATIO, CHANGED, KEPT_BEST, KEPT_BEFORE = "ratio", "changed", "kept/best", "kept/before"
GEOMEAN = "geomean"
BASELINE = " (baseline)"
MOST = 10  # shapes a note names one by one


class Pair(NamedTuple):
    """A later run of a shape, compared."""

    shape: str
    run: str
    compared: Comparison


class DiffTable(NamedTuple):
    frame: pd.DataFrame
    baselines: tuple[int, ...]  # the baseline rows
    geomeans: int  # the last rows: a geomean per later run
    notes: tuple[str, ...]


def later_runs(result: DiffResult) -> list[tuple[str, list[Pair]]]:
    """The later runs, each shape's first later run together, then its second...:
    each with its name (its file, or how many files) and its pairs."""
    slots: dict[int, list[Pair]] = {}
    for shape in result.shapes:
        for slot, member in enumerate(shape.later, start=1):
            pair = Pair(shape.label, result.runs[member[0]].name,
                        result.compared(member))  # fmt: skip
            slots.setdefault(slot, []).append(pair)
    out = []
    for _, pairs in sorted(slots.items()):
        names = list(dict.fromkeys(p.run for p in pairs))
        out.append((names[0] if len(names) == 1 else f"{len(names)} files", pairs))
    return out


def judged(pairs: Sequence[Pair], vanished: int) -> Judged:
    """What ``--fail-above`` judges of one later run: the baseline's best configs'
    time on it over their time on the baseline (``kept/before``), and the shapes
    where they have none (``vanished``: the baseline's shapes no later run holds)."""
    shown = [p.compared for p in pairs]
    kept = np.array([c.kept_before for c in shown if c.status == SCORED])
    count = {
        s: sum(c.status == s for c in shown) for s in (FAILED, NOT_MEASURED, NO_RUN)
    }
    return Judged(
        geomean(kept),
        len(kept),
        len(kept) + sum(count.values()) + vanished,
        count[FAILED],
        count[NOT_MEASURED] + vanished,
        count[NO_RUN],
    )


def gate_words() -> Words:
    return Words("the baseline's best config", f"the geomean {KEPT_BEFORE}", "compared")


def slower(pairs: Sequence[Pair], limit: float, vanished: Sequence[str]) -> str:
    """Which shapes the gate fails on: those whose ``kept/before`` is above
    ``limit`` (slowest first), and those where the config failed or has no run."""
    said = []
    above = sorted(
        (
            p
            for p in pairs
            if p.compared.status == SCORED and p.compared.kept_before > limit
        ),
        key=lambda p: -p.compared.kept_before,
    )
    if above:
        said.append(
            f"above {limit:g} at "
            + _named([f"{p.shape} ({p.compared.kept_before:.3f})" for p in above])
        )
    failed = [
        f"{p.shape} ({p.compared.kind})" for p in pairs if p.compared.status == FAILED
    ]
    if failed:
        said.append("failed at " + _named(failed))
    missing = [p.shape for p in pairs if p.compared.status == NOT_MEASURED]
    if missing or vanished:
        said.append("no run at " + _named([*missing, *vanished]))
    return "".join(f"; {s}" for s in said)


def diff_table(
    result: DiffResult, runs: Sequence[tuple[str, Sequence[Pair]]]
) -> DiffTable:
    """The table (module docstring), and the notes on shapes left uncompared;
    ``runs``: ``later_runs(result)``."""
    rows = _Rows(result)
    baselines = []
    for shape in result.shapes:
        if shape.base is not None:
            baselines.append(len(rows.columns["shape"]))
            rows.add(shape.label, shape.base, None)
        for member in shape.later:
            rows.add(shape.label, member, result.compared(member))
    for name, pairs in runs:
        rows.geomean(name, pairs)
    frame = pd.DataFrame({k: typed(v) for k, v in rows.columns.items()})
    return DiffTable(frame, tuple(baselines), len(runs), _notes(result, runs))


class _Rows:
    """The table's columns, filled row by row from what each run has at its
    groups' bests (gathered once per run and column)."""

    def __init__(self, result: DiffResult) -> None:
        self.result = result
        runs = result.runs
        self.mesh = all(
            r.results.kind != "csv" and r.results.row_key == MESH_IDX for r in runs
        )
        self.best = f"best {result.metric.column}"
        self.key = "best mesh_idx" if self.mesh else "best row"
        self.tuned = _tuned(result)
        names = ["shape", "file", *self.tuned, self.best, RATIO, CHANGED]
        self.columns: dict[str, list[Any]] = {
            n: [] for n in [*names, KEPT_BEST, KEPT_BEFORE, self.key]
        }
        self._at: dict[int, dict[str, list[Any]]] = {}

    def at(self, i: int) -> dict[str, list[Any]]:
        """Run ``i``'s tuned parameters and row name at each group's best."""
        if i not in self._at:
            run = self.result.runs[i]
            found = {p: values_at(run.results, p, run.best) for p in self.tuned}
            keys = values_at(run.results, run.results.row_key, run.best)
            found[self.key] = [_row_name(run, k, mesh=self.mesh) for k in keys]
            self._at[i] = found
        return self._at[i]

    def add(
        self, shape: str, member: tuple[int, int], compared: Comparison | None
    ) -> None:
        """A run of a shape: its baseline (``compared`` None) or a later run."""
        i, g = member
        run, columns = self.result.runs[i], self.columns
        columns["shape"].append(shape)
        marked = compared is None and not run.name.startswith("baseline")
        columns["file"].append(run.name + (BASELINE if marked else ""))
        for name, values in self.at(i).items():
            columns[name].append(values[g])
        value = float(run.value[g])
        columns[self.best].append(value)
        if compared is None:
            ran = 1.0 if np.isfinite(value) else np.nan
            self._measures(ran, None, np.nan, np.nan)
        else:
            c = compared
            self._measures(c.ratio, c.changed, c.kept_best, c.kept_before)

    def geomean(self, name: str, pairs: Sequence[Pair]) -> None:
        """One later run's geomean of each ratio, over its shapes."""
        columns = self.columns
        columns["shape"].append(GEOMEAN)
        columns["file"].append(name)
        for column in (*self.tuned, self.key):
            columns[column].append(None)
        columns[self.best].append(np.nan)
        ratios = [[getattr(p.compared, f) for p in pairs]
                  for f in ("ratio", "kept_best", "kept_before")]  # fmt: skip
        self._measures(geomean(np.array(ratios[0])), None,
                       *(geomean(np.array(r)) for r in ratios[1:]))  # fmt: skip

    def _measures(
        self, ratio: float, changed: bool | None, best: float, before: float
    ) -> None:
        columns = self.columns
        columns[RATIO].append(ratio)
        columns[CHANGED].append(changed)
        columns[KEPT_BEST].append(best)
        columns[KEPT_BEFORE].append(before)


def _tuned(result: DiffResult) -> list[str]:
    """The parameters that vary in some shape of some run (all when none does)."""
    params = list(result.params)
    tuned = [
        p
        for p in params
        if any(p in r.grouping.constant and not r.grouping.constant[p].all()
               for r in result.runs)
    ]  # fmt: skip
    return tuned or params


def _row_name(run: Run, key: Any, *, mesh: bool) -> Any:
    """The best row's mesh_idx when every input has one, else what names it in its
    file (the ``file`` column): ``mesh_idx 12``, ``line 17`` of a CSV (never shown
    as a mesh_idx), ``row 17``; a combined row by its first run."""
    results = run.results
    if key is None or mesh:
        return key
    if results.kind == "csv":
        return f"line {key}"
    if results.kind == "combined":
        return str(key)
    return f"{'mesh_idx' if results.row_key == MESH_IDX else 'row'} {key}"


def _notes(
    result: DiffResult, runs: Sequence[tuple[str, Sequence[Pair]]]
) -> tuple[str, ...]:
    """The shapes without a comparison, and why."""
    pairs = [p for _, found in runs for p in found]
    config = "the baseline's best config"
    said = {
        FAILED: [f"{p.shape} ({p.compared.kind} on {p.run})" for p in pairs
                 if p.compared.status == FAILED],
        NOT_MEASURED: [f"{p.shape} (on {p.run})" for p in pairs
                       if p.compared.status == NOT_MEASURED],
        NO_RUN: [p.shape for p in pairs if p.compared.status == NO_RUN],
    }  # fmt: skip
    notes = []
    if said[FAILED]:
        notes.append(f"{config} failed at {_named(said[FAILED])}")
    if said[NOT_MEASURED]:
        notes.append(f"{config} has no run at {_named(said[NOT_MEASURED])}")
    if said[NO_RUN]:
        notes.append(f"nothing ran on the baseline at {_named(said[NO_RUN])}")
    vanished = [result.shapes[s].label for s in result.vanished()]
    if vanished:
        notes.append(f"no later run holds {_named(vanished)}")
    unbased = [p.shape for p in pairs if p.compared.status == "no baseline"]
    if unbased:
        notes.append(f"no baseline run holds {_named(unbased)}")
    return tuple(notes)


def typed(values: list[Any]) -> Any:
    """A column of Python values as pandas types it (whole numbers with a missing
    one stay whole, ``Int64``; text is text), floats as plain ``float64`` (NaN:
    none), as every other table holds a metric or a ratio."""
    if values and all(isinstance(v, float) for v in values):
        return np.asarray(values, dtype=np.float64)
    return pd.array(values)


def _named(shapes: Sequence[str]) -> str:
    """The first ``MOST`` of ``shapes``, and how many more."""
    shown = ", ".join(shapes[:MOST])
    rest = len(shapes) - MOST
    return shown + (f" and {rest} more" if rest > 0 else "")
