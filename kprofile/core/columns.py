"""Column roles in a loaded file, and splitting a file into groups of rows.

A file's parameter columns come from its spec strings (or a YAML's params keys). The
ones constant within the file are its *shape* (M, N, K); the ones that vary are what
the sweep tuned. All of it is vectorized: one pass per column, never a step per row.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from kprofile.core.configs import config_keys
from kprofile.core.problems import is_constant, no_pivot
from kprofile.core.values import plain, shape_label
from kprofile.errors import KprofileError
from kprofile.inputs.limits import MAX_SHAPES
from kprofile.inputs.load import MESH_IDX, Results


def row_id(results: Results, position: int) -> tuple[str, Any]:
    """What the row at ``position`` is called, and its name: ``("mesh_idx", 129)``
    for kbench's mesh index; ``("row", "out.csv:17")`` for a CSV row, which has no
    mesh_idx, by the line it starts on; ``("row", 17)`` for a pickled frame without a
    mesh_idx, by its position there. Never a row number passed off as a mesh_idx."""
    return row_name(results, plain(results.frame[results.row_key].iloc[position]))


def row_name(results: Results, key: Any) -> tuple[str, Any]:
    """``row_id`` of the row whose row-key column holds ``key``."""
    if results.kind == "csv":
        return "row", f"{results.path}:{key}"
    return ("mesh_idx" if results.row_key == MESH_IDX else "row"), key


def row_label(results: Results, position: int) -> str:
    """``mesh_idx 129``, ``out.csv:17`` or ``row 17`` (see ``row_id``)."""
    what, value = row_id(results, position)
    return str(value) if results.kind == "csv" else f"{what} {value}"


def row_labels(results: Results) -> np.ndarray:
    """What every row is called, with its file: ``run.pkl mesh_idx 129``,
    ``out.csv:17``, ``run.pkl row 17`` (``row_label``, with the path first)."""
    keys = results.frame[results.row_key].astype(str).to_numpy(dtype=object)
    if results.kind == "csv":
        return f"{results.path}:" + keys
    what = "mesh_idx" if results.row_key == MESH_IDX else "row"
    return f"{results.path} {what} " + keys


def input_labels(inputs: Sequence[Results]) -> list[str]:
    """Short distinct names for the inputs: file stems; else the shortest path
    suffix that tells them apart (``out.pkl`` and ``out.csv``; ``A/out.pkl`` and
    ``B/out.pkl``); a file given twice as ``out#1``, ``out#2``."""
    stems = [Path(r.path).stem for r in inputs]
    if len(set(stems)) == len(stems):
        return stems
    parts = [Path(r.path).parts for r in inputs]
    for length in range(1, max(len(p) for p in parts) + 1):
        suffixes = ["/".join(p[-length:]) for p in parts]
        if len(set(suffixes)) == len(suffixes):
            return suffixes
    return [f"{s}#{i + 1}" for i, s in enumerate(stems)]


def values_at(results: Results, column: str, rows: np.ndarray) -> list[Any]:
    """``column`` at each of ``rows`` (file rows; -1: none, None) as Python values;
    None throughout for a column the file lacks."""
    if column not in results.frame.columns:
        return [None] * len(rows)
    values = results.frame[column].iloc[rows.clip(0)].tolist()
    return [None if r < 0 else plain(v) for r, v in zip(rows.tolist(), values)]


def end_column(column: str) -> str:
    """Where a range over ``column`` ends (exclusive), as ``--ranges`` writes it and a
    dispatch table reads it: ``M`` -> ``M_END``, ``m`` -> ``m_end`` (the suffix in the
    column's own case: ``_END`` unless the name is all lower case)."""
    return column + ("_end" if column.islower() else "_END")


def shape_columns(results: Results) -> tuple[str, ...]:
    """Parameter columns constant within this file (the problem shape, e.g. M, N, K)."""
    if results.constant is not None:
        return results.constant
    return tuple(p for p in results.params if is_constant(results, p))


def varying(results: Results, columns: Sequence[str]) -> tuple[str, ...]:
    """Those of ``columns`` that take more than one value in this file."""
    known = results.constant
    if known is not None:
        return tuple(c for c in columns if c not in known)
    return tuple(c for c in columns if not is_constant(results, c))


def tuning_columns(results: Results) -> tuple[str, ...]:
    """Parameter columns that vary within this file (what the sweep tuned)."""
    shape = set(shape_columns(results))
    return tuple(p for p in results.params if p not in shape)


def first_values(frame: pd.DataFrame, columns: Sequence[str]) -> dict[str, Any]:
    """The first row's value of each of ``columns`` (constant columns), as Python.
    Column by column: a row of mixed types would cost a common dtype."""
    if frame.empty:
        return {}
    return {c: plain(frame[c].iloc[0]) for c in columns}


def frame_shape_label(frame: pd.DataFrame, columns: Sequence[str]) -> str:
    """``M=256/N=20480/K=5376`` from the first row of ``frame`` (constant columns)."""
    return shape_label(first_values(frame, columns))


@dataclass(frozen=True, eq=False)
class Grouping:
    """A file's rows grouped once by pivots (``-p``), groups in order of first
    appearance: group ``g`` is rows ``order[starts[g]:stops[g]]`` of the file, its
    pivots' values are ``values[g]``, and ``constant[p][g]`` says whether parameter
    ``p`` is constant in it. Without pivots, one group: the whole file."""

    results: Results
    order: np.ndarray
    starts: np.ndarray
    stops: np.ndarray
    constant: dict[str, np.ndarray]
    values: tuple[dict[str, Any], ...]

    def __len__(self) -> int:
        return len(self.starts)

    def label(self, g: int) -> str:
        """``M=256/N=...``; empty without pivots."""
        return shape_label(self.values[g])

    def constant_in(self, g: int) -> tuple[str, ...]:
        """The parameters constant in group ``g``, in ``params`` order."""
        return tuple(p for p, flags in self.constant.items() if flags[g])

    def varying_in(self, g: int) -> tuple[str, ...]:
        """The parameters that vary in group ``g`` (its ``tuning_columns``)."""
        return tuple(p for p, flags in self.constant.items() if not flags[g])

    @cached_property
    def group_ids(self) -> np.ndarray:
        """The group of each row of the file."""
        ids = np.empty(len(self.order), dtype=np.int64)
        ids[self.order] = np.repeat(np.arange(len(self)), self.stops - self.starts)
        return ids

    def part(self, g: int) -> Results:
        """Group ``g`` as a ``Results`` (its rows at positions from 0, ``constant``
        known): a slice of the file sorted once, made only when asked for."""
        if len(self) == 1 and not self.values[0]:
            return self.results
        start, stop = int(self.starts[g]), int(self.stops[g])
        frame = self.ordered.iloc[start:stop]
        frame.index = pd.RangeIndex(stop - start)
        return dataclasses.replace(
            self.results, frame=frame, constant=self.constant_in(g)
        )

    @cached_property
    def ordered(self) -> pd.DataFrame:
        """The file's rows, group by group."""
        return self.results.frame.take(self.order)


def split_by(results: Results, pivots: Sequence[str]) -> list[Results]:
    """The file split into one Results per distinct value of ``pivots`` (input order).

    With no pivots the file is returned whole. A pivot the file lacks is an error.
    """
    grouping = group_rows(results, pivots)
    return [grouping.part(g) for g in range(len(grouping))]


def group_rows(results: Results, pivots: Sequence[str]) -> Grouping:
    """The file's groups by ``pivots``, grouped once: one stable sort, and the constant
    columns of every group found in one pass per parameter (10,000 groups must not
    cost a pandas call each)."""
    frame = results.frame
    missing = [p for p in pivots if p not in frame.columns]
    if missing:
        raise no_pivot(results.path, missing, [results])
    if not pivots:
        shape = shape_columns(results)
        whole = dataclasses.replace(results, constant=shape)
        steady = {p: np.array([p in shape]) for p in results.params}
        starts, stops = np.zeros(1, dtype=np.int64), np.array([len(frame)])
        return Grouping(whole, np.arange(len(frame)), starts, stops, steady, ({},))
    codes = _pivot_codes(results, pivots)
    groups = int(codes.max()) + 1 if len(codes) else 0
    if groups > MAX_SHAPES:
        raise KprofileError(
            results.path,
            f"{groups:,} groups of -p {', '.join(pivots)}, over the limit of "
            f"{MAX_SHAPES:,}",
        )
    # codes number groups by first row: a file whose groups are runs in order (kbench
    # sweeps shape by shape) is already sorted, and nothing need be gathered
    in_runs = bool((codes[1:] >= codes[:-1]).all())
    order = np.arange(len(codes)) if in_runs else np.argsort(codes, kind="stable")
    ordered = codes if in_runs else codes[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    stops = np.r_[starts[1:], len(order)]
    firsts = order[starts]
    pivot_values = {p: frame[p].iloc[firsts].to_numpy(dtype=object) for p in pivots}
    values = tuple(
        {p: plain(pivot_values[p][g]) for p in pivots} for g in range(len(starts))
    )
    constant = _constant_in_groups(results, None if in_runs else order, starts)
    return Grouping(results, order, starts, stops, constant, values)


def _constant_in_groups(
    results: Results, order: np.ndarray | None, starts: np.ndarray
) -> dict[str, np.ndarray]:
    """Per parameter, whether it is constant within each group (missing a value);
    ``order``: the rows group by group (None: as they are)."""
    out = {}
    for param in results.params:
        codes = results.value_codes(param)
        local = codes if order is None else codes[order]
        changes = np.r_[False, local[1:] != local[:-1]]
        changes[starts] = False  # a group's first row starts it, changes nothing
        out[param] = np.add.reduceat(changes.astype(np.int64), starts) == 0
    return out


def _pivot_codes(results: Results, pivots: Sequence[str]) -> np.ndarray:
    """``group_codes`` of the pivots, from the loader's value codes where it made
    them for this frame (one integer pass per pivot, and one hash of integers,
    rather than a hash of each column's values)."""
    if results.known_codes is None or results.known_codes.frame() is not results.frame:
        return group_codes(results.frame, pivots)
    if any(p not in results.known_codes.codes for p in pivots):
        return group_codes(results.frame, pivots)
    key = config_keys(results, pivots)  # equal where every pivot is
    return np.asarray(pd.factorize(key)[0], dtype=np.int64)


def group_codes(frame: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """One integer per row for its tuple of ``columns``, by first appearance; NaN is
    a value like any other."""
    codes = np.zeros(len(frame), dtype=np.int64)
    for step, column in enumerate(columns):
        local, uniques = pd.factorize(frame[column], use_na_sentinel=False)
        # re-factorized at each step, so codes stay below the row count (the first
        # column's codes are numbered by first appearance already)
        codes = pd.factorize(codes * len(uniques) + local)[0] if step else local
    return np.asarray(codes, dtype=np.int64)


def first_minimum(keys: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per group (rows ``starts[g]`` to the next start, none empty), the position of
    its first smallest key."""
    smallest = np.minimum.reduceat(keys, starts)
    hits = np.flatnonzero(
        keys == np.repeat(smallest, np.diff(np.r_[starts, len(keys)]))
    )
    return hits[np.searchsorted(hits, starts)]
