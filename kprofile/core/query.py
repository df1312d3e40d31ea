"""``--query``: the rows of a table where an expression is true.

The expression language is ``kprofile.inputs.expr`` (the same as spec ``rules``, with
the same exact meaning); names are column names, any column in backticks.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from kprofile.errors import KprofileError, column_list
from kprofile.inputs.expr import ExprError, compile_expr, select


def query_rows(
    frame: pd.DataFrame, query: str, *, path: str = "kprofile"
) -> pd.DataFrame:
    """Rows of ``frame`` where ``query`` is true (``M>64 and K<1024``; `quoted name`
    for any column). A missing value is not true; a row that cannot be evaluated
    (``M / 0``, ``S < 1``) is an error."""
    try:
        expr = compile_expr(query)
        if not expr.names:
            raise ExprError(f"{query!r} does not depend on any column")
        positions: dict[str, int] = {}
        for position, column in enumerate(frame.columns):
            positions.setdefault(str(column), position)
        unknown = sorted(expr.names - positions.keys())
        if unknown:
            raise ExprError(
                f"unknown column {', '.join(map(repr, unknown))} in {query!r}; "
                f"{column_list(positions)}"
            )
        by_position: Any = frame.iloc  # one column per name, even if names repeat
        columns = {name: by_position[:, positions[name]] for name in expr.names}
        mask = select(expr, columns, len(frame))
    except ExprError as exc:
        raise KprofileError(path, f"--query: {exc}") from None
    return frame.iloc[np.flatnonzero(mask)].reset_index(drop=True)
