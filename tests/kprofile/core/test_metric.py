"""Metric resolution, direction, failed runs and the ratio convention."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from kprofile.core.metric import (
    Metric,
    best_position,
    higher_is_better,
    rank_order,
    ratio_to,
    resolve_metric,
    worst_position,
)
from kprofile.errors import KprofileError

COLUMNS = [
    "mesh_idx",
    "name",
    "met (ms)",
    "iters",
    "throughput (GElems/s)",
    "DataMovement (GB/s)",
    "Arithmetic (GFLOPS/s)",
    "TheoreticalArithmetic (GFLOPS/s)",
    "BM",
    "spec",
]


def _frame() -> pd.DataFrame:
    data: dict[str, list[object]] = {c: [1.0, 2.0] for c in COLUMNS}
    data["name"] = ["a", "b"]
    data["spec"] = ["s", "t"]
    return pd.DataFrame(data)


@pytest.mark.parametrize(
    ("query", "column", "higher"),
    [
        ("met (ms)", "met (ms)", False),
        ("MET", "met (ms)", False),
        ("throughput", "throughput (GElems/s)", True),
        ("datamovement", "DataMovement (GB/s)", True),
        ("arith", "Arithmetic (GFLOPS/s)", True),
        ("Theoretical", "TheoreticalArithmetic (GFLOPS/s)", True),
        ("iters", "iters", False),
        ("bm", "BM", False),
    ],
)
def test_resolution_by_name_or_prefix(query: str, column: str, higher: bool) -> None:
    assert resolve_metric([_frame()], query) == Metric(column, higher)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        (
            "nope",
            "no column matches metric 'nope'; numeric columns: met (ms), iters, "
            "throughput (GElems/s), DataMovement (GB/s), Arithmetic (GFLOPS/s), "
            "TheoreticalArithmetic (GFLOPS/s), BM",
        ),
        (
            "name",
            "metric 'name' is not numeric; numeric columns: met (ms), iters, "
            "throughput (GElems/s), DataMovement (GB/s), Arithmetic (GFLOPS/s), "
            "TheoreticalArithmetic (GFLOPS/s), BM",
        ),
    ],
)
def test_unknown_or_non_numeric_metric_lists_the_columns(
    query: str, message: str
) -> None:
    with pytest.raises(KprofileError) as caught:
        resolve_metric([_frame()], query)
    assert str(caught.value) == f"kprofile: error: {message}"


def test_an_ambiguous_prefix_is_an_error() -> None:
    frame = pd.DataFrame({"time a (ms)": [1.0], "time b (ms)": [2.0]})
    with pytest.raises(
        KprofileError, match="ambiguous: 'time a \\(ms\\)', 'time b \\(ms\\)'"
    ):
        resolve_metric([frame], "time")


def test_override_direction() -> None:
    assert resolve_metric([_frame()], "met", higher=True).higher_is_better


@pytest.mark.parametrize(
    ("column", "higher"),
    [
        ("met (ms)", False),
        ("time (us)", False),
        ("x (GB/s)", True),
        ("bw per sec", True),
        ("TFLOPS", True),
    ],
)
def test_direction_from_unit(column: str, higher: bool) -> None:
    assert higher_is_better(column) is higher


LOWER, HIGHER = Metric("t", False), Metric("r", True)
VALUES = np.array([2.0, 0.0, np.nan, 1.0, 4.0, 1.0, -1.0, np.inf])


def test_failed_runs_never_rank() -> None:
    assert (
        best_position(VALUES, LOWER) == 3
    )  # first of the tied 1.0s; 0, NaN, negative, inf skipped
    assert worst_position(VALUES, LOWER) == 4
    assert best_position(VALUES, HIGHER) == 4
    assert worst_position(VALUES, HIGHER) == 3
    assert rank_order(VALUES, LOWER).tolist() == [3, 5, 0, 4]
    assert rank_order(VALUES, HIGHER).tolist() == [4, 0, 3, 5]
    assert best_position(np.array([0.0, np.nan]), LOWER) is None


def test_ratio_convention() -> None:
    assert ratio_to(np.array([1.0, 2.0, 0.0]), 1.0, LOWER).tolist()[:2] == [1.0, 2.0]
    assert math.isnan(ratio_to(np.array([0.0]), 1.0, LOWER)[0])
    assert ratio_to(np.array([4.0, 2.0]), 4.0, HIGHER).tolist() == [1.0, 2.0]
