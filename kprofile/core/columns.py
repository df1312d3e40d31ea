"""Column roles in a loaded file, and splitting a file into groups of rows.

A file's parameter columns come from its spec strings (or a YAML's params keys). The
ones constant within the file are its *shape* (M, N, K); the ones that vary are what
the sweep tuned. All of it is vectorized: one pass per column, never a step per row.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from kprofile.core.values import plain, shape_label
from kprofile.errors import KprofileError
from kprofile.inputs.limits import MAX_SHAPES
from kprofile.inputs.load import MESH_IDX, Results


def row_id(results: Results, position: int) -> tuple[str, Any]:
    """What the row at ``position`` is called, and its name: ``("mesh_idx", 129)``
    for kbench's mesh index; ``("row", "out.csv:17")`` for a CSV row, which has no
    mesh_idx, by the line it starts on; ``("row", 17)`` for a pickled frame without a
    mesh_idx, by its position there. Never a row number passed off as a mesh_idx."""
    value = plain(results.frame[results.row_key].iloc[position])
    if results.kind == "csv":
        return "row", f"{results.path}:{value}"
    return ("mesh_idx" if results.row_key == MESH_IDX else "row"), value


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


def _is_constant(column: pd.Series) -> bool:
    return bool(column.nunique(dropna=False) <= 1)


def end_column(column: str) -> str:
    """Where a range over ``column`` ends (exclusive), as ``--ranges`` writes it and a
    dispatch table reads it: ``M`` -> ``M_END``, ``m`` -> ``m_end`` (the suffix in the
    column's own case: ``_END`` unless the name is all lower case)."""
    return column + ("_end" if column.islower() else "_END")


def shape_columns(results: Results) -> tuple[str, ...]:
    """Parameter columns constant within this file (the problem shape, e.g. M, N, K)."""
    return tuple(p for p in results.params if _is_constant(results.frame[p]))


def tuning_columns(results: Results) -> tuple[str, ...]:
    """Parameter columns that vary within this file (what the sweep tuned)."""
    shape = set(shape_columns(results))
    return tuple(p for p in results.params if p not in shape)


def common_shape_columns(inputs: Sequence[Results]) -> tuple[str, ...]:
    """Parameter columns that every file has and that are constant within each file."""
    if not inputs:
        return ()
    shared = [p for p in inputs[0].params if all(p in r.params for r in inputs[1:])]
    return tuple(p for p in shared if all(_is_constant(r.frame[p]) for r in inputs))


def first_values(frame: pd.DataFrame, columns: Sequence[str]) -> dict[str, Any]:
    """The first row's value of each of ``columns`` (constant columns), as Python."""
    if frame.empty:
        return {}
    first = frame.iloc[0]
    return {c: plain(first[c]) for c in columns}


def frame_shape_label(frame: pd.DataFrame, columns: Sequence[str]) -> str:
    """``M=256/N=20480/K=5376`` from the first row of ``frame`` (constant columns)."""
    return shape_label(first_values(frame, columns))


def split_by(results: Results, pivots: Sequence[str]) -> list[Results]:
    """The file split into one Results per distinct value of ``pivots`` (input order).

    With no pivots the file is returned whole. A pivot the file lacks is an error.
    """
    if not pivots:
        return [results]
    missing = [p for p in pivots if p not in results.frame.columns]
    if missing:
        names = ", ".join(map(repr, missing))
        raise KprofileError(results.path, f"no column {names} to group by (-p)")
    codes = group_codes(results.frame, pivots)
    groups = int(codes.max()) + 1 if len(codes) else 0
    if groups > MAX_SHAPES:
        raise KprofileError(
            results.path,
            f"{groups:,} groups of -p {', '.join(pivots)}, over the limit of "
            f"{MAX_SHAPES:,}",
        )
    order = np.argsort(codes, kind="stable")  # codes number groups by first row
    bounds = np.flatnonzero(np.diff(codes[order])) + 1
    parts = []
    for rows in np.split(order, bounds):
        frame = results.frame.iloc[rows].reset_index(drop=True)
        parts.append(dataclasses.replace(results, frame=frame))
    return parts


def group_codes(frame: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """One integer per row for its tuple of ``columns``, by first appearance; NaN is
    a value like any other."""
    codes = np.zeros(len(frame), dtype=np.int64)
    for column in columns:
        local, uniques = pd.factorize(frame[column], use_na_sentinel=False)
        # re-factorized at each step, so codes stay below the row count
        codes = pd.factorize(codes * len(uniques) + local)[0]
    return np.asarray(codes, dtype=np.int64)
