"""kbench's failed points as rows of a results table: the loader reads the record
beside each results file (``inputs.failures``) and gives its points to the table, or
says why it cannot; and when nothing ran at all, what kbench recorded instead.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from kprofile.errors import KprofileError
from kprofile.inputs.failures import (
    KINDS,
    OTHER,
    BadRecord,
    join_failures,
    read_failures,
    unusable,
)
from kprofile.inputs.results import LINE, MESH_IDX, Results, results_of, text_value


def with_failures(
    path: str,
    kind: str,
    frame: pd.DataFrame,
    meta: Mapping[str, Any],
    lines: np.ndarray | None = None,
    spec_lengths: np.ndarray | None = None,
) -> Results:
    """``results_of`` the table with the points kbench recorded as failed beside
    ``path`` (``inputs.failures``) as rows of its own. A record that cannot be used,
    or whose points the table cannot take (a limit of its spec strings), is one
    warning, and the table is read as if there were none. ``spec_lengths``: the
    table's, where the caller counted them."""
    record, note = read_failures(path)
    if record is not None:
        key = MESH_IDX if kind == "pkl" and MESH_IDX in frame.columns else None
        name = text_value(meta.get("name"))
        try:
            joined, column = join_failures(frame, record, name=name, key=key)
            rows = _csv_rows(lines, len(joined))
            results = results_of(path, kind, joined, meta, rows)
            return dataclasses.replace(results, failure=column)
        except BadRecord as exc:
            note = unusable(record.path, str(exc))
        except (KprofileError, MemoryError) as exc:
            why = exc.message if isinstance(exc, KprofileError) else "out of memory"
            note = unusable(record.path, f"its points do not fit the results ({why})")
    rows = _csv_rows(lines, len(frame))
    results = results_of(path, kind, frame, meta, rows, spec_lengths)
    return dataclasses.replace(results, warnings=(note,) if note else ())


def _csv_rows(lines: np.ndarray | None, count: int) -> tuple[str, np.ndarray] | None:
    """A CSV's row key for ``count`` rows: the line each starts on, None for a
    failed point (it has no line in the CSV); None for a pickle."""
    if lines is None:
        return None
    if count > len(lines):
        missing = np.full(count - len(lines), None)
        lines = np.concatenate([lines.astype(object), missing])
    return (LINE, lines)


def nothing_ran(path: str) -> str:
    """Why a kbench pickle has no table: nothing ran, and what kbench recorded of
    the points that failed, if it did."""
    record, _ = read_failures(path)
    if record is None or not record.points:
        return "no 'merged_df' (kbench writes none when nothing ran)"
    counts = Counter(p.kind for p in record.points)
    kinds = ", ".join(f"{k} {counts[k]}" for k in (*KINDS, OTHER) if counts[k])
    points = "point" if len(record.points) == 1 else "points"
    return (
        f"no 'merged_df': nothing ran ({record.path} records "
        f"{len(record.points)} failed {points}: {kinds})"
    )
