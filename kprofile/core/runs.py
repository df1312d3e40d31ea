"""Repeated runs as one set of measurements: what ``--combine`` hands the modes.

``combine_runs`` joins every input (``kprofile.core.combine.combine``: the shape
columns are ``-p``, or the defaults every mode uses), makes the rows that share a shape
and a config, from one file or several, one row with the median, min or mean of their
successful runs (``kprofile.core.repeats.combine_repeats``), and splits the result by
shape: each shape becomes one input of its own, so the per-file views show one summary
per shape and every mode sees one measurement per (shape, config). A combined row is
named by its first run (``FIRST_RUN``: ``run_a.pkl mesh_idx 11``, ``run_a.csv:17``),
its row key. The run-to-run spread of the measurements and the shapes whose best is
within it of other configs are ``noise`` (``kprofile.core.repeats.noise``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from kprofile.core.columns import (
    frame_shape_label,
    group_codes,
    row_labels,
    split_by,
)
from kprofile.core.combine import combine
from kprofile.core.measure import Measured, check_columns, measure
from kprofile.core.metric import Metric
from kprofile.core.problems import joined_structure, shared_runtime
from kprofile.core.repeats import Aggregate, Noise, Repeats, combine_repeats, noise
from kprofile.inputs.load import Results

#: The row key of a combined row: the file and row of its first run.
FIRST_RUN = "first run"


@dataclass(frozen=True, eq=False)
class CombinedRuns:
    """``files``: the inputs as loaded; ``parts``: one input per shape (in order of
    first appearance), its rows one per config; ``repeats``: the combined rows and
    their run counts and spreads; ``measured`` and ``noise``: their ratios and noise.
    ``label``: ``median of 2 files``."""

    files: tuple[Results, ...]
    parts: tuple[Results, ...]
    repeats: Repeats
    measured: Measured
    noise: Noise
    shape_cols: tuple[str, ...]
    param_cols: tuple[str, ...]
    label: str


def combine_runs(
    inputs: Sequence[Results],
    *,
    pivots: Sequence[str],
    metric: Metric,
    how: Aggregate,
) -> CombinedRuns:
    """Every input as one measurement per (shape, config), split by shape."""
    joined = combine(inputs, pivots)
    shape_cols, param_cols = list(joined.shape_cols), list(joined.param_cols)
    check_columns(
        joined.frame, shape_cols=shape_cols, param_cols=param_cols, metric=metric.column
    )
    frame = joined.frame.assign(
        **{FIRST_RUN: np.concatenate([row_labels(r) for r in inputs])}
    )
    repeats = combine_repeats(
        frame, shape_cols=shape_cols, param_cols=param_cols, metric=metric, how=how
    )
    measured = measure(
        repeats.frame, shape_cols=shape_cols, param_cols=param_cols, metric=metric
    )
    files = len(inputs)
    label = f"{how} of {files} file{'s' * (files != 1)}"
    first = inputs[0]
    whole = Results(
        path=label,
        kind="combined",
        frame=repeats.frame,
        params=tuple(dict.fromkeys(p for r in inputs for p in r.params)),
        name=first.name,
        file=first.file,
        row_key=FIRST_RUN,
        runtime=shared_runtime(inputs),
        structure=joined_structure(inputs),
    )
    return CombinedRuns(
        files=tuple(inputs),
        parts=tuple(
            _named(p, shape_cols, bool(pivots)) for p in split_by(whole, shape_cols)
        ),
        repeats=repeats,
        measured=measured,
        noise=noise(measured, repeats),
        shape_cols=joined.shape_cols,
        param_cols=joined.param_cols,
        label=label,
    )


def same_measurements(
    inputs: Sequence[Results], metric: Metric
) -> tuple[Results, Results] | None:
    """The first two inputs that hold the same measurements (each parameter and the
    metric, row for row, of the rows that ran): one file given twice, a copy of it
    under any name, compressed or not, or a kbench run's ``.pkl`` and its ``.csv``.
    The points kbench recorded as failed (``NAME.failures.json``, found beside one
    copy and not another) are no measurements and do not tell runs apart.
    ``--combine`` would count such inputs as two runs, and their spread of 1.000 as
    noise measured. None when every input is a run of its own."""
    seen: dict[tuple[int, bytes], Results] = {}
    for results in inputs:
        key = _fingerprint(results, metric)
        if key is None:
            continue
        first = seen.setdefault(key, results)
        if first is not results and _measurements(first, metric).equals(
            _measurements(results, metric)
        ):
            return first, results
    return None


@dataclass(frozen=True)
class RepeatedShapes:
    """Shapes measured by more than one input (repeated runs): how many, the first
    of them (``M=256/N=256/K=256``) and the first two inputs that measure it."""

    shapes: int
    first_shape: str
    first: str
    again: str

    def said(self) -> str:
        """``3 shapes (first M=256/...) are in A/out.pkl too``, of ``again``."""
        many = f"{self.shapes} shapes (first {self.first_shape}) are"
        one = f"shape {self.first_shape} is"
        return f"{many if self.shapes > 1 else one} in {self.first} too"


def repeated_shapes(
    inputs: Sequence[Results], shape_cols: Sequence[str]
) -> RepeatedShapes | None:
    """The shapes (values of ``shape_cols``) that more than one input measures; None
    when every shape comes from one input, or without shape columns to tell."""
    columns = list(shape_cols)
    if len(inputs) < 2 or not columns:
        return None
    if any(c not in r.frame.columns for r in inputs for c in columns):
        return None
    frame = pd.concat([r.frame[columns] for r in inputs], ignore_index=True)
    shape = group_codes(frame, columns)  # numbered by first appearance
    owner = np.repeat(np.arange(len(inputs)), [len(r.frame) for r in inputs])
    pairs = np.unique(shape * len(inputs) + owner)  # each (shape, input) once
    holders = np.bincount(pairs // len(inputs))
    repeated = np.flatnonzero(holders > 1)
    if not len(repeated):
        return None
    first = repeated[0]
    files = pairs[pairs // len(inputs) == first] % len(inputs)
    row = int(np.flatnonzero(shape == first)[0])
    return RepeatedShapes(
        shapes=len(repeated),
        first_shape=frame_shape_label(frame.iloc[row : row + 1], columns),
        first=inputs[files[0]].path,
        again=inputs[files[1]].path,
    )


def _measurements(results: Results, metric: Metric) -> pd.DataFrame:
    """The parameters and the metric of the rows of the results table (not the
    failed points added from kbench's record), columns by name, rows in order."""
    frame = results.frame
    if results.failure is not None and results.failure in frame.columns:
        frame = frame[frame[results.failure].isna().to_numpy()]
    named = sorted({*results.params, metric.column} & set(frame.columns))
    columns = [c for c in named if frame[c].notna().any()]  # a failed point's own
    return frame[columns].reset_index(drop=True)


def _fingerprint(results: Results, metric: Metric) -> tuple[int, bytes] | None:
    """Row count and a hash of the measurements (None: a value pandas cannot hash)."""
    frame = _measurements(results, metric)
    try:
        hashed = pd.util.hash_pandas_object(frame, index=False).to_numpy()
    except TypeError:
        return None
    return len(frame), tuple(frame.columns).__repr__().encode() + hashed.tobytes()


def _named(part: Results, shape_cols: Sequence[str], grouped: bool) -> Results:
    """A shape's part, called ``M=16/N=4096 (median of 2 files)``; with ``-p`` the
    per-file views add the shape to the title themselves."""
    if grouped or not shape_cols:
        return part
    shape = frame_shape_label(part.frame, shape_cols)
    return dataclasses.replace(part, path=f"{shape} ({part.path})")
