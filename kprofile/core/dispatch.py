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

Ranges are half-open and never empty: an entry whose ``C_END`` is not above its ``C``
is an error at its line. Range ends and shape values are compared as exact numbers
(an integer is never rounded to a float: at ``M = 2**53`` the range ``[2**53, 2**53 +
1)`` holds ``2**53`` and nothing else). The matching is near-linear in shapes plus
entries (``kprofile.core.dispatch_match``).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from kprofile.core.columns import end_column
from kprofile.core.dispatch_match import Group, exact_ranks, first_match
from kprofile.core.values import canon_code_list, canon_codes, plain, value_label
from kprofile.errors import KprofileError
from tuning_codegen.manifest import Entry, Manifest


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


def dispatch(
    table: Manifest, shapes: pd.DataFrame, shape_cols: Sequence[str]
) -> Dispatch:
    """The entry of ``table`` each row of ``shapes`` dispatches to (module docstring).

    A range whose ends are not two numbers, or whose end is not above its start, is
    an error naming the entry's line."""
    entries = table.entries
    keys = tuple(
        c
        for c, end in ((c, end_column(c)) for c in shape_cols)
        if any(c in e.values or end in e.values for e in entries)
    )
    unkeyed = tuple(c for c in shape_cols if c not in keys)
    ends = [end_column(c) for c in keys]
    patterns = [tuple(end in e.values for end in ends) for e in entries]
    columns = _columns(table, shapes, keys, patterns)
    entry = np.full(len(shapes), -1, dtype=np.int64)
    covering = np.zeros(len(shapes), dtype=np.int64)
    for pattern in dict.fromkeys(patterns):
        group = _group(pattern, patterns, columns)
        first, count = first_match(group, len(shapes))
        better = (first >= 0) & ((entry < 0) | (first < entry))
        entry = np.where(better, first, entry)
        covering += count
    ranged = tuple(c for i, c in enumerate(keys) if any(p[i] for p in patterns))
    return Dispatch(entry, covering, keys, ranged, unkeyed)


class _Column(NamedTuple):
    """One key column, both sides: per shape and per entry the value's code (exact
    matching); where some entry gives a range over it, per shape the value's exact
    rank (-1: no number) and per entry its ends' ranks (0 where it gives none)."""

    shape_code: np.ndarray
    entry_code: np.ndarray
    shape_rank: np.ndarray
    low: np.ndarray
    high: np.ndarray


def _columns(
    table: Manifest,
    shapes: pd.DataFrame,
    keys: Sequence[str],
    patterns: Sequence[tuple[bool, ...]],
) -> list[_Column]:
    columns = []
    for i, column in enumerate(keys):
        vocabulary: dict[Hashable, int] = {}
        shape_code = canon_codes(shapes[column], vocabulary)
        entry_code = canon_code_list(
            [e.values.get(column) for e in table.entries], vocabulary
        )
        ranged = [j for j, p in enumerate(patterns) if p[i]]
        ranks = _ranks(table, ranged, column, shapes[column])
        columns.append(_Column(shape_code, entry_code, *ranks))
    return columns


def _ranks(
    table: Manifest, ranged: Sequence[int], column: str, values: pd.Series
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The exact ranks of the shapes' numbers and of the ranged entries' ends, among
    all of them (``dispatch_match.exact_ranks``)."""
    n_entries = len(table.entries)
    low = np.zeros(n_entries, dtype=np.int64)
    high = np.zeros(n_entries, dtype=np.int64)
    if not ranged:
        return np.zeros(0, dtype=np.int64), low, high
    end = end_column(column)
    ends = [_range(table.path, table.entries[j], column, end) for j in ranged]
    numbers = [_number(v) for v in values.tolist()]
    present = [n for n in numbers if n is not None]
    everything = exact_ranks([*present, *(a for a, _ in ends), *(b for _, b in ends)])
    shape_rank = np.full(len(numbers), -1, dtype=np.int64)
    shape_rank[[n is not None for n in numbers]] = everything[: len(present)]
    at = np.array(ranged, dtype=np.int64)
    low[at] = everything[len(present) : len(present) + len(ends)]
    high[at] = everything[len(present) + len(ends) :]
    return shape_rank, low, high


def _group(
    pattern: tuple[bool, ...],
    patterns: Sequence[tuple[bool, ...]],
    columns: Sequence[_Column],
) -> Group:
    """The entries of one pattern, with their columns and the shapes'."""
    at = np.array([j for j, p in enumerate(patterns) if p == pattern], dtype=np.int64)
    exact = [c for c, r in zip(columns, pattern) if not r]
    ranged = [c for c, r in zip(columns, pattern) if r]
    return Group(
        entries=at,
        entry_codes=[c.entry_code[at] for c in exact],
        lows=[c.low[at] for c in ranged],
        highs=[c.high[at] for c in ranged],
        shape_codes=[c.shape_code for c in exact],
        shape_ranks=[c.shape_rank for c in ranged],
    )


def _number(value: Any) -> int | float | None:
    """``value`` as a Python number if it is one (not a boolean, not NaN), else
    None."""
    value = plain(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value


def _range(path: str, entry: Entry, column: str, end: str) -> tuple[Any, Any]:
    """An entry's ``[column, end)`` as numbers, or an error at the entry's line: two
    numbers, the end above the start (compared exactly)."""
    where = f"params[{entry.position}]"
    if column not in entry.values:
        raise KprofileError(
            path,
            f"{where} has {end} but no {column}: a range needs both ends",
            line=entry.line,
        )
    low, high = _number(entry.values[column]), _number(entry.values[end])
    written = f"{value_label(entry.values[column])}, {value_label(entry.values[end])}"
    if low is None or high is None:
        raise KprofileError(
            path,
            f"{where}: the range [{column}, {end}) must have numbers at "
            f"both ends, got [{written})",
            line=entry.line,
        )
    if not high > low:
        raise KprofileError(
            path,
            f"{where}: the range [{column}, {end}) = [{written}) is empty: {end} "
            f"must be above {column}",
            line=entry.line,
        )
    return low, high
