"""Sections as one JSON document for programs: full precision, ``null`` if missing.

JSON has no infinity: an infinite number (a ratio beyond the largest float, 1e308
against 5e-324) is the string ``"inf"`` or ``"-inf"``, so that ``null`` keeps meaning
"no value" (a missing value, a failed run's ratio). Every finite float is a number,
5e-324 and 1.7976931348623157e308 included.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from kprofile.core.values import plain
from kprofile.render.section import Section, Table, values_list
from tuning_codegen.printable import escape_json


def json_value(value: Any) -> Any:
    """A value JSON can hold: NaN/NA -> null, +-inf -> "inf"/"-inf", numpy scalars ->
    Python."""
    value = plain(value)
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
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
        table = Table.of(section.table)
        data["columns"] = list(table.names)
        columns = {
            name: [json_value(v) for v in values_list(column)]
            for name, column in zip(table.names, table.columns)
        }
        data["rows"] = (
            [dict(zip(columns, values)) for values in zip(*columns.values())]
            if columns
            else []
        )
        data["highlight"] = list(section.highlight)
    data["notes"] = list(section.notes)
    return data


def render_json(
    sections: Sequence[Section], header: dict[str, Any], encoding: str | None = None
) -> str:
    """One JSON document: ``header`` (metric, inputs, skipped, written) and the
    ``sections``; what ``encoding`` (the stream's) cannot hold, as JSON escapes."""
    document = dict(header)
    document["sections"] = [section_json(s) for s in sections]
    text = json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False)
    return escape_json(text, encoding) + "\n"
