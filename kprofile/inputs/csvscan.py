"""A CSV bounded before pandas reads anything: where each row starts and how many
fields it has.

One pass over the bytes (a block at a time, so a line of a gigabyte never sits in
memory) refuses binary data and any line longer than ``MAX_LINE_BYTES``, and notes
where each line starts. Without quotes every non-blank line is one row, so those lines
give each row's field count. A quoted file (kbench writes ``QUOTE_NONNUMERIC``) is read
once more with the ``csv`` module, fields bounded by ``MAX_FIELD_CHARS``, for the same.
Then the header's column count and rows x columns are checked against their limits.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np

from kprofile.errors import KprofileError
from kprofile.inputs.limits import (
    MAX_CELLS,
    MAX_COLUMNS,
    MAX_FIELD_CHARS,
    MAX_LINE_BYTES,
)

_BLOCK = 1 << 20
_LF, _CR, _COMMA, _QUOTE, _SPACE, _TAB = b'\n\r," \t'  # pandas skips " \t" lines


@dataclass(frozen=True, eq=False)
class Layout:
    """The data rows as the file holds them, before pandas reads it."""

    fields: int  # the header's
    header_line: int
    lines: np.ndarray  # where each data row starts
    counts: np.ndarray  # how many fields it has
    records: np.ndarray  # its number for pandas' ``skiprows`` (the header is 0)


class _LineScan:
    """Lines of a byte stream, fed a block at a time: the longest is refused as soon
    as it is too long, and each non-blank line keeps its number and comma count."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.line = 1  # the number of the line in progress
        self.offset = 0
        self.quoted = False
        self.carry = np.zeros(3, dtype=np.int64)  # its bytes, commas, non-blank bytes
        self.numbers: list[np.ndarray] = []
        self.commas: list[np.ndarray] = []

    def feed(self, block: bytes, *, last: bool) -> None:
        nul = block.find(b"\x00")
        if nul >= 0:
            raise KprofileError(
                self.path,
                f"not a CSV text file (a NUL byte at offset {self.offset + nul:,})",
            )
        self.offset += len(block)
        self.quoted = self.quoted or b'"' in block
        data = np.frombuffer(block, dtype=np.uint8)
        ends = _line_ends(data, last=last)
        sums = np.zeros((3, len(data) + 1), dtype=np.int64)
        sums[0, 1:] = np.arange(1, len(data) + 1)
        np.cumsum(data == _COMMA, out=sums[1, 1:])
        np.cumsum((data != _SPACE) & (data != _TAB) & (data != _LF) & (data != _CR),
                  out=sums[2, 1:])  # fmt: skip
        stops = np.flatnonzero(ends) + 1  # one past each line break
        starts = np.concatenate([[0], stops])
        done = sums[:, stops] - sums[:, starts[:-1]]
        if len(stops):
            done[:, 0] += self.carry
            self.carry = sums[:, -1] - sums[:, stops[-1]]
        else:
            self.carry = self.carry + sums[:, -1]
        self._check_length(done[0])
        numbers = self.line + np.arange(len(stops))
        filled = done[2] > 0
        self.numbers.append(numbers[filled])
        self.commas.append(done[1][filled])
        self.line += len(stops)

    def _check_length(self, lengths: np.ndarray) -> None:
        long = np.flatnonzero(lengths > MAX_LINE_BYTES)
        line = self.line + int(long[0]) if len(long) else None
        if line is None and self.carry[0] > MAX_LINE_BYTES:
            line = self.line + len(lengths)
        if line is not None:
            raise KprofileError(
                self.path,
                f"line longer than {MAX_LINE_BYTES:,} bytes (the limit of a CSV line)",
                line=line,
            )

    def finish(self) -> tuple[np.ndarray, np.ndarray]:
        """Numbers and comma counts of the non-blank lines (the last may lack a
        line break)."""
        numbers = [*self.numbers, np.zeros(0, dtype=np.int64)]
        commas = [*self.commas, np.zeros(0, dtype=np.int64)]
        if self.carry[2] > 0:
            numbers.append(np.array([self.line]))
            commas.append(self.carry[1:2].copy())
        return np.concatenate(numbers), np.concatenate(commas)


def _line_ends(data: np.ndarray, *, last: bool) -> np.ndarray:
    """Where lines end: each LF, and each CR not followed by an LF. Only the last
    block may end with a CR (``_scan_lines`` keeps a CR with the byte after it)."""
    lf, cr = data == _LF, data == _CR
    ends = lf.copy()
    ends[:-1] |= cr[:-1] & ~lf[1:]
    if len(data) and last:
        ends[-1] |= cr[-1]
    return ends


def _scan_lines(handle: BinaryIO, path: str) -> _LineScan:
    scan = _LineScan(path)
    block = handle.read(_BLOCK)
    while block:
        while block.endswith(b"\r"):  # keep a CR with the LF that may follow it
            extra = handle.read(1)
            if not extra:
                break
            block += extra
            if extra != b"\r":
                break
        following = handle.read(_BLOCK)
        scan.feed(block, last=not following)
        block = following
    return scan


def _unquoted(path: str, numbers: np.ndarray, commas: np.ndarray) -> Layout:
    """Without quotes every comma separates two fields of one row."""
    if not len(numbers):
        raise KprofileError(path, "empty file")
    return Layout(
        int(commas[0]) + 1,
        int(numbers[0]),
        numbers[1:],
        commas[1:] + 1,
        numbers[1:] - 1,
    )


def _quoted(handle: BinaryIO, path: str) -> Layout:
    """Rows and their fields as the ``csv`` module reads them, fields bounded."""
    text = io.TextIOWrapper(handle, encoding="utf-8-sig", newline="")
    lines: list[int] = []
    counts: list[int] = []
    records: list[int] = []
    header: tuple[int, int] | None = None
    limit = csv.field_size_limit()
    csv.field_size_limit(MAX_FIELD_CHARS)
    reader = csv.reader(text)
    line = 1
    try:
        for record, row in enumerate(reader):
            start, line = line, reader.line_num + 1
            if not row or (len(row) == 1 and not row[0].strip(" \t")):
                continue  # pandas skips blank lines
            if header is None:
                header = (len(row), start)
                continue
            lines.append(start)
            counts.append(len(row))
            records.append(record)
    except csv.Error as exc:
        raise _csv_error(path, exc, line) from None
    except UnicodeDecodeError as exc:
        raise KprofileError(path, f"not a readable CSV ({exc})") from None
    finally:
        csv.field_size_limit(limit)
        text.detach()
    if header is None:
        raise KprofileError(path, "empty file")
    return Layout(
        header[0], header[1], *(np.array(v, np.int64) for v in (lines, counts, records))
    )


def _csv_error(path: str, exc: csv.Error, line: int) -> KprofileError:
    if "field limit" in str(exc):
        return KprofileError(
            path,
            f"field longer than {MAX_FIELD_CHARS:,} characters (the limit of a CSV "
            "field)",
            line=line,
        )
    return KprofileError(path, f"not a readable CSV ({exc})", line=line)


def layout(handle: BinaryIO, path: str) -> Layout:
    """Every data row's line and field count, read within the limits; the table it
    would make is checked against the column and cell limits."""
    scan = _scan_lines(handle, path)
    numbers, commas = scan.finish()
    handle.seek(0)
    found = _quoted(handle, path) if scan.quoted else _unquoted(path, numbers, commas)
    if found.fields > MAX_COLUMNS:
        raise KprofileError(
            path,
            f"{found.fields:,} columns, over the limit of {MAX_COLUMNS:,}",
            line=found.header_line,
        )
    if len(found.lines) * found.fields > MAX_CELLS:
        raise KprofileError(
            path,
            f"{len(found.lines):,} rows of {found.fields:,} columns, over the limit "
            f"of {MAX_CELLS:,} values",
        )
    longer = np.flatnonzero(found.counts > found.fields)
    if len(longer):
        first = int(longer[0])
        raise KprofileError(
            path,
            f"row has {int(found.counts[first])} fields, the header {found.fields}",
            line=int(found.lines[first]),
        )
    return found
