"""``--importance``: parameters ranked by what a bad choice can cost, and every value's reach."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from kprofile.core.metric import Metric
from kprofile.modes.importance import ImportanceResult, ParamImportance
from kprofile.render.section import Section


def importance_sections(
    result: ImportanceResult,
    *,
    shape_cols: Sequence[str],
    metric: Metric,
    written: Sequence[str] = (),
) -> list[Section]:
    """``importance`` (one row per parameter, ranked) and ``importance-values`` (one per value)."""
    facts: tuple[tuple[str, Any], ...] = (
        ("shapes", result.shapes_total),
        (
            "shapes by",
            ", ".join(shape_cols)
            or "- (no shape columns: all rows are one shape; give -p)",
        ),
        ("metric", f"{metric.column} ({metric.direction})"),
        (
            "cost",
            "best ratio still reachable on the worst shape, with the parameter at its worst value",
        ),
    )
    params = result.params
    ranked = pd.DataFrame(
        {
            "rank": [p.rank for p in params],
            "param": [p.param for p in params],
            "cost": [p.cost for p in params],
            "best value": pd.Series([p.best_value for p in params], dtype=object),
            "worst value": pd.Series([_worst_value(p) for p in params], dtype=object),
            "values": [len(p.values) for p in params],
        }
    )
    notes = tuple(f"wrote {path}" for path in written)
    return [
        Section(
            "importance",
            f"importance: which parameters matter ({metric.column})",
            None,
            facts,
            ranked,
            notes=notes,
        ),
        Section(
            "importance-values",
            "importance: best ratio reachable with the parameter fixed to each value",
            None,
            (),
            result.table,
        ),
    ]


def _worst_value(p: ParamImportance) -> object:
    """The value whose reachable ratio on its worst shape is the parameter's cost."""
    return next(v.value for v in p.values if v.shapes and v.worst == p.cost)
