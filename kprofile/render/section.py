"""What a mode reports: sections of facts and tables, for ``kprofile.render``.

A section's table is a pandas DataFrame, or a ``Table``: the same columns by position,
without what a DataFrame costs to build (about 70 us even for 4 rows, as much again
to read back). The per-group views of 10,000 ``-p`` groups make 10,000 tables per
view, so they build ``Table``; a mode that has a DataFrame passes it. Renderers read
either through ``Table.of``, which shows a DataFrame exactly as its columns hold it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# A column's values: a list (as ``Series.tolist()`` gives them) or a numpy array whose
# ``tolist()`` gives those values (numbers, booleans, or those values as objects).
Column = list[Any] | np.ndarray
_NUMBERS = "biufc"  # numpy kinds whose tolist() is what a Series of them gives


@dataclass(frozen=True, eq=False)
class Table:
    """Named columns of equal length, by position (a name may repeat). ``dtypes``:
    each column's dtype as a DataFrame column of those values would have it, which
    is what decides how it is shown (numbers right-aligned, floats to 3 places)."""

    names: tuple[str, ...]
    columns: tuple[Column, ...]
    dtypes: tuple[Any, ...]

    def __len__(self) -> int:
        return len(self.columns[0]) if self.columns else 0

    @property
    def empty(self) -> bool:
        """No rows or no columns, as ``DataFrame.empty``."""
        return not self.columns or len(self) == 0

    @classmethod
    def of(cls, table: pd.DataFrame | Table) -> Table:
        """``table`` as a ``Table`` (a ``Table`` as it is)."""
        if isinstance(table, Table):
            return table
        series = [column for _, column in table.items()]  # by position
        return cls(
            tuple(str(c) for c in table.columns),
            tuple(series_values(column) for column in series),
            tuple(column.dtype for column in series),
        )


Tabular = pd.DataFrame | Table  # what a section's table may be


def series_values(column: pd.Series) -> Column:
    """A Series' values as a ``Table`` column: its numpy array when that is numbers
    (no copy), else ``tolist()``."""
    dtype = column.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in _NUMBERS:
        return column.to_numpy()
    return column.tolist()


def values_list(column: Column) -> list[Any]:
    """A ``Table`` column's values as Python values."""
    return column.tolist() if isinstance(column, np.ndarray) else column


@dataclass(frozen=True, eq=False)
class Section:
    """One block of output.

    ``view`` names the kind (``summary``, ``ratio``, ``head``, ...); ``facts`` are
    label/value pairs; ``table`` is the tabular part; ``highlight`` lists table row
    positions to emphasise (the best entry); ``notes`` are extra lines.
    """

    view: str
    title: str
    source: str | None = None
    facts: tuple[tuple[str, Any], ...] = ()
    table: Tabular | None = None
    highlight: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()


class Picture(NamedTuple):
    """One chart a mode offers: ``name`` (its file's stem), ``title`` (the question it
    answers, the report's caption and the image's text alternative), ``shape`` (the
    shape it belongs to; empty: the whole run) and ``draw``, which makes the figure
    only when ``--plot`` or ``--report`` asks for it."""

    name: str
    title: str
    shape: str
    draw: Callable[[], Figure]
