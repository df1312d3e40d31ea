"""All inputs as one table, for the analyses over every shape at once (--cover,
--importance)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from kprofile.core.problems import shape_keys
from kprofile.inputs.load import Results


@dataclass(frozen=True, eq=False)
class Combined:
    """Every input's rows in one frame, and the roles of its parameter columns.

    ``shape_cols``: ``kprofile.core.problems.shape_keys`` (``-p`` if given, else the
    kbench runtime parameters, else the columns constant within every file), so one
    file that holds several shapes is still split by shape. ``param_cols``: every other
    parameter column of any input, in first-seen order.
    """

    frame: pd.DataFrame
    shape_cols: tuple[str, ...]
    param_cols: tuple[str, ...]


def combine(inputs: Sequence[Results], pivots: Sequence[str]) -> Combined:
    """One ``pd.concat`` of the inputs' frames; a parameter some inputs lack keeps its
    type."""
    shape = shape_keys(inputs, pivots)
    params = tuple(dict.fromkeys(p for r in inputs for p in r.params if p not in shape))
    partial = [p for p in params if not all(p in r.frame.columns for r in inputs)]
    frames = [_as_objects(r.frame, partial) for r in inputs]
    return Combined(pd.concat(frames, ignore_index=True, sort=False), shape, params)


def _as_objects(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """Columns that will be missing in other inputs as object dtype, so 128 stays 128,
    not 128.0."""
    present = [c for c in columns if c in frame.columns]
    return frame.astype({c: object for c in present}) if present else frame
