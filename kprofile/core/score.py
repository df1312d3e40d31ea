"""How much performance a dispatch table leaves on the table, measured on results.

For every shape of a ``kprofile.core.measure.Measured`` (failed runs dropped, a
(shape, config) measured twice keeps its best run, or one combined measurement with
``kprofile.core.repeats``), the table's entry is found by the dispatch rule
(``kprofile.core.dispatch``) and its config among the results' configs: the entry's
value for every parameter column, compared with ``same_value`` (a parameter the entry
lacks reads as null, so it matches a config without that parameter). Each shape gets
one status:

- ``scored``: the config ran successfully there; its ``ratio`` to the shape's best
  (1.0 = the best; value / best for lower-is-better, best / value otherwise, by
  ``kprofile.core.metric.ratio_to``);
- ``no entry``: no entry covers the shape;
- ``no successful run``: an entry covers it, but nothing ran at the shape, so it has
  no best to compare with;
- ``config failed``: the dispatched config ran at that shape and every run of it
  failed there (a run without a valid measurement, or a point kbench's record of
  failures lists: ``Measured.failed``);
- ``not measured``: the dispatched config has no run at that shape (or is no config
  of the results at all).

Only scored shapes enter the summary (geomean and median ratio, the share within 2%,
5% and 10% of the best, by the project's one tolerance rule,
``kprofile.core.metric.within_tolerance``); the others are counted apart, never as
1.0. ``score_configs`` is the same
score for any choice of one config per shape (the ``--budget`` table's).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from kprofile.core.columns import end_column
from kprofile.core.dispatch import Dispatch, dispatch
from kprofile.core.measure import Measured
from kprofile.core.metric import Metric, ratio_to, within_tolerance
from kprofile.core.scorecols import (  # the statuses and columns of Score.shapes
    BEST,
    CONFIG,
    ENTRY,
    FAILED,
    KIND,
    NO_ENTRY,
    NO_RUN,
    NOT_MEASURED,
    RATIO,
    RUN_FAILED,
    SCORED,
    STATUS,
    VALUE,
)
from kprofile.core.values import canon_code, canon_codes
from tuning_codegen.manifest import Manifest

#: The tolerances whose shares a score reports (2%, 5%, 10%).
BANDS = (0.02, 0.05, 0.10)
#: How many of the worst scored shapes a score lists.
DEFAULT_WORST = 5


@dataclass(frozen=True)
class Band:
    """Scored shapes within ``tol`` of their best: how many, and their share of the
    scored shapes (NaN when none was scored)."""

    tol: float
    count: int
    share: float


@dataclass(frozen=True, eq=False)
class Score:
    """A table (or any one-config-per-shape choice) against measured results.

    ``shapes``: one row per shape of ``Measured.shapes`` (same index: shape ids): the
    shape columns, ``status``, ``entry`` (index in the table's ``params``, -1 for
    none; only for a table), ``config`` (``Measured.configs`` id, -1 for none),
    ``value`` (the config's measurement there), ``best`` (the shape's best) and
    ``ratio``; NaN where there is none. ``geomean`` and ``median`` are over the scored
    shapes (NaN if none); ``worst`` is the ``shapes`` rows of the highest ratios,
    worst first (ties: shape order).
    """

    shapes: pd.DataFrame
    geomean: float
    median: float
    bands: tuple[Band, ...]
    scored: int
    no_entry: int
    no_run: int
    not_measured: int
    worst: pd.DataFrame
    failed: int = 0

    @property
    def worst_ratio(self) -> float:
        """The highest ratio of a scored shape (NaN if none)."""
        return float(self.worst[RATIO].iloc[0]) if len(self.worst) else float("nan")


@dataclass(frozen=True, eq=False)
class TableScore:
    """``score``: the table's score; ``dispatch``: its dispatch rule applied to the
    shapes; ``configs``: per entry, the ``Measured.configs`` id it names (-1: a config
    the results do not have); ``overlapping``: shapes more than one entry covers (the
    first wins); ``ignored``: entry keys that are neither a shape nor a parameter
    column of the results, nor a range end (not matched on)."""

    score: Score
    dispatch: Dispatch
    configs: np.ndarray
    overlapping: int
    ignored: tuple[str, ...]


def score_table(
    table: Manifest,
    measured: Measured,
    metric: Metric,
    *,
    worst: int = DEFAULT_WORST,
) -> TableScore:
    """Score ``table`` on ``measured``: the dispatched entry of every shape, its
    config's ratio there (module docstring)."""
    shape_cols = [str(c) for c in measured.shapes.columns]
    found = dispatch(table, measured.shapes, shape_cols)
    configs = entry_configs(table, measured.configs)
    padded = np.append(configs, -1)  # entry -1 (none) reads the -1 at the end
    config = padded[found.entry]
    score = score_configs(measured, config, metric, entry=found.entry, worst=worst)
    return TableScore(
        score=score,
        dispatch=found,
        configs=configs,
        overlapping=int((found.covering > 1).sum()),
        ignored=_ignored_keys(table, shape_cols, list(measured.configs.columns)),
    )


def entry_configs(table: Manifest, configs: pd.DataFrame) -> np.ndarray:
    """Per entry of ``table``, the id (index of ``configs``) of the config whose every
    parameter column holds the entry's value (``same_value``; a key the entry lacks
    reads as null), -1 if there is none. ``configs``: one row per config id."""
    return config_ids([e.values for e in table.entries], configs)


def config_ids(entries: Sequence[Mapping[str, Any]], frame: pd.DataFrame) -> np.ndarray:
    """Per mapping of ``entries``, the id (index of ``frame``) of the row whose every
    column holds the mapping's value, as ``entry_configs`` finds them; -1 if none."""
    vocabulary: dict[Hashable, int] = {}
    columns = [str(c) for c in frame.columns]
    codes = [canon_codes(frame[c], vocabulary) for c in columns]
    known: dict[tuple[int, ...], int] = {}
    for key, row_id in zip(zip(*codes), frame.index.tolist()):
        known.setdefault(tuple(int(k) for k in key), int(row_id))
    wanted = (tuple(canon_code(e.get(c), vocabulary) for c in columns) for e in entries)
    return np.array([known.get(key, -1) for key in wanted], dtype=np.int64)


def score_configs(
    measured: Measured,
    config: np.ndarray,
    metric: Metric,
    *,
    entry: np.ndarray | None = None,
    worst: int = DEFAULT_WORST,
) -> Score:
    """The score of giving shape ``i`` (the ``i``-th row of ``measured.shapes``) the
    config ``config[i]`` (-1: none). ``entry``: per shape the table entry it came
    from (-1: no entry covers the shape); without it every shape counts as covered."""
    shapes = measured.shapes
    config = np.asarray(config, dtype=np.int64)
    covered = np.ones(len(shapes), dtype=bool) if entry is None else entry >= 0
    value, best = _lookup(measured.table, shapes.index.to_numpy(), config)
    rows = shapes.copy()
    failed, kinds = _failed(measured, shapes.index.to_numpy(), config)
    rows[STATUS] = _statuses(covered, best, value, failed)
    kinds[rows[STATUS].to_numpy() != FAILED] = None  # a kind only where it failed
    rows[KIND] = kinds
    if entry is not None:
        rows[ENTRY] = np.asarray(entry, dtype=np.int64)
    rows[CONFIG] = np.where(covered, config, -1)
    rows[VALUE] = value
    rows[BEST] = best
    scored = rows[STATUS].to_numpy() == SCORED
    rows[RATIO] = np.where(scored, ratio_to(value, best, metric), np.nan)
    return _summary(rows, scored, worst)


def _lookup(
    table: pd.DataFrame, shape_ids: np.ndarray, config: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per shape: the value of its config there (NaN if it never ran there) and the
    shape's best (NaN if nothing ran), from a ``Measured.table``."""
    # sorted: the table is sorted by shape, config
    keys, wanted = _pair_keys(table, shape_ids, config)
    at = np.minimum(np.searchsorted(keys, wanted), max(len(keys) - 1, 0))
    hit = (keys[at] == wanted) if len(keys) else np.zeros(len(wanted), dtype=bool)
    values = table["value"].to_numpy(dtype=np.float64)
    value = np.where(hit, values[at] if len(keys) else np.nan, np.nan)
    bests = table.groupby("shape")["best"].first()
    best = bests.reindex(shape_ids).to_numpy(dtype=np.float64)
    return value, best


def _failed(
    measured: Measured, shape_ids: np.ndarray, config: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per shape: whether its config's every run there failed (``Measured.failed``),
    and the kind kbench recorded of it (``failed`` where it recorded none)."""
    pairs = measured.failed
    kinds = np.full(len(config), RUN_FAILED, dtype=object)
    if not len(pairs) or not len(config):
        return np.zeros(len(config), dtype=bool), kinds
    known, wanted = _pair_keys(pairs, shape_ids, config)
    order = np.argsort(known, kind="stable")
    known = known[order]
    at = np.minimum(np.searchsorted(known, wanted), len(known) - 1)
    hit = known[at] == wanted
    recorded = pairs["kind"].to_numpy(dtype=object)[order][at]
    kinds[hit] = [k or RUN_FAILED for k in recorded[hit]]
    return hit, kinds


def _pair_keys(
    pairs: pd.DataFrame, shape_ids: np.ndarray, config: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(shape, config) pairs as one int64 key each: those of ``pairs`` (its ``shape``
    and ``config`` columns), and each shape's with its ``config`` (-1, none: a key
    no pair has)."""
    p_shape = pairs["shape"].to_numpy(dtype=np.int64)
    p_config = pairs["config"].to_numpy(dtype=np.int64)
    width = int(max(p_config.max(initial=0), config.max(initial=0))) + 2
    wanted = shape_ids.astype(np.int64) * width + np.where(
        config >= 0, config, width - 1
    )
    return p_shape * width + p_config, wanted


def _statuses(
    covered: np.ndarray, best: np.ndarray, value: np.ndarray, failed: np.ndarray
) -> np.ndarray:
    status = np.full(len(covered), SCORED, dtype=object)
    status[np.isnan(value)] = NOT_MEASURED
    status[np.isnan(value) & failed] = FAILED
    status[np.isnan(best)] = NO_RUN
    status[~covered] = NO_ENTRY
    return status


def _summary(rows: pd.DataFrame, scored: np.ndarray, worst: int) -> Score:
    done = rows[scored]
    ratio = done[RATIO].to_numpy(dtype=np.float64)
    count = len(ratio)
    status = rows[STATUS]
    return Score(
        shapes=rows,
        geomean=float(np.exp(np.log(ratio).mean())) if count else float("nan"),
        median=float(np.median(ratio)) if count else float("nan"),
        bands=tuple(_band(done, tol) for tol in BANDS),
        scored=count,
        no_entry=int((status == NO_ENTRY).sum()),
        no_run=int((status == NO_RUN).sum()),
        not_measured=int((status == NOT_MEASURED).sum()),
        failed=int((status == FAILED).sum()),
        worst=done.sort_values(RATIO, ascending=False, kind="stable").head(worst),
    )


def _band(done: pd.DataFrame, tol: float) -> Band:
    within = int(within_tolerance(done["ratio"], tol).sum()) if len(done) else 0
    return Band(tol, within, within / len(done) if len(done) else float("nan"))


def _ignored_keys(
    table: Manifest, shape_cols: Sequence[str], param_cols: Sequence[str]
) -> tuple[str, ...]:
    known = {*shape_cols, *param_cols, *(end_column(c) for c in shape_cols)}
    keys = dict.fromkeys(str(k) for e in table.entries for k in e.values)
    return tuple(k for k in keys if k not in known)
