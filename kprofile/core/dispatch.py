"""The dispatch rule: which entry of a table a kernel takes for a problem shape.

A table is a manifest's ``params`` in order, merge keys applied (what
``tuning_codegen.manifest.load_manifest`` reads). For each shape (a row of shape
column values, e.g. ``M, N, K``) the rule is:

- **Key columns** are the shape columns that at least one entry carries (or the
  end of a range over it, so an ``M_END`` without ``M`` is an error). A shape
  column no entry carries (a constant ``dtype`` the table never spells, say) is not
  matched on; ``Dispatch.unkeyed`` names it so a report can say so.
- **Ranges.** On a key column ``C``, an entry that also carries ``C_END``
  (``kprofile.core.columns.end_column``: ``M_END`` for ``M``, ``m_end`` for ``m``)
  covers the values ``v`` with ``C <= v < C_END``, as ``--ranges`` writes them and
  Modular's SM100 tables read them. Both ends must be numbers (booleans are not), and
  a shape whose value is not a number lies in no range. The last range of a
  ``--ranges`` table ends where its ``C_END`` says (the group's last swept point + 1,
  or ``--range-end``), so a larger value met on another sweep is not covered.
- **Exact keys.** On every other key column the entry covers the shapes whose value
  is the entry's, as ``kprofile.core.values.same_value`` means it (256 == 256.0,
  ``True != 1``, ``'1' != 1``). A key an entry lacks reads as null: it matches only a
  shape with no value there. (For whole numbers this agrees with ``TuningConfigSM100``,
  whose constructor without ``M_end`` sets ``M_end = M + 1``.)
- **First match wins.** An entry covers a shape when every key column matches; of
  several, the first in table order is taken, as a kernel scanning its table in order
  would. ``Dispatch.covering`` counts them, so overlaps can be reported; ``--ranges``
  and ``--cover`` write tables without overlaps.

All of it is numpy over a shapes x entries matrix, in chunks of shapes.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from kprofile.core.columns import end_column
from kprofile.core.values import canon_code, canon_codes, plain, value_label
from kprofile.errors import KprofileError
from tuning_codegen.manifest import Entry, Manifest

#: Cells of the shapes x entries match matrix computed at once.
CHUNK_CELLS = 1 << 22


@dataclass(frozen=True, eq=False)
class Dispatch:
    """Per shape (the rows of the ``shapes`` frame, in order): ``entry``, the index in
    ``params`` of the entry taken (-1: no entry covers it) and ``covering``, how many
    entries cover it. ``keys``: the shape columns matched on; ``ranged``: those that
    some entry gives as a range; ``unkeyed``: shape columns no entry carries."""

    entry: np.ndarray
    covering: np.ndarray
    keys: tuple[str, ...]
    ranged: tuple[str, ...]
    unkeyed: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class _Condition:
    """One key column: per shape its value code and number (NaN if not a number); per
    entry whether it gives a range, its ``[low, high)`` and its value code."""

    shape_code: np.ndarray
    shape_number: np.ndarray
    ranged: np.ndarray
    low: np.ndarray
    high: np.ndarray
    entry_code: np.ndarray

    def matches(self, rows: slice) -> np.ndarray:
        """The rows x entries boolean matrix of this column for a chunk of shapes."""
        code = self.shape_code[rows, None]
        number = self.shape_number[rows, None]
        with np.errstate(invalid="ignore"):
            inside = (self.low <= number) & (number < self.high)
        return np.where(self.ranged, inside, code == self.entry_code)


def dispatch(
    table: Manifest, shapes: pd.DataFrame, shape_cols: Sequence[str]
) -> Dispatch:
    """The entry of ``table`` each row of ``shapes`` dispatches to (module docstring).

    A range whose ends are not numbers is an error naming the entry's line."""
    entries = table.entries
    keys = tuple(
        c
        for c in shape_cols
        if any(c in e.values or end_column(c) in e.values for e in entries)
    )
    unkeyed = tuple(c for c in shape_cols if c not in keys)
    conditions = [_condition(table, c, shapes[c]) for c in keys]
    entry, covering = _first_match(conditions, len(shapes), len(entries))
    ranged = tuple(c for c, cond in zip(keys, conditions) if cond.ranged.any())
    return Dispatch(entry, covering, keys, ranged, unkeyed)


def _condition(table: Manifest, column: str, values: pd.Series) -> _Condition:
    vocabulary: dict[Hashable, int] = {}
    shape_code = canon_codes(values, vocabulary)
    end = end_column(column)
    entries = table.entries
    ranged = np.array([end in e.values for e in entries], dtype=bool)
    bounds = [
        _range(table.path, e, column, end) if r else (math.nan, math.nan)
        for e, r in zip(entries, ranged)
    ]
    entry_code = np.array(
        [
            -1 if r else canon_code(e.values.get(column), vocabulary)
            for e, r in zip(entries, ranged)
        ],
        dtype=np.int64,
    )
    return _Condition(
        shape_code=shape_code,
        shape_number=np.array([_number(v) for v in values.tolist()], dtype=np.float64),
        ranged=ranged,
        low=np.array([b[0] for b in bounds], dtype=np.float64),
        high=np.array([b[1] for b in bounds], dtype=np.float64),
        entry_code=entry_code,
    )


def _number(value: Any) -> float:
    """``value`` as a float if it is a number (not a boolean), else NaN."""
    value = plain(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return math.nan
    return float(value)


def _range(path: str, entry: Entry, column: str, end: str) -> tuple[float, float]:
    """An entry's ``[column, end)`` as numbers, or an error at the entry's line."""
    where = f"params[{entry.position}]"
    if column not in entry.values:
        raise KprofileError(
            path,
            f"{where} has {end} but no {column}: a range needs both ends",
            line=entry.line,
        )
    low, high = _number(entry.values[column]), _number(entry.values[end])
    if math.isnan(low) or math.isnan(high):
        written = (
            f"{value_label(entry.values[column])}, {value_label(entry.values[end])}"
        )
        raise KprofileError(
            path,
            f"{where}: the range [{column}, {end}) must have numbers at "
            f"both ends, got [{written})",
            line=entry.line,
        )
    return low, high


def _first_match(
    conditions: Sequence[_Condition], n_shapes: int, n_entries: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per shape the first entry every condition accepts (-1: none), and how many."""
    entry = np.full(n_shapes, -1, dtype=np.int64)
    covering = np.zeros(n_shapes, dtype=np.int64)
    if n_entries == 0:
        return entry, covering
    step = max(1, CHUNK_CELLS // n_entries)
    for start in range(0, n_shapes, step):
        rows = slice(start, min(n_shapes, start + step))
        hit = np.ones((rows.stop - rows.start, n_entries), dtype=bool)
        for condition in conditions:
            hit &= condition.matches(rows)
        covering[rows] = hit.sum(axis=1)
        entry[rows] = np.where(hit.any(axis=1), hit.argmax(axis=1), -1)
    return entry, covering
