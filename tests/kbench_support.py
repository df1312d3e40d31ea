"""Result pickles written as kbench writes them, from rows of parameters: one
``merged_df`` row per point (``mesh_idx``, ``name``, the metric, ``iters``,
``spec``, ``kbench_filter``) and kbench's result dict around it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd


def kbench_frame(
    rows: Sequence[dict[str, Any]], *, metric: str = "met (ms)", stem: str = "bench"
) -> pd.DataFrame:
    """A merged_df: one row per dict of parameters plus its metric under ``metric``."""
    specs, values = [], []
    for row in rows:
        params = {k: v for k, v in row.items() if k != metric}
        specs.append(stem + "".join(f"/{k}={v}" for k, v in params.items()))
        values.append(row.get(metric, np.nan))
    return pd.DataFrame(
        {
            "mesh_idx": np.arange(len(rows)),
            "name": [stem] * len(rows),
            metric: np.array(values, dtype=float),
            "iters": np.full(len(rows), 10),
            "spec": specs,
            "kbench_filter": [""] * len(rows),
        }
    )


def kbench_payload(frame: pd.DataFrame, **meta: Any) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "merged_df": frame,
        "build_df": frame[["mesh_idx", "name"]],
        "name": "bench",
        "file": "bench.mojo",
    }
    payload.update(meta)
    return payload
