"""kprofile.core.cover: time limits, what the sections say about them, the metric
spelling, and input errors."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from cover_support import (
    PARAMS,
    SHAPES,
    TIME,
    TRAP,
    chosen_names,
    run,
    table_from_coverage,
)

from kprofile.core.cover import cover
from kprofile.core.metric import Metric
from kprofile.errors import KprofileError
from kprofile.modes.cover import cover_sections


def test_no_time_gives_greedy_valid_table_with_bound_and_gap() -> None:
    result = run(table_from_coverage(TRAP, 5), time_limit=0)
    assert result.method == "time limit"
    assert chosen_names(result) == ["c0", "c2", "c4"]  # greedy, c4 first
    # shapes 1 ({c2, c5}) and 3 ({c0, c3}) share no config: at least 2
    assert (result.size, result.lower_bound, result.gap) == (3, 2, 1)
    assert result.loss_proven is False
    assert (result.assignment["ratio"] <= 1.02).all()
    facts = dict(cover_sections(result, shape_cols=SHAPES, metric=TIME)[0].facts)
    assert facts["method"] == "time limit (a smaller table may exist: see lower bound)"
    assert (facts["configs"], facts["lower bound"], facts["gap"]) == (
        3,
        2,
        "1 config (33.3%)",
    )


def test_exact_facts_have_no_bound() -> None:
    facts = cover_sections(
        run(table_from_coverage(TRAP, 5)), shape_cols=SHAPES, metric=TIME
    )[0].facts
    assert [name for name, _ in facts] == [
        "method",
        "configs",
        "one per shape",
        "shapes",
        "own config",
        "no successful run",
        "tol",
        "shapes by",
        "metric",
    ]
    assert facts[0] == ("method", "exact (no smaller table exists)")


def test_no_time_for_the_loss_says_so() -> None:
    df = table_from_coverage({"a": {0, 1, 2}, "b": {3}, "c": {2, 3}}, 4)
    result = run(df, loss_time_limit=0)
    assert (result.method, result.size, result.loss_proven) == ("exact", 2, False)
    facts = dict(cover_sections(result, shape_cols=SHAPES, metric=TIME)[0].facts)
    assert facts["method"] == (
        "exact (no smaller table exists); the loss search hit its time limit: "
        "a table of this size may lose less"
    )


# ------------------------------------------------------------------ errors

ERRORS = [
    pytest.param(
        pd.DataFrame(columns=["M", "N", "BM", "STAGES", "met"]),
        {},
        "no results: the table is empty",
        id="empty",
    ),
    pytest.param(
        table_from_coverage({"a": {0}}, 1),
        {"metric": Metric("met (ms)", higher_is_better=False)},
        "no column 'met (ms)'; columns: M, N, BM, STAGES, met",
        id="unknown-metric",
    ),
    pytest.param(
        table_from_coverage({"a": {0}}, 1),
        {"param_cols": ["BM", "TILE", "K"]},
        "no column 'TILE', 'K'; columns: M, N, BM, STAGES, met",
        id="unknown-params",
    ),
    pytest.param(
        table_from_coverage({"a": {0}}, 1),
        {"param_cols": []},
        "no parameter columns to analyze",
        id="no-params",
    ),
    pytest.param(
        table_from_coverage({"a": {0}}, 1),
        {"param_cols": ["M", "BM"]},
        "column(s) 'M' used in more than one role",
        id="overlap",
    ),
    pytest.param(
        table_from_coverage({"a": {0}}, 1),
        {"tol": -0.01},
        "tolerance must be >= 0, got -0.01",
        id="tol<0",
    ),
    pytest.param(
        table_from_coverage({"a": {0}}, 1),
        {"tol": math.nan},
        "tolerance must be a finite number, got nan",
        id="tol-nan",
    ),
    pytest.param(
        table_from_coverage({"a": {0}}, 1).assign(met=0.0),
        {},
        "no successful run: every 'met' value is 0, negative or missing",
        id="all-failed",
    ),
    pytest.param(
        table_from_coverage({"a": {0}}, 1),
        {"time_limit": -1},
        "time limit must be a number of seconds >= 0, got -1",
        id="limit<0",
    ),
    pytest.param(
        table_from_coverage({"a": {0}}, 1),
        {"loss_time_limit": math.inf},
        "loss time limit must be a number of seconds >= 0, got inf",
        id="loss-limit-inf",
    ),
]


@pytest.mark.parametrize(("df", "overrides", "message"), ERRORS)
def test_errors_are_one_line_usage_errors(
    df: pd.DataFrame, overrides: dict[str, object], message: str
) -> None:
    kwargs: dict[str, object] = {
        "shape_cols": SHAPES,
        "param_cols": PARAMS,
        "metric": TIME,
        "tol": 0.02,
        **overrides,
    }
    with pytest.raises(KprofileError) as info:
        cover(df, **kwargs)  # type: ignore[arg-type]
    assert info.value.message == message
    assert str(info.value) == f"kprofile: error: {message}"
