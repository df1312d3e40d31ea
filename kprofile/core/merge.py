"""``--merge``, the analysis: an outer join of several tables (usually manifests) on
pivot columns.

Rows keep the order in which their pivot values first appear across the inputs. A
column other than the pivots present in several inputs is filled from the first input
that has a value for the row; rows where inputs disagree are counted in a note.

Values stay exactly what the inputs hold: rows are joined by ``value_key`` (the one
definition of "the same value": 256 and 256.0 alike, True and 1 apart, NaN equal to
NaN), and a YAML input's null and ``.nan`` are values, not holes. A cell no input
fills is missing (``pd.NA``, or the mask of a nullable column); ``merged_entries``
turns the table into manifest entries without the missing keys.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from kprofile.core.values import exact
from kprofile.errors import KprofileError, column_list, usage_error
from kprofile.inputs.load import Results
from tuning_codegen.values import same_value, value_key

_MISSING_KEY = ("missing",)


@dataclass(frozen=True, eq=False)
class Merged:
    table: pd.DataFrame
    pivots: tuple[str, ...]
    conflicts: int


@dataclass(frozen=True, eq=False)
class Cells:
    """One column exactly: its values (Python objects) and which rows have one."""

    values: np.ndarray
    present: np.ndarray


def default_pivots(inputs: Sequence[Results]) -> tuple[str, ...]:
    """The parameter columns every input has, in the first input's order."""
    return tuple(p for p in inputs[0].params if all(p in r.params for r in inputs[1:]))


def merge_inputs(inputs: Sequence[Results], pivots: Sequence[str] = ()) -> Merged:
    """Outer join of the inputs' parameter tables on ``pivots`` (default: common
    columns)."""
    keys = tuple(pivots) or default_pivots(inputs)
    if not keys:
        raise usage_error(
            "--merge: the inputs share no column to join on; name pivots with -p",
        )
    for results in inputs:
        missing = [k for k in keys if k not in results.params]
        if missing:
            raise KprofileError(
                results.path,
                f"--merge: no pivot column {', '.join(map(repr, missing))}; "
                f"{column_list(results.params)}",
            )
    rows = _joined_rows(inputs, keys)
    columns: dict[str, Cells] = {}
    conflicts = 0
    for column in _columns(inputs, keys):
        cells, disagree = _combined(inputs, rows, column)
        columns[column] = cells
        conflicts += disagree if column not in keys else 0
    table = pd.DataFrame(
        {c: typed(cells) for c, cells in columns.items()}, columns=list(columns)
    )
    return Merged(table, keys, conflicts)


def cells(results: Results, column: str) -> Cells:
    """``column`` of ``results`` exactly. In a YAML input's object column only
    ``pd.NA`` is missing (None is a null, NaN a ``.nan``); elsewhere what pandas calls
    missing is (a spec string spells neither null nor NaN)."""
    series = results.frame[column]
    values = series.to_numpy(dtype=object)
    if results.kind == "yaml" and series.dtype.kind == "O":
        present = np.fromiter(
            (v is not pd.NA for v in values), dtype=bool, count=len(values)
        )
    else:
        present = ~series.isna().to_numpy(dtype=bool)
    return Cells(values, present)


def _columns(inputs: Sequence[Results], keys: tuple[str, ...]) -> list[str]:
    """The pivots, then every other parameter in order of first appearance."""
    out = list(keys)
    for results in inputs:
        out += [p for p in results.params if p not in out]
    return out


def _joined_rows(inputs: Sequence[Results], keys: tuple[str, ...]) -> list[np.ndarray]:
    """Per input, the row of it each output row comes from (-1: none). Output rows are
    the distinct pivot tuples in order of first appearance; an input with a tuple twice
    makes its rows twice (as a left join does)."""
    ids: list[dict[Hashable, int]] = [{} for _ in keys]
    frames = []
    for results in inputs:
        codes = {i: _key_ids(cells(results, k), ids[i]) for i, k in enumerate(keys)}
        frames.append(pd.DataFrame(codes))
    names = list(range(len(keys)))
    table = pd.concat(frames, ignore_index=True).drop_duplicates(ignore_index=True)
    for number, frame in enumerate(frames):
        frame = frame.assign(**{f"row{number}": np.arange(len(frame))})
        table = table.merge(frame, how="left", on=names, sort=False)
    return [
        table[f"row{n}"].to_numpy(dtype=np.float64, na_value=-1).astype(np.int64)
        for n in range(len(frames))
    ]


def _key_ids(column: Cells, ids: dict[Hashable, int]) -> np.ndarray:
    """One integer per row for its value's ``value_key`` (shared across inputs)."""
    out = np.empty(len(column.values), dtype=np.int64)
    for i, (value, present) in enumerate(zip(column.values, column.present)):
        key = value_key(exact(value)) if present else _MISSING_KEY
        out[i] = ids.setdefault(key, len(ids))
    return out


def _combined(
    inputs: Sequence[Results], rows: Sequence[np.ndarray], column: str
) -> tuple[Cells, int]:
    """One output column: from the first input with a value for each row; and the
    number of rows where a later input has a different value."""
    size = len(rows[0])
    values = np.full(size, pd.NA, dtype=object)
    present = np.zeros(size, dtype=bool)
    conflicts = 0
    for results, where in zip(inputs, rows):
        if column not in results.params:
            continue
        source = cells(results, column)
        has = where >= 0
        has[has] = source.present[where[has]]
        both = has & present
        conflicts += sum(
            not same_value(exact(a), exact(b))
            for a, b in zip(values[both], source.values[where[both]])
        )
        fill = has & ~present
        values[fill] = source.values[where[fill]]
        present |= fill
    return Cells(values, present), conflicts


def typed(column: Cells) -> Any:
    """A merged column as the narrowest pandas array that keeps every value exactly:
    Int64, boolean or Float64 (NaN a value, missing masked) when one type fits all,
    else objects with ``pd.NA`` where missing."""
    values = [exact(v) for v in column.values[column.present]]
    kinds = {type(v) for v in values}
    mask = ~column.present
    if kinds == {bool}:
        data = np.zeros(len(mask), dtype=bool)
        data[column.present] = values
        return pd.arrays.BooleanArray(data, mask)
    if kinds == {int} and all(-(2**63) <= v < 2**63 for v in values):
        ints = np.zeros(len(mask), dtype=np.int64)
        ints[column.present] = values
        return pd.arrays.IntegerArray(ints, mask)
    if kinds == {float}:
        floats = np.zeros(len(mask), dtype=np.float64)
        floats[column.present] = values
        return pd.arrays.FloatingArray(floats, mask)
    out = np.full(len(mask), pd.NA, dtype=object)
    out[column.present] = column.values[column.present]
    return pd.Series(out, dtype=object, copy=False)


def merged_entries(table: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of a merged table as manifest entries: exact values, missing keys
    left out."""
    columns = []
    for name in table.columns:
        series = table[name]
        values = series.to_numpy(dtype=object)
        if series.dtype.kind == "O":
            present = np.array([v is not pd.NA for v in values], dtype=bool)
        else:
            present = ~series.isna().to_numpy(dtype=bool)
        columns.append((str(name), values, present))
    return [
        {name: exact(values[i]) for name, values, present in columns if present[i]}
        for i in range(len(table))
    ]


def sort_rows(table: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """Stable sort by ``columns`` (each ascending, missing last)."""
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise usage_error(
            f"--sort-pivots: no column {', '.join(map(repr, missing))}; "
            f"{column_list(table.columns)}"
        )
    try:
        return table.sort_values(
            list(columns), kind="stable", na_position="last", ignore_index=True
        )
    except TypeError as exc:
        raise usage_error(f"--sort-pivots: cannot sort mixed values ({exc})") from None
