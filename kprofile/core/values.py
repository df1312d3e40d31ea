"""One conversion for values taken out of a table, and one way to label them.

``plain`` turns numpy and pandas scalars into Python values (missing values become
None); every writer (manifests, JSON, charts, labels) starts from it. ``entry`` makes
a row of a results table a manifest entry (missing values left out: a spec string
spells no null and no NaN); ``exact`` converts a value that came from a YAML input,
where null and ``.nan`` are values, without turning either into "missing".
``value_label`` spells a value as a spec string does (``128``, ``True``,
``ws_pingpong``), with ``NA`` for a missing value; ``shape_label`` joins labels into
``M=256/N=20480``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

MISSING_LABEL = "NA"


def plain(value: Any) -> Any:
    """numpy/pandas scalars as Python values; None, NA, NaT and NaN as None."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def exact(value: Any) -> Any:
    """numpy/pandas scalars as Python values, keeping None, NaN and -0.0 as they are;
    a pandas Timestamp as a ``datetime`` when it has no nanoseconds."""
    if isinstance(value, np.datetime64):
        value = pd.Timestamp(value)
    elif isinstance(value, np.generic):
        return value.item()
    if isinstance(value, pd.Timestamp) and value is not pd.NaT:
        return value.to_pydatetime() if not value.nanosecond else value
    return value


def is_missing(value: Any) -> bool:
    """pandas' missing markers, which are never a value (None and NaN may be)."""
    return value is pd.NA or value is pd.NaT


def entry(values: Mapping[Any, Any]) -> dict[str, Any]:
    """A row of a results table as a manifest entry: Python values, missing values
    (None, NA, NaN) left out."""
    out = {}
    for key, value in values.items():
        value = plain(value)
        if value is not None:
            out[str(key)] = value
    return out


def entries(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of a results table as manifest entries (see ``entry``)."""
    return [entry(row) for row in frame.to_dict("records")]


def value_label(value: Any) -> str:
    """A parameter value as it reads in a spec string; ``NA`` when missing."""
    value = plain(value)
    return MISSING_LABEL if value is None else str(value)


def shape_label(values: Mapping[str, Any]) -> str:
    """``M=256/N=20480/K=5376`` for a mapping of column to value."""
    return "/".join(f"{k}={value_label(v)}" for k, v in values.items())
