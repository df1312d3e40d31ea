"""Reading kbench CSVs: bounded first (``csvscan``), every row named by its line, rows
that cannot be ranked left out with a warning.

A short row (a file cut off mid-row) is skipped by pandas itself (``skiprows``): it
would fill the missing fields with NaN and rank the row, and skipping keeps the types
the other rows would have had. Rows without a spec are dropped after. Every row that
remains keeps the line it starts on: a CSV has no ``mesh_idx``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np
import pandas as pd

from kprofile.errors import KprofileError
from kprofile.inputs.files import open_regular

SPEC = "spec"
MAX_WARNINGS = 10


@dataclass(frozen=True, eq=False)
class CsvTable:
    """A CSV's usable rows, the line each starts on (1-based), and the warnings."""

    frame: pd.DataFrame
    lines: np.ndarray
    warnings: tuple[str, ...]


def read_csv(path: str) -> CsvTable:
    """A kbench CSV as a frame, the line of each of its rows, and its warnings. Short
    rows (a file cut off) and rows without a spec are left out with a warning each:
    pandas would fill them with NaN and rank them."""
    from kprofile.inputs.csvscan import layout  # start-up: a CSV input only

    with open_regular(path) as handle:
        found = layout(handle, path)
        short = found.counts < found.fields
        frame = _read_csv(_same_file(handle, path), path, found.records[short])
    if len(frame) != int((~short).sum()):
        raise KprofileError(path, "not a readable CSV (rows do not line up)")
    lines = found.lines[~short]
    frame, unspecified = _without_spec(frame)
    notes = [
        f"{path}:{line}: warning: row has {count} of {found.fields} fields "
        "(truncated?); left out"
        for line, count in zip(
            found.lines[short][:MAX_WARNINGS].tolist(),
            found.counts[short][:MAX_WARNINGS].tolist(),
        )
    ]
    notes += [
        f"{path}:{line}: warning: row has no spec; left out"
        for line in lines[unspecified[:MAX_WARNINGS]].tolist()
    ]
    left_out = int(short.sum()) + len(unspecified)
    if frame.empty and left_out:
        raise KprofileError(path, "no complete row with a spec (every row left out)")
    kept = np.delete(lines, unspecified)
    return CsvTable(frame, kept, _capped(path, notes, left_out))


def _same_file(handle: BinaryIO, path: str) -> str:
    """A name for the file open as ``handle`` (pandas reads a name much faster than a
    Python file object): /proc/self/fd/N where it exists, else ``path``."""
    name = f"/proc/self/fd/{handle.fileno()}"
    return name if os.path.exists(name) else path


def _read_csv(source: str, path: str, skip: np.ndarray) -> pd.DataFrame:
    try:
        return pd.read_csv(source, skiprows=skip.tolist() if len(skip) else None)
    except pd.errors.EmptyDataError:
        raise KprofileError(path, "empty file") from None
    except SystemError:  # pandas' C parser, when an allocation fails
        raise MemoryError from None
    except RuntimeError as exc:  # pandas' parallel reader, out of memory for a thread
        if "can't start new thread" in str(exc):
            raise MemoryError from None
        raise
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise KprofileError(
            path, f"not a readable CSV ({str(exc).strip().splitlines()[0]})"
        ) from None


def _without_spec(frame: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray]:
    """``frame`` without the rows whose spec is missing or empty, and their
    positions before they were dropped."""
    if SPEC not in frame.columns:
        return frame, np.zeros(0, dtype=np.int64)
    specs = frame[SPEC].to_numpy(dtype=object)
    bad = np.fromiter((not (isinstance(s, str) and s) for s in specs), bool, len(specs))
    if not bad.any():
        return frame, np.zeros(0, dtype=np.int64)
    return frame[~bad].reset_index(drop=True), np.flatnonzero(bad)


def _capped(path: str, notes: list[str], total: int) -> tuple[str, ...]:
    """At most MAX_WARNINGS of the ``total`` notes, then how many more there were."""
    if total <= MAX_WARNINGS:
        return tuple(notes)
    extra = total - MAX_WARNINGS
    return (*notes[:MAX_WARNINGS], f"{path}: warning: {extra:,} more rows left out")
