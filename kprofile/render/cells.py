"""Table cells as text: what every text renderer shows for a value.

Floats are rounded to 3 decimal places and missing values are ``-``; a float column is
formatted in one vectorized step. Below 0.1, where 3 places would keep only one or two
digits of a metric in seconds (``met (s)`` of Python benchmarks), a float keeps 3
significant digits (``0.0183``, ``0.00120``). A float that 3 places would misstate (so
small it would read ``0.000``, or so large it would be a row of digits: a metric of
5e-324 or 1e308) is shown with 3 significant digits in exponent form (``4.94e-324``).

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
from kprofile.render.section import (
    Column,
    Table,
    Tabular,
    series_values,
    values_list,
)
from tuning_codegen.errors import one_line

MISSING = "-"
SMALL = 5e-4  # below this, 3 places show 0.000
FINE = 0.1  # below this, 3 places show fewer than 3 significant digits
LARGE = 1e15  # from here, 3 places show a row of digits


def cell(value: Any) -> str:
    """One value as text: floats to 3 places (3 significant digits below 0.1),
    missing as '-'."""
    value = plain(value)
    if value is None:
        return MISSING
    if isinstance(value, float):
        if math.isnan(value):
            return MISSING
        size = abs(value)
        if _far(size):
            return f"{value:.3g}"
        return f"{value:#.3g}" if 0 < size < FINE else f"{value:.3f}"
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
    """A whole Series' cells (see ``cells_of``)."""
    return cells_of(series_values(column), column.dtype)


def cells_of(column: Column, dtype: Any) -> list[str]:
    """Format a whole column at once (vectorized for long float columns; ``cell``
    spells every float the same way). ``dtype``: the column's (see ``Table``)."""
    if len(column) < SHORT:
        return [cell(v) for v in values_list(column)]
    if pd.api.types.is_float_dtype(dtype) and not isinstance(
        dtype, pd.api.extensions.ExtensionDtype
    ):
        array = np.asarray(column, dtype=np.float64)
        text = np.char.mod(
            "%.3f", np.nan_to_num(array, nan=0.0, posinf=0.0, neginf=0.0)
        ).astype(object)
        size = np.abs(np.nan_to_num(array, nan=1.0, posinf=1.0, neginf=1.0))
        fine = (size > 0) & (size < FINE)
        text[fine] = np.char.mod("%#.3g", array[fine]).astype(object)
        far = _far(size)
        text[far] = np.char.mod("%.3g", array[far]).astype(object)
        text[np.isnan(array)] = MISSING
        inf = np.isinf(array)
        text[inf] = np.where(array[inf] > 0, "inf", "-inf")
        return list(text)
    return [cell(v) for v in values_list(column)]


def is_numeric(dtype: Any) -> bool:
    """Whether a column of ``dtype`` holds numbers (shown right-aligned)."""
    return pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(
        dtype
    )


def table_cells(
    table: Tabular,
) -> tuple[list[str], list[list[str]], list[bool]]:
    """Header, rows of cell texts, and which columns are numeric (right-aligned)."""
    table = Table.of(table)
    header = [one_line(c) for c in table.names]
    columns = [cells_of(c, d) for c, d in zip(table.columns, table.dtypes)]
    numeric = [is_numeric(dtype) for dtype in table.dtypes]
    rows = [list(r) for r in zip(*columns)] if columns else []
    return header, rows, numeric
