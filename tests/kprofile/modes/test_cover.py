"""kprofile.modes.cover: hand-made tables whose answer is known by construction, plus properties."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import examples

from kprofile.modes.cover import (
    REASON_NO_RUN,
    REASON_NOT_SHARED,
    AnalysisInputError,
    CoverResult,
    cover,
)

SHAPES = ["M", "N"]
PARAMS = ["BM", "STAGES"]


def table_from_coverage(
    coverage: dict[str, set[int]], n_shapes: int, *, good: float = 1.0
) -> pd.DataFrame:
    """Shape i (M=i, N=7) measured with every config; configs in ``coverage[name]`` get ``good``, others 2.0.

    Config ``name`` is encoded as BM=<position>, STAGES=<name>.
    """
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


def run(df: pd.DataFrame, tol: float = 0.02, **kw: object) -> CoverResult:
    kw.setdefault("lower_is_better", True)
    return cover(df, shape_cols=SHAPES, param_cols=PARAMS, metric="met", tol=tol, **kw)  # type: ignore[arg-type]


def chosen_names(result: CoverResult) -> list[str]:
    return result.configs["STAGES"].tolist()


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
    # Greedy takes c4 (3 shapes) first and ends with 3 configs; the only 2-config cover is c0 + c5.
    pytest.param(
        {
            "c0": {0, 3},
            "c1": {0},
            "c2": {1, 4},
            "c3": {3, 4},
            "c4": {0, 2, 4},
            "c5": {1, 2, 4},
        },
        5,
        ["c0", "c5"],
        id="greedy-trap",
    ),
]


@pytest.mark.parametrize(("coverage", "n_shapes", "expected"), KNOWN)
def test_exact_answer_known_by_construction(
    coverage: dict[str, set[int]], n_shapes: int, expected: list[str]
) -> None:
    result = run(table_from_coverage(coverage, n_shapes))
    assert result.method == "exact"
    assert chosen_names(result) == expected
    assert (result.assignment["ratio"] == 1.0).all()
    assert result.uncovered.empty


def test_greedy_trap_greedy_is_worse_but_valid() -> None:
    coverage = {
        "c0": {0, 3},
        "c1": {0},
        "c2": {1, 4},
        "c3": {3, 4},
        "c4": {0, 2, 4},
        "c5": {1, 2, 4},
    }
    greedy = run(table_from_coverage(coverage, 5), exact_limit=0)
    assert greedy.method == "greedy"
    assert len(greedy.configs) == 3
    assert "c4" in chosen_names(greedy)
    assert (greedy.assignment["ratio"] <= 1.02).all()


def test_budget_too_small_reports_greedy() -> None:
    coverage = {
        "c0": {0, 3},
        "c1": {0},
        "c2": {1, 4},
        "c3": {3, 4},
        "c4": {0, 2, 4},
        "c5": {1, 2, 4},
    }
    assert run(table_from_coverage(coverage, 5), exact_limit=1).method == "greedy"


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
    assert chosen_names(run(df, exact_limit=0)) == ["a", "b"]
    result = run(df)
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
    result = run(df, lower_is_better=False)
    assert chosen_names(result) == ["a"]
    assert result.assignment["ratio"].tolist() == pytest.approx([1.0, 1 / 0.99])
    assert run(df, tol=0.005, lower_is_better=False).configs.shape[0] == 2


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
    assert result.uncovered.to_dict("records") == [
        {"M": 2, "N": 7, "reason": REASON_NOT_SHARED, "config": 1, "best": 0.5}
    ]
    assert result.baseline_size == 2


def test_shape_without_successful_run_is_reported_not_assigned() -> None:
    df = table_from_coverage({"a": {0, 1, 2}}, 3)
    df.loc[df["M"] == 2, "met"] = 0.0
    result = run(df)
    assert result.assignment["M"].tolist() == [0, 1]
    assert result.uncovered[["M", "reason"]].to_dict("records") == [
        {"M": 2, "reason": REASON_NO_RUN}
    ]
    assert result.uncovered["config"].isna().all()


def test_no_shape_columns_means_one_shape() -> None:
    df = table_from_coverage({"a": {0}, "b": set()}, 1)
    result = cover(
        df,
        shape_cols=[],
        param_cols=PARAMS,
        metric="met",
        lower_is_better=True,
        tol=0.0,
    )
    assert chosen_names(result) == ["a"]
    assert result.baseline_size == 1


def test_deterministic() -> None:
    df = table_from_coverage({"a": {0, 1}, "b": {0, 1}, "c": {2, 3}, "d": {2, 3}}, 4)
    first, second = run(df), run(df)
    pd.testing.assert_frame_equal(first.configs, second.configs)
    pd.testing.assert_frame_equal(first.assignment, second.assignment)
    assert chosen_names(first) == ["a", "c"]


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
        {"metric": "met (ms)"},
        "unknown column(s) 'met (ms)'; available: M, N, BM, STAGES, met",
        id="unknown-metric",
    ),
    pytest.param(
        table_from_coverage({"a": {0}}, 1),
        {"param_cols": ["BM", "TILE", "K"]},
        "unknown column(s) 'TILE', 'K'; available: M, N, BM, STAGES, met",
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
        {"exact_limit": -1},
        "exact search limit must be >= 0, got -1",
        id="limit<0",
    ),
]


@pytest.mark.parametrize(("df", "overrides", "message"), ERRORS)
def test_errors_are_one_line_value_errors(
    df: pd.DataFrame, overrides: dict[str, object], message: str
) -> None:
    kwargs: dict[str, object] = {
        "shape_cols": SHAPES,
        "param_cols": PARAMS,
        "metric": "met",
        "lower_is_better": True,
        "tol": 0.02,
        **overrides,
    }
    with pytest.raises(AnalysisInputError) as info:
        cover(df, **kwargs)  # type: ignore[arg-type]
    assert isinstance(info.value, ValueError)
    assert str(info.value) == message


# ------------------------------------------------------------------ properties


def config_key(frame: pd.DataFrame) -> pd.Series:
    """One string per config; a missing value is spelled 'nan' (astype(str) would keep it missing)."""
    spell = {c: frame[c].map(lambda v: "nan" if pd.isna(v) else str(v)) for c in PARAMS}
    return spell["BM"] + "/" + spell["STAGES"]


def reference_ratios(df: pd.DataFrame) -> pd.DataFrame:
    """Independent pandas computation: ratio of every (shape, config) to the shape's best."""
    keyed = df.assign(cfg=config_key(df))
    first_seen = {cfg: i for i, cfg in enumerate(dict.fromkeys(keyed["cfg"]))}
    ok = keyed[(keyed["met"] > 0) & np.isfinite(keyed["met"])]
    per = ok.groupby(["M", "cfg"], as_index=False)["met"].min()
    per["best"] = per.groupby("M")["met"].transform("min")
    per["ratio"] = per["met"] / per["best"]
    per["first_seen"] = per["cfg"].map(first_seen)
    return per


def within(per: pd.DataFrame, tol: float) -> pd.Series:
    """'Within tol of the best' in every way a reader may write it (cover's documented contract)."""
    return (
        (per["ratio"] <= 1 + tol)
        & (per["ratio"] - 1 <= tol)
        & (per["met"] <= per["best"] * (1 + tol))
    )


def brute_force_minimum(per: pd.DataFrame, tol: float) -> tuple[int, float]:
    """Smallest cover over all subsets, and the lowest total loss among covers of that size."""
    covers = per[within(per, tol)].groupby("cfg")["M"].apply(frozenset).to_dict()
    ratio = per.pivot(index="M", columns="cfg", values="ratio")
    shapes = frozenset(per["M"])
    for size in range(1, len(covers) + 1):
        losses = [
            float((ratio[list(combo)].min(axis=1) - 1).sum())
            for combo in itertools.combinations(covers, size)
            if frozenset().union(*(covers[c] for c in combo)) == shapes
        ]
        if losses:
            return size, min(losses)
    raise AssertionError("every shape's best covers it, so some subset must cover")


@st.composite
def grids(draw: st.DrawFn) -> tuple[pd.DataFrame, float]:
    n_shapes = draw(st.integers(1, 5))
    n_configs = draw(st.integers(1, 6))
    values = st.sampled_from([1.0, 1.01, 1.03, 1.1, 1.5, 2.0, 0.0, math.nan, None])
    rows = []
    for m in range(n_shapes):
        for c in range(n_configs):
            v = draw(values)
            if v is not None:  # None: this config never ran on this shape
                rows.append(
                    {
                        "M": m,
                        "N": 7,
                        "BM": c % 3,
                        "STAGES": (c // 3) if c != 5 else math.nan,
                        "met": v,
                    }
                )
    rows.append(
        {"M": 0, "N": 7, "BM": 0, "STAGES": 0, "met": 1.0}
    )  # at least one success
    tol = draw(st.sampled_from([0.0, 0.02, 0.05, 0.1, 0.6]))
    return pd.DataFrame(rows), tol


@settings(
    max_examples=examples(300),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(grids())
def test_properties_on_random_grids(case: tuple[pd.DataFrame, float]) -> None:
    df, tol = case
    per = reference_ratios(df)
    exact = run(df, tol=tol)
    greedy = run(df, tol=tol, exact_limit=0)
    assert exact.method == "exact"
    nothing_to_search = (greedy.uncovered["reason"] == REASON_NOT_SHARED).sum() == per[
        "M"
    ].nunique()
    assert greedy.method == ("exact" if nothing_to_search else "greedy")
    # one config per shape: its best, ties to the config seen first in the input
    baseline = (
        per.sort_values(["M", "ratio", "first_seen"])
        .drop_duplicates("M")["cfg"]
        .nunique()
    )
    for result in (exact, greedy):
        assert result.baseline_size == baseline
        assert len(result.configs) <= baseline
        check_assignment(df, per, result, tol)
    assert len(exact.configs) <= len(greedy.configs)
    size, loss = brute_force_minimum(per, tol)
    assert len(exact.configs) == size
    assert exact.assignment["loss"].sum() == pytest.approx(loss, abs=1e-9)


def check_assignment(
    df: pd.DataFrame, per: pd.DataFrame, result: CoverResult, tol: float
) -> None:
    chosen = config_key(result.configs)
    got = result.assignment.assign(
        cfg=chosen.to_numpy()[result.assignment["config"].to_numpy()]
    )
    assert sorted(got["M"]) == sorted(
        per["M"].unique()
    )  # every shape with a successful run
    joined = got.merge(per, on=["M", "cfg"], suffixes=("", "_ref"), validate="1:1")
    assert len(joined) == len(got)  # the assigned config was measured on that shape
    assert within(
        joined[["ratio_ref", "met_ref", "best_ref"]].set_axis(
            ["ratio", "met", "best"], axis=1
        ),
        tol,
    ).all()
    assert joined["ratio"].tolist() == joined["ratio_ref"].tolist()
    assert joined["met"].tolist() == joined["met_ref"].tolist()
    lowest = per[per["cfg"].isin(set(chosen))].groupby("M")["ratio"].min()
    assert (
        joined.set_index("M")["ratio"].sort_index().tolist()
        == lowest.sort_index().tolist()
    )
    # every chosen config is used by some shape
    assert set(result.assignment["config"]) == set(range(len(result.configs)))


def test_larger_grid_stays_valid_and_small() -> None:
    rng = np.random.default_rng(5)
    shapes, configs = 40, 300
    met = rng.lognormal(0.0, 0.15, size=(shapes, configs))
    df = pd.DataFrame(
        {
            "M": np.repeat(np.arange(shapes), configs),
            "N": 7,
            "BM": np.tile(np.arange(configs) % 12, shapes),
            "STAGES": np.tile(np.arange(configs) // 12, shapes),
            "met": met.ravel(),
        }
    )
    per = reference_ratios(df)
    for limit in (0, 2000):
        result = run(df, tol=0.05, exact_limit=limit)
        assert len(result.configs) <= result.baseline_size
        check_assignment(df, per, result, 0.05)
