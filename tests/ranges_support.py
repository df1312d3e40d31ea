"""An independent check of a ``--ranges`` table against the raw kbench pickles.

No kprofile code: the pickles are read with pandas, the spec strings split by hand, and
the fewest ranges found by a plain dynamic program over the points (``f[j]`` = fewest
ranges covering the first ``j`` points, trying every last range and every config).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from support import results_of, within_exactly

METRIC = "met (ms)"


def raw_runs(paths: Sequence[Path | str]) -> pd.DataFrame:
    """Every row that ran (metric > 0 and finite), parameters as spec strings spell them."""
    runs = results_of(*paths)
    value = runs[METRIC]
    return runs[(value > 0) & (value < float("inf"))]


def serves(
    runs: pd.DataFrame, group: Mapping[str, Any], configs: Sequence[str], tol: float
) -> dict[int, set[tuple[str, ...]]]:
    """{M: configs within tol of the best at M} for one group (lower is better)."""
    mask = pd.Series(True, index=runs.index)
    for column, value in group.items():
        mask &= runs[column] == str(value)
    rows = runs[mask]
    best_run = rows.groupby(["M", *configs])[METRIC].min().reset_index()
    best = best_run.groupby("M")[METRIC].transform("min")
    kept = [within_exactly(v, b, tol) for v, b in zip(best_run[METRIC], best)]
    ok = best_run[kept]
    out: dict[int, set[tuple[str, ...]]] = {}
    for record in ok.to_dict("records"):
        out.setdefault(int(record["M"]), set()).add(tuple(record[c] for c in configs))
    return out


def fewest_ranges(served: Mapping[int, set[tuple[str, ...]]]) -> int:
    points = sorted(served)
    fewest = [0] + [len(points) + 1] * len(points)
    for j in range(1, len(points) + 1):
        for i in range(j):
            common = set.intersection(*(served[p] for p in points[i:j]))
            if common:
                fewest[j] = min(fewest[j], fewest[i] + 1)
    return fewest[-1]


def check_ranges(
    entries: Sequence[Mapping[str, Any]],
    runs: pd.DataFrame,
    *,
    groups: Sequence[str],
    configs: Sequence[str],
    tol: float,
) -> dict[tuple[str, ...], int]:
    """Assert that ``entries`` cover every swept M of each group exactly once with a
    config measured there and within ``tol``, in the fewest ranges. Returns the number
    of ranges per group."""
    counts: dict[tuple[str, ...], int] = {}
    for key, rows in runs.groupby(list(groups)):
        key = key if isinstance(key, tuple) else (key,)
        group = dict(zip(groups, key))
        served = serves(rows, group, configs, tol)
        mine = [e for e in entries if all(str(e[g]) == group[g] for g in groups)]
        covered = []
        for entry in mine:
            config = tuple(str(entry[c]) for c in configs)
            inside = [m for m in served if entry["M"] <= m < entry["M_END"]]
            assert inside, entry
            for m in inside:
                assert config in served[m], (group, m, config)
            covered += inside
        assert sorted(covered) == sorted(served), group  # each M exactly once
        assert len(mine) == fewest_ranges(served), group
        counts[key] = len(mine)
    return counts
