"""Repeated measurements: one measurement per (shape, config), and the run-to-run noise.

``combine_repeats`` (``--combine``) turns the rows that share a shape and a config, from
one file or several (``kprofile.core.combine.combine`` concatenates the inputs), into
one row before anything else runs. A row is a *run*; only successful runs count
(metric finite and > 0, ``kprofile.core.metric.valid_mask``). The measurement is the
``median``, ``min`` or ``mean`` of the successful runs: ``min`` is the lowest value
(the fastest run of a time metric, the slowest of a throughput); a (shape, config)
with no successful run keeps a missing value, so it still counts as a shape that
failed. Without ``--combine``, ``kprofile.core.measure`` keeps each pair's best run, as
before.

**Noise.** The *spread* of a (shape, config) is ``max / min`` over its successful runs
(1.0 with a single run): how far apart two runs of the same config came out. At a
shape, another config is *within noise* of the best when its ratio to the best is no
larger than the spread of either of the two: ``ratio <= max(spread(best),
spread(other))``. Then the runs cannot tell them apart, and the best is best by luck
of the draw. ``noise`` counts, per shape, the configs within noise of its best
("best is within noise of N others"); with single runs every spread is 1.0 and only
exact ties count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from kprofile.core.defaults import AGGREGATES, Aggregate
from kprofile.core.measure import Measured, group_ids
from kprofile.core.metric import Metric, metric_values, valid_mask

# Columns of ``Noise.shapes``.
SHAPE = "shape"
BEST_CONFIG = "best config"
RUNNER_UP = "runner-up"
RUNNER_UP_RATIO = "runner-up ratio"
BEST_SPREAD = "best spread"
WITHIN_NOISE = "within noise"


@dataclass(frozen=True, eq=False)
class Repeats:
    """One row per (shape, config) of the input, in order of first appearance.

    ``frame``: each group's first row, its metric column replaced by the combined
    measurement (NaN when no run succeeded). ``runs``: successful runs combined, per
    row. ``spread``: max / min of those runs (1.0 for one run, NaN for none).
    """

    frame: pd.DataFrame
    runs: np.ndarray
    spread: np.ndarray
    how: Aggregate

    @property
    def repeated(self) -> int:
        """(shape, config) pairs with at least two successful runs."""
        return int((self.runs >= 2).sum())


@dataclass(frozen=True, eq=False)
class Noise:
    """The run-to-run spread, and the shapes whose best is within it of other configs.

    ``shapes``: one row per shape that ran (``Measured`` shape ids, ascending):
    ``shape``, ``best config`` (the first config at ratio 1.0), ``runner-up`` (the
    next lowest ratio, -1 if the shape ran one config), ``runner-up ratio``, ``best
    spread`` and ``within noise`` (how many other configs are within noise of the
    best). ``repeated``: (shape, config) pairs with two runs or more;
    ``median_spread``/``worst_spread`` over them (NaN if none).
    """

    shapes: pd.DataFrame
    repeated: int
    median_spread: float
    worst_spread: float

    @property
    def flagged(self) -> pd.DataFrame:
        """The shapes whose best is within noise of at least one other config."""
        return self.shapes[self.shapes[WITHIN_NOISE] > 0]


def combine_repeats(
    frame: pd.DataFrame,
    *,
    shape_cols: Sequence[str],
    param_cols: Sequence[str],
    metric: Metric,
    how: Aggregate,
) -> Repeats:
    """Rows sharing every shape and parameter column (a missing value is a value of
    its own) as one row with the ``how`` of their successful runs; vectorized."""
    if how not in AGGREGATES:
        raise ValueError(f"how must be one of {', '.join(AGGREGATES)}")
    group = group_ids(frame, [*shape_cols, *param_cols]).to_numpy()
    values = metric_values(frame, metric)
    ok = valid_mask(values)
    n_groups = int(group.max()) + 1 if len(group) else 0
    runs = pd.Series(values[ok]).groupby(group[ok])
    wanted: list[Any] = list(dict.fromkeys([how, "count", "min", "max"]))
    stats = runs.agg(wanted).reindex(range(n_groups))
    first = np.unique(group, return_index=True)[1]  # ids number groups by first row
    out = frame.iloc[first].reset_index(drop=True)
    out[metric.column] = stats[how].to_numpy(dtype=np.float64)
    count = stats["count"].fillna(0).to_numpy(dtype=np.int64)
    spread = (stats["max"] / stats["min"]).to_numpy(dtype=np.float64)
    return Repeats(out, count, spread, how)


def spread_table(measured: Measured, repeats: Repeats) -> pd.DataFrame:
    """``measured.table`` (same rows, same order) with each (shape, config)'s
    ``spread``. ``measured`` must be ``measure(repeats.frame, ...)``: its ids are
    recomputed on ``repeats.frame`` with the same ``group_ids``, which is how the
    spreads are attached to its rows."""
    shape_cols = [str(c) for c in measured.shapes.columns]
    param_cols = [str(c) for c in measured.configs.columns]
    spreads = pd.DataFrame(
        {
            "shape": group_ids(repeats.frame, shape_cols).to_numpy(),
            "config": group_ids(repeats.frame, param_cols).to_numpy(),
            "spread": repeats.spread,
        }
    )
    return measured.table.merge(spreads, on=["shape", "config"], how="left")


def noise_limits(table: pd.DataFrame) -> np.ndarray:
    """Per row of a ``spread_table`` (any order): the largest ratio at which it is
    within noise of its shape's best, the larger of its spread and the best's (the
    best: the first config at the lowest ratio)."""
    order = table.sort_values(["shape", "ratio", "config"], kind="stable")
    best = order.drop_duplicates("shape").set_index("shape")["spread"]
    return np.maximum(
        table["shape"].map(best).to_numpy(dtype=np.float64),
        table["spread"].to_numpy(dtype=np.float64),
    )


def noise(measured: Measured, repeats: Repeats) -> Noise:
    """Per shape, how many configs are within noise of its best (module docstring);
    ``measured`` as ``spread_table`` takes it."""
    table = spread_table(measured, repeats)
    table = table.sort_values(["shape", "ratio", "config"], kind="stable")
    first = ~table["shape"].duplicated()
    best = table[first.to_numpy()].set_index("shape")
    threshold = noise_limits(table)
    others = table[~first.to_numpy()]
    within = others["ratio"].to_numpy() <= threshold[~first.to_numpy()]
    count = pd.Series(within, index=others["shape"].to_numpy()).groupby(level=0).sum()
    runner = others.drop_duplicates("shape").set_index("shape")
    shapes = pd.DataFrame(
        {
            SHAPE: best.index.to_numpy(),
            BEST_CONFIG: best["config"].to_numpy(),
            RUNNER_UP: runner["config"]
            .reindex(best.index)
            .fillna(-1)
            .to_numpy(dtype=np.int64),
            RUNNER_UP_RATIO: runner["ratio"].reindex(best.index).to_numpy(),
            BEST_SPREAD: best["spread"].to_numpy(),
            WITHIN_NOISE: count.reindex(best.index).fillna(0).to_numpy(dtype=np.int64),
        }
    )
    repeated = repeats.spread[repeats.runs >= 2]
    return Noise(
        shapes=shapes,
        repeated=len(repeated),
        median_spread=float(np.median(repeated)) if len(repeated) else float("nan"),
        worst_spread=float(repeated.max()) if len(repeated) else float("nan"),
    )
