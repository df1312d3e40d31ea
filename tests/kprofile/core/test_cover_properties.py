"""kprofile.core.cover against an independent pandas computation and brute force."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from cover_support import PARAMS, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import examples, within_exactly

from kprofile.core.cover import REASON_NOT_SHARED, CoverResult


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
    """'Within tol of the best': met / best at most 1 + tol, exactly (the documented
    tolerance rule: 1.1 against 1.0 is within 10%)."""
    kept = [within_exactly(m, b, tol) for m, b in zip(per["met"], per["best"])]
    return pd.Series(kept, index=per.index, dtype=bool)


def brute_force_minimum(per: pd.DataFrame, tol: float) -> tuple[int, int]:
    """Smallest cover over all subsets, and the lowest total loss among covers of that
    size, in whole millionths per shape (the documented comparison)."""
    covers = per[within(per, tol)].groupby("cfg")["M"].apply(frozenset).to_dict()
    ratio = per.pivot(index="M", columns="cfg", values="ratio")
    shapes = frozenset(per["M"])
    for size in range(1, len(covers) + 1):
        losses = [
            sum(round((r - 1) * 1_000_000) for r in ratio[list(combo)].min(axis=1))
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
    max_examples=examples(100),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@pytest.mark.slow  # a property run, or a real process under a limit
@given(grids())
def test_properties_on_random_grids(case: tuple[pd.DataFrame, float]) -> None:
    df, tol = case
    per = reference_ratios(df)
    exact = run(df, tol=tol)
    fallback = run(df, tol=tol, time_limit=0)
    assert (exact.method, exact.lower_bound, exact.loss_proven) == (
        "exact",
        exact.size,
        True,
    )
    alone = (fallback.unshared["reason"] == REASON_NOT_SHARED).sum()
    nothing_to_search = alone == per["M"].nunique()
    assert fallback.method == ("exact" if nothing_to_search else "time limit")
    # one config per shape: its best, ties to the config seen first in the input
    baseline = (
        per.sort_values(["M", "ratio", "first_seen"])
        .drop_duplicates("M")["cfg"]
        .nunique()
    )
    for result in (exact, fallback):
        assert result.baseline_size == baseline
        assert len(result.configs) <= baseline
        check_assignment(df, per, result, tol)
    size, loss = brute_force_minimum(per, tol)
    assert fallback.lower_bound <= size == exact.size <= fallback.size
    got = sum(round(r * 1_000_000) for r in exact.assignment["loss"])
    assert got == loss


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
    for limit in (0, None):
        result = run(df, tol=0.05, time_limit=limit, loss_time_limit=2)
        assert result.lower_bound <= len(result.configs) <= result.baseline_size
        check_assignment(df, per, result, 0.05)
