"""kprofile.core.repeats: --combine against per-group numpy, and the noise flags
against a computation by hand."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from kprofile.core.measure import measure
from kprofile.core.metric import Metric
from kprofile.core.repeats import (
    BEST_CONFIG,
    RUNNER_UP,
    WITHIN_NOISE,
    Aggregate,
    combine_repeats,
    noise,
)

SHAPE = ["M"]
PARAMS = ["BM", "STAGES"]
NUMPY = {"median": np.median, "min": np.min, "mean": np.mean}


def key(row: Any) -> tuple[str, ...]:
    """A group's key with a missing value spelled 'nan' (so it groups with itself)."""
    return tuple("nan" if pd.isna(row[c]) else str(row[c]) for c in [*SHAPE, *PARAMS])


def groups(df: pd.DataFrame) -> dict[tuple[str, ...], list[float]]:
    """Successful runs per group, groups in order of first appearance."""
    out: dict[tuple[str, ...], list[float]] = {}
    for _, row in df.iterrows():
        runs = out.setdefault(key(row), [])
        if math.isfinite(row["met"]) and row["met"] > 0:
            runs.append(float(row["met"]))
    return out


@st.composite
def runs(draw: st.DrawFn) -> pd.DataFrame:
    met = st.sampled_from([1.0, 1.05, 1.1, 1.3, 2.0, 0.0, -1.0, math.nan, math.inf])
    rows = [
        {
            "M": draw(st.sampled_from([1, 2, 3])),
            "BM": draw(st.sampled_from([64, 128])),
            "STAGES": draw(st.sampled_from([3, math.nan])),
            "met": draw(met),
            "spec": f"row{i}",
        }
        for i in range(draw(st.integers(1, 30)))
    ]
    return pd.DataFrame(rows)


@pytest.mark.slow  # a property run, or a real process under a limit
@settings(max_examples=examples(400))
@given(runs(), st.sampled_from(["median", "min", "mean"]))
def test_combine_equals_per_group_numpy(df: pd.DataFrame, how: Aggregate) -> None:
    got = combine_repeats(
        df, shape_cols=SHAPE, param_cols=PARAMS, metric=Metric("met", False), how=how
    )
    want = groups(df)
    assert [key(row) for _, row in got.frame.iterrows()] == list(want)
    for i, values in enumerate(want.values()):
        value = got.frame["met"].iloc[i]
        assert got.runs[i] == len(values)
        if values:
            assert value == pytest.approx(NUMPY[how](values), rel=1e-12)
            assert got.spread[i] == pytest.approx(max(values) / min(values))
        else:
            assert math.isnan(value) and math.isnan(got.spread[i])
    # the other columns are each group's first row
    first: dict[tuple[str, ...], str] = {}
    for _, row in df.iterrows():
        first.setdefault(key(row), row["spec"])
    assert got.frame["spec"].tolist() == list(first.values())
    assert got.repeated == sum(len(v) >= 2 for v in want.values())


def test_min_is_the_lowest_value_whatever_the_direction() -> None:
    df = pd.DataFrame(
        {"M": [1, 1, 1], "BM": [64] * 3, "STAGES": [3] * 3, "met": [5.0, 2.0, 9.0]}
    )
    for higher in (False, True):
        got = combine_repeats(
            df,
            shape_cols=SHAPE,
            param_cols=PARAMS,
            metric=Metric("met", higher),
            how="min",
        )
        assert got.frame["met"].tolist() == [2.0]
        assert got.spread.tolist() == [4.5]


def test_an_unknown_aggregate_is_refused() -> None:
    df = pd.DataFrame({"M": [1], "BM": [64], "STAGES": [3], "met": [1.0]})
    with pytest.raises(ValueError, match="median, min, mean"):
        combine_repeats(
            df,
            shape_cols=SHAPE,
            param_cols=PARAMS,
            metric=Metric("met", False),
            how="max",  # type: ignore[arg-type]
        )


def noise_by_hand(df: pd.DataFrame, how: Aggregate) -> dict[str, tuple[int, int, int]]:
    """Per shape: (best config, runner-up config, others within noise), configs
    numbered by first appearance."""
    runs = groups(df)
    config_ids: dict[tuple[str, ...], int] = {}
    for k in runs:
        config_ids.setdefault(k[1:], len(config_ids))
    out = {}
    for shape in dict.fromkeys(k[0] for k in runs):
        ran = {
            config_ids[k[1:]]: (NUMPY[how](v), max(v) / min(v))
            for k, v in runs.items()
            if k[0] == shape and v
        }
        if not ran:
            continue
        best_value = min(v for v, _ in ran.values())
        order = sorted(ran, key=lambda c: (ran[c][0] / best_value, c))
        best = order[0]
        within = sum(
            ran[c][0] / best_value <= max(ran[best][1], ran[c][1]) for c in order[1:]
        )
        out[shape] = (best, order[1] if len(order) > 1 else -1, within)
    return out


@pytest.mark.slow  # a property run, or a real process under a limit
@settings(max_examples=examples(400))
@given(runs(), st.sampled_from(["median", "min", "mean"]))
def test_noise_equals_a_computation_by_hand(df: pd.DataFrame, how: Aggregate) -> None:
    metric = Metric("met", False)
    repeats = combine_repeats(
        df, shape_cols=SHAPE, param_cols=PARAMS, metric=metric, how=how
    )
    if not (repeats.frame["met"] > 0).any():
        return  # nothing ran: measure refuses it (a usage error, tested there)
    measured = measure(
        repeats.frame, shape_cols=SHAPE, param_cols=PARAMS, metric=metric
    )
    got = noise(measured, repeats)
    labels = measured.shapes["M"].astype(str)
    seen = {
        labels[row["shape"]]: (row[BEST_CONFIG], row[RUNNER_UP], row[WITHIN_NOISE])
        for _, row in got.shapes.iterrows()
    }
    assert seen == noise_by_hand(df, how)
    spreads = [max(v) / min(v) for v in groups(df).values() if len(v) >= 2]
    assert got.repeated == len(spreads)
    if spreads:
        assert got.median_spread == pytest.approx(float(np.median(spreads)))
        assert got.worst_spread == pytest.approx(max(spreads))
    assert set(got.flagged["shape"]) == set(
        got.shapes.loc[got.shapes[WITHIN_NOISE] > 0, "shape"]
    )


def test_two_runs_that_overlap_flag_the_shape() -> None:
    # BM=64 ran 1.0 and 1.2 (spread 1.2); BM=128 ran 1.1 twice: its median is within
    df = pd.DataFrame(
        {
            "M": [1, 1, 1, 1, 2, 2],
            "BM": [64, 64, 128, 128, 64, 128],
            "STAGES": [3] * 6,
            "met": [1.0, 1.2, 1.15, 1.15, 1.0, 1.5],
        }
    )
    metric = Metric("met", False)
    repeats = combine_repeats(
        df, shape_cols=SHAPE, param_cols=PARAMS, metric=metric, how="median"
    )
    measured = measure(
        repeats.frame, shape_cols=SHAPE, param_cols=PARAMS, metric=metric
    )
    got = noise(measured, repeats)
    assert got.shapes[WITHIN_NOISE].tolist() == [1, 0]
    assert got.flagged["shape"].tolist() == [0]
    assert got.median_spread == pytest.approx((1.2 + 1.0) / 2)
