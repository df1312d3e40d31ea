"""Tables and calls shared by the ``--cover`` library tests (tests/kprofile/modes)."""

from __future__ import annotations

import pandas as pd

from kprofile.core.cover import (
    DEFAULT_LOSS_TIME_LIMIT,
    DEFAULT_TIME_LIMIT,
    CoverResult,
    cover,
)
from kprofile.core.metric import Metric

SHAPES = ["M", "N"]
PARAMS = ["BM", "STAGES"]


def table_from_coverage(
    coverage: dict[str, set[int]], n_shapes: int, *, good: float = 1.0
) -> pd.DataFrame:
    """Shape i (M=i, N=7) measured with every config: ``good`` on the shapes in
    ``coverage[name]``, 2.0 elsewhere. Config ``name`` is BM=<position>, STAGES=<name>."""
    rows = []
    for i in range(n_shapes):
        for j, (name, shapes) in enumerate(coverage.items()):
            rows.append(
                {
                    "M": i,
                    "N": 7,
                    "BM": j,
                    "STAGES": name,
                    "met": good if i in shapes else 2.0,
                }
            )
    return pd.DataFrame(rows)


TIME = Metric("met", higher_is_better=False)


def run(
    df: pd.DataFrame,
    tol: float = 0.02,
    metric: Metric = TIME,
    *,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    loss_time_limit: float | None = DEFAULT_LOSS_TIME_LIMIT,
) -> CoverResult:
    return cover(
        df,
        shape_cols=SHAPES,
        param_cols=PARAMS,
        metric=metric,
        tol=tol,
        time_limit=time_limit,
        loss_time_limit=loss_time_limit,
    )


def chosen_names(result: CoverResult) -> list[str]:
    return result.configs["STAGES"].tolist()


# Greedy takes c4 (3 shapes) and ends with 3 configs; the only pair is c0 + c5.
TRAP = {
    "c0": {0, 3},
    "c1": {0},
    "c2": {1, 4},
    "c3": {3, 4},
    "c4": {0, 2, 4},
    "c5": {1, 2, 4},
}
