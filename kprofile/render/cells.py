"""Table cells as text: what every text renderer shows for a value.

Floats are rounded to 3 decimal places and missing values are ``-``; a float column is
formatted in one vectorized step.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from kprofile.core.values import plain

MISSING = "-"


def cell(value: Any) -> str:
    """One value as text: floats to 3 places, missing as '-'."""
    value = plain(value)
    if value is None:
        return MISSING
    if isinstance(value, float):
        return MISSING if math.isnan(value) else f"{value:.3f}"
    return str(value)


def column_cells(column: pd.Series) -> list[str]:
    """Format a whole column at once (vectorized for float columns)."""
    if pd.api.types.is_float_dtype(column.dtype) and not isinstance(
        column.dtype, pd.api.extensions.ExtensionDtype
    ):
        array = column.to_numpy(dtype=np.float64)
        text = np.char.mod(
            "%.3f", np.nan_to_num(array, nan=0.0, posinf=0.0, neginf=0.0)
        ).astype(object)
        text[np.isnan(array)] = MISSING
        inf = np.isinf(array)
        text[inf] = np.where(array[inf] > 0, "inf", "-inf")
        return list(text)
    return [cell(v) for v in column.tolist()]


def is_numeric(column: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(
        column.dtype
    ) and not pd.api.types.is_bool_dtype(column.dtype)


def table_cells(table: pd.DataFrame) -> tuple[list[str], list[list[str]], list[bool]]:
    """Header, rows of cell texts, and which columns are numeric (right-aligned)."""
    header = [str(c) for c in table.columns]
    columns = [column_cells(table.iloc[:, i]) for i in range(table.shape[1])]
    numeric = [is_numeric(table.iloc[:, i]) for i in range(table.shape[1])]
    rows = [list(r) for r in zip(*columns)] if columns else []
    return header, rows, numeric
