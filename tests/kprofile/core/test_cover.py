"""kprofile.core.cover: hand-made tables whose answer is known by construction."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from cover_support import (
    PARAMS,
    TIME,
    TRAP,
    chosen_names,
    run,
    table_from_coverage,
)

from kprofile.core.cover import (
    REASON_NO_RUN,
    REASON_NOT_SHARED,
    cover,
)
from kprofile.core.metric import Metric

pytestmark = pytest.mark.slow  # HiGHS solves

# ------------------------------------------------------------------ known answers

# (coverage per config, number of shapes, expected chosen configs in output order)
KNOWN = [
    pytest.param(
        {"a": {0, 1, 2}, "b": {0}, "c": {1}}, 3, ["a"], id="one-config-serves-all"
    ),
    pytest.param(
        {"a": {0, 1}, "b": {2}, "c": {1, 2}},
        3,
        ["a", "b"],
        id="two-needed-first-appearance-tie",
    ),
    pytest.param(
        {"x": {0}, "y": {1}, "z": {2}, "w": {0, 1, 2, 3}, "v": {3}},
        4,
        ["w"],
        id="late-config-wins",
    ),
    pytest.param(TRAP, 5, ["c0", "c5"], id="greedy-trap"),
]


@pytest.mark.parametrize(("coverage", "n_shapes", "expected"), KNOWN)
def test_exact_answer_known_by_construction(
    coverage: dict[str, set[int]], n_shapes: int, expected: list[str]
) -> None:
    result = run(table_from_coverage(coverage, n_shapes))
    assert result.method == "exact"
    assert chosen_names(result) == expected
    assert (result.assignment["ratio"] == 1.0).all()
    assert result.unshared.empty


def test_assignment_columns_and_values() -> None:
    df = pd.DataFrame(
        {
            "M": [1, 1, 2, 2, 3, 3],
            "N": [7] * 6,
            "BM": [64, 128] * 3,
            "STAGES": [2, 3] * 3,
            "met": [1.0, 1.01, 1.5, 1.0, 1.3, 1.0],
        }
    )
    result = run(df)
    assert result.configs.to_dict("records") == [{"BM": 128, "STAGES": 3}]
    assert result.configs["BM"].dtype == df["BM"].dtype
    assert list(result.assignment.columns) == [
        "M",
        "N",
        "config",
        "met",
        "best",
        "ratio",
        "loss",
    ]
    assert result.assignment["M"].tolist() == [1, 2, 3]
    assert result.assignment["config"].tolist() == [0, 0, 0]
    assert result.assignment["met"].tolist() == [1.01, 1.0, 1.0]
    assert result.assignment["best"].tolist() == [1.0, 1.0, 1.0]
    assert result.assignment["loss"].tolist() == pytest.approx([0.01, 0.0, 0.0])
    assert result.baseline_size == 2


def test_each_shape_takes_its_lowest_ratio_among_chosen() -> None:
    # a covers 0,1 (loss 1% on 1); b is needed for 2 and is the best on 1: shape 1 must get b.
    df = table_from_coverage({"a": {0, 1}, "b": {1, 2}}, 3)
    df.loc[(df["M"] == 1) & (df["STAGES"] == "a"), "met"] = 1.01
    result = run(df)
    assert chosen_names(result) == ["a", "b"]
    assert result.assignment["config"].tolist() == [0, 1, 1]
    assert result.assignment["loss"].tolist() == [0.0, 0.0, 0.0]


def test_equal_size_prefers_lower_total_loss() -> None:
    # Covers {a, c} and {b, c} both have size 2; b has no loss on shape 0, a has 1.5%.
    df = table_from_coverage({"a": {0, 1}, "b": {0, 1}, "c": {2}}, 3)
    df.loc[(df["M"] == 0) & (df["STAGES"] == "a"), "met"] = 1.015
    df.loc[(df["M"] == 1) & (df["STAGES"] == "b"), "met"] = 1.01
    df.loc[(df["M"] == 1) & (df["STAGES"] == "a"), "met"] = 1.0
    df.loc[(df["M"] == 0) & (df["STAGES"] == "b"), "met"] = 1.0
    # a: losses 1.5% + 0, b: 0 + 1%: b wins on total loss although a appears first.
    assert chosen_names(run(df)) == ["b", "c"]


def test_equal_size_lower_loss_than_greedy_finds() -> None:
    # Greedy: a (3 shapes), then b (no loss on shape 3) = total loss 1.5%.
    # {a, c} has the same size and c also takes shape 2 from a: total loss 1%.
    df = table_from_coverage({"a": {0, 1, 2}, "b": {3}, "c": {2, 3}}, 4)
    df.loc[(df["M"] == 2) & (df["STAGES"] == "a"), "met"] = 1.015
    df.loc[(df["M"] == 3) & (df["STAGES"] == "c"), "met"] = 1.01
    result = run(df)
    assert (result.method, result.loss_proven) == ("exact", True)
    assert chosen_names(result) == ["a", "c"]
    assert result.assignment["loss"].tolist() == pytest.approx([0.0, 0.0, 0.0, 0.01])


def test_config_not_measured_on_a_shape_does_not_cover_it() -> None:
    df = table_from_coverage({"a": {0, 1, 2}, "b": {2}}, 3)
    df = df[~((df["M"] == 2) & (df["STAGES"] == "a"))]  # a never ran on shape 2
    result = run(df)
    assert chosen_names(result) == ["a", "b"]
    assert result.assignment["config"].tolist() == [0, 0, 1]


@pytest.mark.parametrize("failed", [0.0, -1.0, math.nan, math.inf])
def test_failed_runs_are_ignored(failed: float) -> None:
    df = table_from_coverage({"a": {0, 1}, "b": {0, 1}}, 2)
    df.loc[(df["STAGES"] == "a"), "met"] = (
        failed  # would be "best" if it counted (0 and -1 are the lowest)
    )
    df.loc[(df["STAGES"] == "b"), "met"] = 3.0
    result = run(df)
    assert chosen_names(result) == ["b"]
    assert result.assignment["met"].tolist() == [3.0, 3.0]


def test_duplicate_measurements_keep_the_best() -> None:
    df = table_from_coverage({"a": {0}, "b": {0, 1}}, 2)
    worse = df[df["STAGES"] == "b"].assign(met=9.0)
    result = run(pd.concat([worse, df], ignore_index=True))
    assert chosen_names(result) == ["b"]
    assert result.assignment["met"].tolist() == [1.0, 1.0]


def test_higher_is_better_ratio_direction() -> None:
    df = table_from_coverage({"a": {0, 1}, "b": {1}}, 2)
    df["met"] = 1.0 / df["met"]  # throughput: good configs 1.0, bad 0.5
    df.loc[(df["M"] == 1) & (df["STAGES"] == "a"), "met"] = (
        0.99  # ratio 1/0.99 = 1.0101
    )
    speed = Metric("met", higher_is_better=True)
    result = run(df, metric=speed)
    assert chosen_names(result) == ["a"]
    assert result.assignment["ratio"].tolist() == pytest.approx([1.0, 1 / 0.99])
    assert run(df, tol=0.005, metric=speed).configs.shape[0] == 2


def test_nan_parameter_value_is_a_config_of_its_own() -> None:
    df = pd.DataFrame(
        {
            "M": [1, 1, 2, 2],
            "N": [7] * 4,
            "BM": [64, 64, 64, 64],
            "STAGES": [np.nan, 3, np.nan, 3],
            "met": [1.0, 2.0, 2.0, 1.0],
        }
    )
    result = run(df, tol=0.5)
    assert len(result.configs) == 2
    assert result.configs["STAGES"].isna().tolist() == [True, False]


def test_tolerance_boundary_is_inclusive() -> None:
    df = table_from_coverage({"a": {0, 1}, "b": {1}}, 2)
    df.loc[(df["M"] == 1) & (df["STAGES"] == "a"), "met"] = 1.25  # exactly 1 + 0.25
    assert chosen_names(run(df, tol=0.25)) == ["a"]
    assert len(run(df, tol=0.2499).configs) == 2


def test_shapes_no_shared_config_serves_get_their_own_best() -> None:
    df = table_from_coverage({"a": {0, 1}, "b": {2}, "c": {2}}, 3)
    df.loc[(df["M"] == 2) & (df["STAGES"] == "c"), "met"] = (
        0.5  # c is shape 2's own best
    )
    result = run(df)
    assert chosen_names(result) == ["a", "c"]
    assert result.unshared.to_dict("records") == [
        {"M": 2, "N": 7, "reason": REASON_NOT_SHARED, "config": 1, "best": 0.5}
    ]
    assert result.baseline_size == 2


def test_shape_without_successful_run_is_reported_not_assigned() -> None:
    df = table_from_coverage({"a": {0, 1, 2}}, 3)
    df.loc[df["M"] == 2, "met"] = 0.0
    result = run(df)
    assert result.assignment["M"].tolist() == [0, 1]
    assert result.unshared[["M", "reason"]].to_dict("records") == [
        {"M": 2, "reason": REASON_NO_RUN}
    ]
    assert result.unshared["config"].isna().all()


def test_no_shape_columns_means_one_shape() -> None:
    df = table_from_coverage({"a": {0}, "b": set()}, 1)
    result = cover(df, shape_cols=[], param_cols=PARAMS, metric=TIME, tol=0.0)
    assert chosen_names(result) == ["a"]
    assert result.baseline_size == 1


def test_deterministic() -> None:
    df = table_from_coverage({"a": {0, 1}, "b": {0, 1}, "c": {2, 3}, "d": {2, 3}}, 4)
    first, second = run(df), run(df)
    pd.testing.assert_frame_equal(first.configs, second.configs)
    pd.testing.assert_frame_equal(first.assignment, second.assignment)
    assert chosen_names(first) == ["a", "c"]
