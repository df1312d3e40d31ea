"""Reading kbench CSVs, leaving out (with a warning) rows that cannot be ranked.

pandas fills the missing fields of a short row (a file cut off mid-row) with NaN,
which cannot be told apart from empty fields afterwards, so ``scan`` counts the
fields of each row in the file itself. Most files take the fast path: without
quotes, a file holding exactly ``fields - 1`` commas per row (header included) has
no short row, since pandas refuses longer ones. Otherwise the file is read again
with the ``csv`` module, row by row. Short rows are then skipped by pandas itself
(``skiprows``), so the other rows keep the types they would have had; rows without a
spec are dropped after.
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np
import pandas as pd

from kprofile.errors import KprofileError
from kprofile.inputs.files import open_regular

_BLOCK = 1 << 23
SPEC = "spec"
MAX_WARNINGS = 10


@dataclass(frozen=True)
class Row:
    """A data row that is not like the others (``index`` counts data rows from 0)."""

    index: int
    record: int  # the row's position for pandas' ``skiprows`` (header = 0)
    line: int  # the line it starts on (1-based)
    fields: int


@dataclass(frozen=True)
class Scan:
    short: list[Row]  # rows with another number of fields than the header
    lines: np.ndarray | None  # the line of every data row (None: not counted)


def scan(
    handle: BinaryIO, path: str, fields: int, rows: int, *, lines: bool = False
) -> Scan:
    """The data rows of the file that do not have ``fields`` fields (and, with
    ``lines``, where every row starts); ``rows`` is how many data rows pandas read
    from it, a check that both saw the same rows."""
    if not lines and _uniform(handle, fields, rows):
        return Scan([], None)
    handle.seek(0)
    return _by_record(handle, path, fields, rows)


def _uniform(handle: BinaryIO, fields: int, rows: int) -> bool:
    """True if, without reading row by row, every row is known to have ``fields``.

    Without quotes every comma separates two fields of one row. pandas refuses rows
    with more fields than the header, so if the header and the ``rows`` rows hold
    ``fields - 1`` commas each on average, each holds exactly that many. (Blank
    lines hold no comma and are no row; the line endings do not matter.)
    """
    commas = 0
    while block := handle.read(_BLOCK):
        if b'"' in block:
            return False
        commas += block.count(b",")
    return commas == (fields - 1) * (rows + 1)


def _by_record(handle: BinaryIO, path: str, fields: int, rows: int) -> Scan:
    text = io.TextIOWrapper(handle, encoding="utf-8-sig", newline="")
    short: list[Row] = []
    starts: list[int] = []
    limit = csv.field_size_limit()
    csv.field_size_limit(1 << 30)
    try:
        reader = csv.reader(text)
        line, header = 1, True
        for record, row in enumerate(reader):
            start, line = line, reader.line_num + 1
            if not row or (len(row) == 1 and not row[0].strip()):
                continue  # pandas skips blank lines
            if header:
                header = False
                continue
            if len(row) != fields:
                short.append(Row(len(starts), record, start, len(row)))
            starts.append(start)
    except (csv.Error, UnicodeDecodeError) as exc:
        raise KprofileError(path, f"not a readable CSV ({exc})") from None
    finally:
        csv.field_size_limit(limit)
        text.detach()
    if len(starts) != rows:
        raise KprofileError(
            path,
            f"not a readable CSV (found {len(starts):,} rows, pandas read {rows:,})",
        )
    return Scan(short, np.array(starts, dtype=np.int64))


def read_csv(path: str) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """A kbench CSV as a frame and its warnings. Short rows (a file cut off) and
    rows without a spec are left out with a warning each: pandas would fill them
    with NaN and rank them."""
    with open_regular(path) as handle:
        _check_text(handle, path)
        frame = _read_csv(_same_file(handle, path), path)
        fields = len(frame.columns)
        found = _scan(handle, path, fields, len(frame))
        if found.short:
            skip, expected = {row.record for row in found.short}, len(frame)
            frame = _read_csv(_same_file(handle, path), path, skip=skip)
            if len(frame) != expected - len(skip):
                raise KprofileError(path, "not a readable CSV (rows do not line up)")
        frame, unspecified = _without_spec(frame)
        if len(unspecified) and found.lines is None:
            found = _scan(
                handle, path, fields, len(frame) + len(unspecified), lines=True
            )
    notes = [
        f"{path}:{row.line}: warning: row has {row.fields} of {fields} fields "
        "(truncated?); left out"
        for row in found.short[:MAX_WARNINGS]
    ]
    if len(unspecified):
        assert found.lines is not None
        lines = np.delete(found.lines, [row.index for row in found.short])
        notes += [
            f"{path}:{line}: warning: row has no spec; left out"
            for line in lines[unspecified[:MAX_WARNINGS]].tolist()
        ]
    left_out = len(found.short) + len(unspecified)
    if frame.empty and left_out:
        raise KprofileError(path, "no complete row with a spec (every row left out)")
    return frame, _capped(path, notes, left_out)


def _scan(
    handle: BinaryIO, path: str, fields: int, rows: int, *, lines: bool = False
) -> Scan:
    handle.seek(0)
    found = scan(handle, path, fields, rows, lines=lines)
    longer = [row for row in found.short if row.fields > fields]
    if longer:
        raise KprofileError(
            path,
            f"row has {longer[0].fields} fields, the header {fields}",
            line=longer[0].line,
        )
    return found


def _check_text(handle: BinaryIO, path: str) -> None:
    """Refuse binary data (a sparse or binary file) before pandas reads it all."""
    start = handle.read(_BLOCK)
    handle.seek(0)
    if b"\x00" in start:
        raise KprofileError(
            path, f"not a CSV text file (a NUL byte at offset {start.index(0):,})"
        )


def _same_file(handle: BinaryIO, path: str) -> str:
    """A name for the file open as ``handle`` (pandas reads a name much faster than a
    Python file object): /proc/self/fd/N where it exists, else ``path``."""
    name = f"/proc/self/fd/{handle.fileno()}"
    return name if os.path.exists(name) else path


def _read_csv(source: str, path: str, skip: set[int] | None = None) -> pd.DataFrame:
    try:
        return pd.read_csv(source, skiprows=sorted(skip) if skip else None)
    except pd.errors.EmptyDataError:
        raise KprofileError(path, "empty file") from None
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
