"""The files a mode produces (``-d`` CSVs, the ``-c`` heatmap, ``--plot`` charts): named
safely and written all of them, or none.

Through ``kprofile.sinks.derived`` (the code generator's one writer, with a symbolic
link at a file's name replaced rather than written through, and said): every file is
written in full beside its name and renamed only when all are complete; a rename
failing midway puts back the files already replaced. A failed run leaves no
half-written or 0-byte file behind, and one clean error names the file.

The CSVs are safe to open in a spreadsheet (OWASP's CSV-injection guidance): a text
cell or column name that a spreadsheet would read as a formula, one starting with
``=``, ``+``, ``-``, ``@`` (or their full-width forms), also after leading white
space, or with a tab or a carriage return, is written with a leading ``'``. Numbers
are never changed, and neither is a text cell that spells a plain decimal number
(``-1.5``, ``+2``, ``-3e-4``): a spreadsheet reads it as that number, which is no
formula.

A CSV is also read by people and logs (``cat``, a CI step): invisible and
direction-changing characters, control characters (but the tab, CR and LF a field
may hold, quoted) and the undecodable bytes of a file name are written as the escapes
every other output shows (``\\u200b``, ``\\x1b``, ``\\udcff``), and nothing forms
a GitHub workflow command (``tuning_codegen.printable.escape_commands``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from kprofile.core.values import plain
from kprofile.render.charts import correlation as correlation_chart
from kprofile.sinks.derived import Written, created, write_derived
from tuning_codegen.printable import escape_commands, escapes_keeping
from tuning_codegen.transaction import MAX_NAME_BYTES

if TYPE_CHECKING:
    from kprofile.core.correlation import Correlation

HEATMAP_NAME = "correlation.png"
FORMULA_STARTS = "=+-@\uff1d\uff0b\uff0d\uff20"  # and their full-width forms
CONTROL_STARTS = "\t\r"
FORMULA_GUARD = "'"
_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\Z")
_QUOTED = ',"\n\r'
# What a CSV shows as an escape, spelled as one_line spells it (\x1b, \x85, \u200b,
# \U000e0041); a field's tab, CR and LF stay (quoted), as a spreadsheet reads them.
_SHOWN = escapes_keeping("\t\n\r")


def write_files(files: Mapping[Path, bytes]) -> Written:
    """Write ``files`` (path -> content); the paths written, in order, and what to
    say (a symbolic link replaced)."""
    return write_derived(files)


def write_tables(tables: Mapping[str, pd.DataFrame], out_dir: str) -> Written:
    """``-d``: each shape's table as ``<shape>.csv`` in ``out_dir``; what was written.
    Names are unique and at most 255 bytes (see ``safe_file_names``)."""
    folder = created(out_dir, "--out-dir")
    names = safe_file_names(list(tables), suffix=".csv", fallback="all")
    files = {
        folder / name: shown_csv(csv_text(table)).encode()
        for name, table in zip(names, tables.values())
    }
    return write_files(files)


def csv_text(table: pd.DataFrame) -> str:
    """``table`` as CSV: a header, one line per row, ``\n`` after each; floats as
    ``%.10g``, missing values empty, text guarded (``guard_cell``). A field holding a
    comma, a quote or a line break (a carriage return too, which Python's csv writer
    leaves bare with a ``\n`` terminator) is quoted."""
    header = [_field(str(guard_cell(str(c)))) for c in table.columns]
    columns = [_column_text(table.iloc[:, i]) for i in range(table.shape[1])]
    lines = [_line(header), *(_line(list(row)) for row in zip(*columns))]
    return "".join(line + "\n" for line in lines)


def shown_csv(text: str) -> str:
    """A CSV's text as written (module docstring): the same rows and fields, with
    nothing a terminal or a CI log would obey or hide."""
    shown = text.translate(_SHOWN).encode("utf-8", "backslashreplace").decode()
    return escape_commands(shown)


def _column_text(column: pd.Series) -> list[str]:
    """Every cell of one column as CSV field text (quoted where needed)."""
    if pd.api.types.is_float_dtype(column.dtype):
        values = column.to_numpy(dtype=np.float64, na_value=np.nan)
        return ["" if v != v else f"{v:.10g}" for v in values.tolist()]
    text = []
    for value in column.tolist():
        value = plain(value)
        text.append("" if value is None else _field(str(guard_cell(value))))
    return text


def _field(text: str) -> str:
    if any(c in text for c in _QUOTED):
        return '"' + text.replace('"', '""') + '"'
    return text


def _line(fields: list[str]) -> str:
    return '""' if fields == [""] else ",".join(fields)  # an empty line is no row


def guard_cell(value: object) -> object:
    """A text cell as a spreadsheet may open it: ``'`` before what would be a formula
    (see the module's docstring); anything else unchanged."""
    if not isinstance(value, str) or _NUMBER.match(value):
        return value
    first, shown = value[:1], value.lstrip()[:1]
    if (first and first in CONTROL_STARTS) or (shown and shown in FORMULA_STARTS):
        return FORMULA_GUARD + value
    return value


def write_heatmap(result: Correlation, out_dir: str, title: str) -> Written:
    """``-c``: the matrix as an annotated heatmap, ``out_dir/correlation.png``."""
    folder = created(out_dir, "--out-dir")
    png = correlation_chart.heatmap_png(result, title)
    return write_files({folder / HEATMAP_NAME: png})


def safe_file_names(labels: list[str], *, suffix: str, fallback: str) -> list[str]:
    """One file name per label: readable, unique, and at most 255 bytes.

    Characters other than letters, digits and ``=._+-`` become ``_``; a name that two
    labels share, or that is too long, gets a short hash of its label.
    """
    stems = []
    for label in labels:
        stem = re.sub(r"[^A-Za-z0-9=._+-]+", "_", label)
        stem = re.sub(r"[._]*_[._]*|\.{2,}", "_", stem)  # no "..", no "._."
        stems.append(stem.strip("_.") or fallback)
    folded = [stem.casefold() for stem in stems]  # case-insensitive file systems
    names = []
    for label, stem, key in zip(labels, stems, folded):
        name = stem + suffix
        if folded.count(key) > 1 or len(name.encode()) > MAX_NAME_BYTES:
            digest = hashlib.sha256(label.encode()).hexdigest()[:10]
            room = MAX_NAME_BYTES - len(suffix) - len(digest) - 1
            name = f"{_cut(stem, room)}-{digest}{suffix}"
        names.append(name)
    return _numbered(names, suffix)


def _cut(text: str, size: int) -> str:
    """``text`` cut to at most ``size`` bytes of UTF-8, on a character boundary."""
    return text.encode()[:size].decode(errors="ignore")


def _numbered(names: list[str], suffix: str) -> list[str]:
    """Make a name seen before unique with -2, -3, ... (a label could spell
    another label's hashed name)."""
    used: set[str] = set()
    out = []
    for name in names:
        candidate, n = name, 2
        while candidate.casefold() in used:
            stem = _cut(name.removesuffix(suffix), MAX_NAME_BYTES - len(suffix) - 8)
            candidate, n = f"{stem}-{n}{suffix}", n + 1
        used.add(candidate.casefold())
        out.append(candidate)
    return out
