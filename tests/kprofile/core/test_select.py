"""Best rows, column roles and the common config agree with what pandas computes directly."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from select_oracle import common_config, select_top, select_top_fraction

from kprofile.core.columns import (
    shape_columns,
    split_by,
    tuning_columns,
)
from kprofile.core.metric import Metric, metric_values
from kprofile.core.problems import problem
from kprofile.core.select import best_row
from kprofile.inputs.load import load_results

RESULTS = Path(__file__).parents[3] / "fixtures" / "results"
FILES = sorted(str(p) for p in (RESULTS / "run1").glob("*.pkl")) + sorted(
    str(p) for p in (RESULTS / "run2").glob("*.pkl")
)
MET = Metric("met (ms)", False)
GFLOPS = Metric("Arithmetic (GFLOPS/s)", True)
TUNING = ("BM", "BN", "STAGES", "CLUSTER", "SWAP_AB", "SCHEDULE")


def _raw(path: str) -> pd.DataFrame:
    frame = pd.read_pickle(path)[
        "merged_df"
    ]  # trusted fixture: plain pandas as the oracle
    specs = (
        frame["spec"]
        .str.split("/")
        .str[1:]
        .apply(lambda parts: dict(p.lstrip("$").split("=") for p in parts))
    )
    return frame.join(pd.DataFrame(specs.tolist(), index=frame.index))


def test_column_roles() -> None:
    results = load_results(FILES[0])
    assert results.params == (*TUNING, "M", "N", "K")
    assert shape_columns(results) == ("M", "N", "K")
    assert tuning_columns(results) == TUNING
    fixed = tuple(  # one value in every file, and the same one
        p for p in TUNING if pd.concat([_raw(f)[p] for f in FILES]).nunique() == 1
    )
    found = problem([load_results(f) for f in FILES])
    assert (found.keys, found.fixed, found.unsure) == (("M", "N", "K"), fixed, ())


@pytest.mark.parametrize("path", FILES)
@pytest.mark.parametrize("metric", [MET, GFLOPS])
def test_best_row_matches_pandas(path: str, metric: Metric) -> None:
    raw = _raw(path)
    ran = raw[(raw[metric.column] > 0) & raw[metric.column].notna()]
    expected = (
        ran[metric.column].idxmax()
        if metric.higher_is_better
        else ran[metric.column].idxmin()
    )
    best = best_row(load_results(path), metric)
    assert best.position == expected
    assert best.value == raw[metric.column][expected]
    assert best.config()["BM"] == int(raw["BM"][expected])


@pytest.mark.parametrize("path", FILES)
@pytest.mark.parametrize("fraction", [0.01, 0.05, 0.2, 1.0])
def test_top_fraction_common_config_matches_pandas(path: str, fraction: float) -> None:
    raw = _raw(path)
    ran = raw[(raw["met (ms)"] > 0) & raw["met (ms)"].notna()].sort_values(
        "met (ms)", kind="stable"
    )
    subset = ran.iloc[: max(1, int(fraction * len(ran)))]
    common = common_config(
        load_results(path), MET, kind="top-fraction", amount=fraction
    )
    assert sorted(common.subset.tolist()) == sorted(subset.index.tolist())
    for mode in common.modes:
        counts = subset[mode.name].value_counts(sort=False)
        assert counts.max() == mode.count
        assert str(mode.value) in set(counts[counts == counts.max()].index)
        first_of_tied = next(v for v in subset[mode.name] if counts[v] == counts.max())
        assert str(mode.value) == first_of_tied  # ties: the better entry's value
        assert mode.share == pytest.approx(counts.max() / len(subset))
    mask = np.logical_and.reduce([raw[m.name] == str(m.value) for m in common.modes])
    if mask.any():
        assert common.measured in set(np.flatnonzero(mask).tolist())
        best = ran["met (ms)"].iloc[0]
        measured = raw["met (ms)"].iloc[common.measured]
        assert common.ratio == pytest.approx(measured / best) or (
            math.isnan(common.ratio) and not measured > 0
        )
    else:
        assert common.measured is None


def test_within_band_selects_by_ratio() -> None:
    results = load_results(FILES[0])
    values = metric_values(results.frame, MET)
    best = np.nanmin(np.where(values > 0, values, np.nan))
    common = common_config(results, MET, kind="within", amount=0.02)
    expected = np.flatnonzero((values > 0) & (values <= best * 1.02))
    assert sorted(common.subset.tolist()) == expected.tolist()


def test_top_fraction_always_keeps_at_least_one() -> None:
    values = np.array([3.0, 1.0, 2.0])
    assert select_top_fraction(values, MET, 0.01).tolist() == [1]


def _reference_top(raw: pd.DataFrame, column: str, band: float) -> dict[str, str]:
    """What Modular's kprofile.py does for ``--top``, restated with pandas: the rows
    below ``(band + min / max) * max`` in rank order, then each spec key's
    ``value_counts().idxmax()`` (values as the strings of the spec)."""
    ran = raw[(raw[column] > 0) & raw[column].notna()]
    ranked = ran.sort_values(column, kind="stable")[column]
    edge = (band + ranked.min() / ranked.max()) * ranked.max()
    subset = raw.loc[ranked.where(ranked < edge).dropna().index]
    specs = pd.DataFrame(
        [
            dict(t.lstrip("$").split("=") for t in s.split("/")[1:])
            for s in subset["spec"]
        ]
    )
    return {c: specs[c].value_counts().idxmax() for c in specs.columns}


@pytest.mark.parametrize("path", FILES)
@pytest.mark.parametrize("band", [0.001, 0.02, 0.05, 0.2, 0.5, 1.0])
def test_top_is_the_reference_band(path: str, band: float) -> None:
    raw = pd.read_pickle(path)["merged_df"]  # trusted fixture: pandas as the oracle
    common = common_config(load_results(path), MET, kind="top", amount=band)
    config = {k: str(v) for k, v in common.config.items()}
    assert config == _reference_top(raw, "met (ms)", band)
    values = raw["met (ms)"].where(raw["met (ms)"] > 0)
    edge = (band + values.min() / values.max()) * values.max()
    assert sorted(common.subset.tolist()) == np.flatnonzero(values < edge).tolist()


def test_top_band_is_strict_and_mirrored_for_higher_is_better() -> None:
    values = np.array([2.0, 1.0, 1.5, 4.0, 0.0, np.nan, 3.0])
    # lower is better: below 1 + 0.25 x 4 = 2.0, strictly (2.0 itself is out)
    assert select_top(values, MET, 0.25).tolist() == [1, 2]
    # higher is better: above 4 - 0.25 x 4 = 3.0, strictly; failed runs never count
    assert select_top(values, GFLOPS, 0.25).tolist() == [3]
    assert select_top(values, GFLOPS, 0.5).tolist() == [3, 6]
    assert select_top(np.array([0.0, np.nan]), MET, 0.5).tolist() == []


def test_never_benchmarked_common_config(tmp_path: Path, kb_write) -> None:  # type: ignore[no-untyped-def]
    rows = [
        {"A": 1, "B": 2, "met (ms)": 1.0},
        {"A": 2, "B": 1, "met (ms)": 1.1},
        {"A": 1, "B": 3, "met (ms)": 1.2},
        {"A": 3, "B": 1, "met (ms)": 1.3},
        {"A": 9, "B": 9, "met (ms)": 9.0},
    ]
    results = load_results(str(kb_write("r.pkl", rows)))
    common = common_config(results, MET, kind="top-fraction", amount=0.8)
    assert common.config == {"A": 1, "B": 1}
    assert common.measured is None


def test_split_by_groups_in_input_order(kb_write) -> None:  # type: ignore[no-untyped-def]
    rows = [{"M": m, "A": a, "met (ms)": 1.0 + a} for m in (64, 8) for a in (1, 2)]
    parts = split_by(load_results(str(kb_write("r.pkl", rows))), ["M"])
    assert [p.frame["M"].tolist() for p in parts] == [[64, 64], [8, 8]]


def test_a_file_without_tuning_columns_has_its_only_config_measured(kb_write) -> None:  # type: ignore[no-untyped-def]
    rows = [{"M": 8, "met (ms)": 2.0}, {"M": 8, "met (ms)": 1.0}]
    results = load_results(str(kb_write("r.pkl", rows)))
    common = common_config(results, MET, kind="top", amount=0.5)
    assert (common.config, common.measured, common.ratio) == ({"M": 8}, 1, 1.0)


def test_a_parameter_some_rows_lack_takes_its_most_frequent_value(kb_write) -> None:  # type: ignore[no-untyped-def]
    """As pandas' value_counts (the reference) does: missing values are not counted,
    so B=2 wins over the two rows without B; it is missing only if no row sets it."""
    rows = [
        {"A": 1, "B": 2, "met (ms)": 1.0},
        {"A": 1, "met (ms)": 1.1},
        {"A": 2, "met (ms)": 1.2},
        {"A": 1, "B": 3, "met (ms)": 5.0},
    ]
    results = load_results(str(kb_write("r.pkl", rows)))
    common = common_config(results, MET, kind="top-fraction", amount=0.75)
    assert common.config == {"A": 1, "B": 2}
    assert [(m.name, m.count) for m in common.modes] == [("A", 2), ("B", 1)]
    assert common.measured == 0
    alone = common_config(results, MET, kind="top-fraction", amount=0.5)
    assert [(m.name, m.value, m.count) for m in alone.modes][1] == ("B", 2, 1)
