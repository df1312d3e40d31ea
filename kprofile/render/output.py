"""Rendering sections: rich tables on a terminal, plain text when piped, Markdown or JSON.

Text and Markdown round floats to 3 decimal places; JSON keeps full precision (and
``null`` for missing values) because it is read by programs.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from typing import IO, Any

import numpy as np
import pandas as pd

from kprofile.core.values import plain
from kprofile.render.section import Section

FORMATS = ("text", "markdown", "json")
MISSING = "-"


def cell(value: Any) -> str:
    """One value as text: floats to 3 places, missing as '-'."""
    value = plain(value)
    if value is None:
        return MISSING
    if isinstance(value, float):
        return MISSING if math.isnan(value) else f"{value:.3f}"
    return str(value)


def _column_cells(column: pd.Series) -> list[str]:
    """Format a whole column at once (vectorized for float columns)."""
    if pd.api.types.is_float_dtype(column.dtype) and not isinstance(
        column.dtype, pd.api.extensions.ExtensionDtype
    ):
        array = column.to_numpy(dtype=np.float64)
        text = np.char.mod(
            "%.3f", np.nan_to_num(array, nan=0.0, posinf=0.0, neginf=0.0)
        ).astype(object)
        text[np.isnan(array)] = MISSING
        inf = np.isinf(array)
        text[inf] = np.where(array[inf] > 0, "inf", "-inf")
        return list(text)
    return [cell(v) for v in column.tolist()]


def _is_numeric(column: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(
        column.dtype
    ) and not pd.api.types.is_bool_dtype(column.dtype)


def table_cells(table: pd.DataFrame) -> tuple[list[str], list[list[str]], list[bool]]:
    """Header, rows of cell texts, and which columns are numeric (right-aligned)."""
    header = [str(c) for c in table.columns]
    columns = [_column_cells(table.iloc[:, i]) for i in range(table.shape[1])]
    numeric = [_is_numeric(table.iloc[:, i]) for i in range(table.shape[1])]
    rows = [list(r) for r in zip(*columns)] if columns else []
    return header, rows, numeric


# ---------------------------------------------------------------- plain text


def render_plain(sections: Sequence[Section]) -> str:
    """Plain text: a title line, aligned facts, an aligned table; ``*`` marks highlighted rows."""
    blocks = []
    for section in sections:
        lines = [f"== {section.title} =="]
        if section.facts:
            width = max(len(k) for k, _ in section.facts)
            lines += [f"{k.ljust(width)}  {cell(v)}" for k, v in section.facts]
        if section.table is not None:
            if section.facts:
                lines.append("")
            lines += _plain_table(section.table, section.highlight)
        lines += [
            note.rstrip("\n") for note in section.notes
        ]  # a diff note ends with its own newline
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + ("\n" if blocks else "")


def _plain_table(table: pd.DataFrame, highlight: Sequence[int]) -> list[str]:
    header, rows, numeric = table_cells(table)
    if not header:
        return []
    marks = set(highlight)
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(header)]

    def line(cells: Sequence[str], mark: str) -> str:
        padded = [
            c.rjust(w) if num else c.ljust(w)
            for c, w, num in zip(cells, widths, numeric)
        ]
        return (mark + " " + "  ".join(padded)).rstrip()

    out = [line(header, " ")]
    out += [line(r, "*" if i in marks else " ") for i, r in enumerate(rows)]
    if not rows:
        out.append("  (no entries)")
    return out


# ---------------------------------------------------------------- rich


def render_rich(sections: Sequence[Section], stream: IO[str]) -> None:
    """Rich tables (imported only when a terminal asks for them). Text from the data is
    never read as rich markup: a ``[M=64]`` or a diff line ``- [a, b]`` prints as written."""
    from rich import box
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    console = Console(file=stream, highlight=False)
    for section in sections:
        console.rule(f"[bold]{escape(section.title)}")
        if section.facts:
            facts = Table(show_header=False, box=None, padding=(0, 2))
            facts.add_column(style="cyan", no_wrap=True)
            facts.add_column(overflow="fold")
            for key, value in section.facts:
                facts.add_row(Text(key), Text(cell(value)))
            console.print(facts)
        if section.table is not None:
            header, rows, numeric = table_cells(section.table)
            table = Table(box=box.SIMPLE_HEAVY)
            for name, num in zip(header, numeric):
                table.add_column(
                    Text(name), justify="right" if num else "left", overflow="fold"
                )
            marks = set(section.highlight)
            for i, row in enumerate(rows):
                table.add_row(
                    *(Text(c) for c in row), style="bold green" if i in marks else None
                )
            console.print(table)
        for note in section.notes:
            console.print(Text(note.rstrip("\n")), soft_wrap="\n" in note)


# ---------------------------------------------------------------- markdown


def render_markdown(sections: Sequence[Section]) -> str:
    """GitHub-flavoured Markdown: a heading per section, a facts list, a table (best row bold)."""
    blocks = []
    for section in sections:
        lines = [f"### {section.title}", ""]
        for key, value in section.facts:
            lines.append(f"- **{_md(key)}**: {_md(cell(value))}")
        if section.facts:
            lines.append("")
        if section.table is not None:
            header, rows, numeric = table_cells(section.table)
            marks = set(section.highlight)
            lines.append("| " + " | ".join(_md(h) for h in header) + " |")
            lines.append("|" + "|".join("---:" if n else "---" for n in numeric) + "|")
            for i, row in enumerate(rows):
                cells = [f"**{_md(c)}**" if i in marks else _md(c) for c in row]
                lines.append("| " + " | ".join(cells) + " |")
            lines.append("")
        lines += [_md_note(n) for n in section.notes]
        blocks.append("\n".join(lines).rstrip("\n"))
    return "\n\n".join(blocks) + ("\n" if blocks else "")


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def _md_note(note: str) -> str:
    """A one-line note as text; a multi-line note (a diff) as a fenced block, verbatim."""
    note = note.rstrip("\n")
    if "\n" not in note:
        return _md(note)
    longest = max((len(run) for run in re.findall(r"`+", note)), default=0)
    fence = "`" * max(3, longest + 1)
    language = "diff" if note.startswith("--- ") else ""
    return f"{fence}{language}\n{note}\n{fence}"


# ---------------------------------------------------------------- json


def json_value(value: Any) -> Any:
    """A value JSON can hold: NaN/NA -> null, numpy scalars -> Python."""
    value = plain(value)
    if isinstance(value, float) and math.isinf(value):
        return None
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def section_json(section: Section) -> dict[str, Any]:
    data: dict[str, Any] = {
        "view": section.view,
        "title": section.title,
        "source": section.source,
        "facts": {k: json_value(v) for k, v in section.facts},
    }
    if section.table is not None:
        table = section.table
        data["columns"] = [str(c) for c in table.columns]
        columns = {
            str(c): [json_value(v) for v in table.iloc[:, i].tolist()]
            for i, c in enumerate(table.columns)
        }
        data["rows"] = (
            [dict(zip(columns, values)) for values in zip(*columns.values())]
            if columns
            else []
        )
        data["highlight"] = list(section.highlight)
    data["notes"] = list(section.notes)
    return data


def render_json(sections: Sequence[Section], header: dict[str, Any]) -> str:
    """One JSON document: ``header`` (metric, inputs, skipped, written) plus ``sections``."""
    document = dict(header)
    document["sections"] = [section_json(s) for s in sections]
    return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
