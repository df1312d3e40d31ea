"""Table cells as text: what every text renderer shows for a value.

Floats are rounded to 3 decimal places and missing values are ``-``; a float column is
formatted in one vectorized step. A float that 3 places would misstate (so small it
would read ``0.000``, or so large it would be a row of digits: a metric of 5e-324 or
1e308) is shown with 3 significant digits instead (``4.94e-324``).

Every string from an input (values, names, paths, titles, notes) is shown through
``tuning_codegen.errors.one_line``: control characters, line breaks and bidirectional
overrides as escapes (``\\x1b``), never raw, so a result file cannot clear the
screen, move the cursor or retitle the window.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from kprofile.core.values import plain
from tuning_codegen.errors import one_line

MISSING = "-"
SMALL = 5e-4  # below this, 3 places show 0.000
LARGE = 1e15  # from here, 3 places show a row of digits


def cell(value: Any) -> str:
    """One value as text: floats to 3 places, missing as '-'."""
    value = plain(value)
    if value is None:
        return MISSING
    if isinstance(value, float):
        if math.isnan(value):
            return MISSING
        return f"{value:.3g}" if _far(abs(value)) else f"{value:.3f}"
    return one_line(str(value))


def _far(size: Any) -> Any:
    """Whether a magnitude (or an array of them) is beyond what 3 places show."""
    return (size >= LARGE) | ((size > 0) & (size < SMALL))


def note_lines(note: str) -> list[str]:
    """A note's lines as shown: one, or a diff's, each through ``one_line``. A diff of
    a CRLF file keeps its ``\\r`` at the end of each line (harmless there, and what
    the file holds); nowhere else does one stay raw."""
    lines = note.rstrip("\n").split("\n")
    return [
        one_line(line[:-1]) + "\r" if line.endswith("\r") else one_line(line)
        for line in lines
    ]


SHORT = 64  # rows: below this, value by value is faster than numpy's string ops


def column_cells(column: pd.Series) -> list[str]:
    """Format a whole column at once (vectorized for long float columns; ``cell``
    spells every float the same way)."""
    if len(column) < SHORT:
        return [cell(v) for v in column.tolist()]
    if pd.api.types.is_float_dtype(column.dtype) and not isinstance(
        column.dtype, pd.api.extensions.ExtensionDtype
    ):
        array = column.to_numpy(dtype=np.float64)
        text = np.char.mod(
            "%.3f", np.nan_to_num(array, nan=0.0, posinf=0.0, neginf=0.0)
        ).astype(object)
        far = _far(np.abs(np.nan_to_num(array, nan=1.0, posinf=1.0, neginf=1.0)))
        text[far] = np.char.mod("%.3g", array[far]).astype(object)
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
    header = [one_line(str(c)) for c in table.columns]
    series = [column for _, column in table.items()]  # by position: names may repeat
    columns = [column_cells(column) for column in series]
    numeric = [is_numeric(column) for column in series]
    rows = [list(r) for r in zip(*columns)] if columns else []
    return header, rows, numeric
