"""kprofile.core.score: a table's score against an independent computation.

The reference scores with plain pandas and Python: the shape's best over its
successful runs, the entry found by the hand-written dispatch scan, the rows of the
entry's config at the shape (compared with the hand-written equality), its best run,
the ratio, and statistics' geometric mean and median over the scored shapes.
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from support import FIXTURES, examples, run, within_exactly
from table_support import HELDOUT, brute, raw_csv, reference, table

from kprofile.core.combine import combine
from kprofile.core.measure import measure
from kprofile.core.metric import Metric
from kprofile.core.score import (
    NO_ENTRY,
    NO_RUN,
    NOT_MEASURED,
    SCORED,
    score_configs,
    score_table,
)
from kprofile.inputs.load import load_inputs
from tuning_codegen.manifest import load_manifest

SHAPE = ["M", "N"]
PARAMS = ["BM", "STAGES"]


@st.composite
def cases(
    draw: st.DrawFn,
) -> tuple[pd.DataFrame, list[dict[str, Any]], bool]:
    rows = []
    for m in range(1, draw(st.integers(1, 4)) + 1):
        for n in draw(
            st.lists(st.sampled_from([7, 8]), min_size=1, max_size=2, unique=True)
        ):
            for bm in (64, 128):
                for stages in (3, math.nan):
                    for _ in range(draw(st.integers(0, 2))):  # 0: never ran
                        met = draw(
                            st.sampled_from([1.0, 1.01, 1.04, 1.2, 2.0, 0.0, math.nan])
                        )
                        rows.append(
                            {"M": m, "N": n, "BM": bm, "STAGES": stages, "met": met}
                        )
    if not rows:
        rows.append({"M": 1, "N": 7, "BM": 64, "STAGES": 3, "met": 1.0})
    entries = []
    for i in range(draw(st.integers(0, 5))):
        # _id keeps entries distinct (a manifest refuses two equal ones): not a column
        entry: dict[str, Any] = {"_id": i, "N": draw(st.sampled_from([7, 8]))}
        if draw(st.booleans()):
            low = draw(st.integers(0, 4))
            entry.update(M=low, M_END=low + draw(st.integers(1, 3)))
        else:
            entry["M"] = draw(st.integers(1, 4))
        entry["BM"] = draw(st.sampled_from([64, 128, 256]))
        stages = draw(st.sampled_from([3, 3.0, None, "absent"]))
        if stages != "absent":
            entry["STAGES"] = stages
        entries.append(entry)
    return pd.DataFrame(rows), entries, draw(st.booleans())


@pytest.mark.slow  # a property run, or a real process under a limit
@settings(max_examples=examples(500))
@given(cases())
def test_score_equals_an_independent_computation(
    case: tuple[pd.DataFrame, list[dict[str, Any]], bool],
) -> None:
    df, entries, higher = case
    assume((df["met"] > 0).any())  # measure refuses results where nothing ran
    metric = Metric("met", higher)
    measured = measure(df, shape_cols=SHAPE, param_cols=PARAMS, metric=metric)
    got = score_table(table(entries), measured, metric, worst=3)
    want = reference(df, entries, higher)
    shapes = got.score.shapes
    seen = {
        (m, n): (status, ratio)
        for m, n, status, ratio in shapes[[*SHAPE, "status", "ratio"]].itertuples(
            index=False
        )
    }
    assert seen.keys() == want.keys()
    for key, (status, ratio) in want.items():
        assert seen[key][0] == status, key
        if status == SCORED:
            assert seen[key][1] == pytest.approx(ratio, rel=1e-12)
        else:
            assert math.isnan(seen[key][1])
    ratios = [r for s, r in want.values() if s == SCORED]
    score = got.score
    assert score.scored == len(ratios)
    assert score.no_entry == sum(s == NO_ENTRY for s, _ in want.values())
    assert score.no_run == sum(s == NO_RUN for s, _ in want.values())
    assert score.not_measured == sum(s == NOT_MEASURED for s, _ in want.values())
    if ratios:
        assert score.geomean == pytest.approx(statistics.geometric_mean(ratios))
        assert score.median == pytest.approx(statistics.median(ratios))
        for band in score.bands:
            assert band.count == sum(within_exactly(r, 1.0, band.tol) for r in ratios)
            assert band.share == pytest.approx(band.count / len(ratios))
        assert score.worst["ratio"].tolist() == pytest.approx(
            sorted(ratios, reverse=True)[:3]
        )
    else:
        assert math.isnan(score.geomean) and math.isnan(score.median)
        assert score.worst.empty
    covering = [
        len([1 for e in entries if brute([e], [{"M": m, "N": n}], SHAPE)[0] == 0])
        for m, n in want
    ]
    assert got.overlapping == sum(c > 1 for c in covering)
    assert got.ignored == (("_id",) if entries else ())


def test_statuses_and_the_summary_on_a_small_table() -> None:
    df = pd.DataFrame(
        {
            "M": [1, 1, 2, 2, 3, 4],
            "BM": [64, 128, 64, 128, 64, 64],
            "met": [1.0, 1.1, 2.0, 2.08, 0.0, 1.0],
        }
    )
    metric = Metric("met", False)
    measured = measure(df, shape_cols=["M"], param_cols=["BM"], metric=metric)
    t = table(
        [
            {"M": 1, "M_END": 3, "BM": 128, "_template": "ranged"},  # 1.1, 1.04
            {"M": 3, "BM": 64},  # nothing ran at M=3
            {"M": 4, "BM": 256},  # BM=256 never ran anywhere
        ]
    )
    got = score_table(t, measured, metric)
    shapes = got.score.shapes
    assert shapes["status"].tolist() == [SCORED, SCORED, NO_RUN, NOT_MEASURED]
    assert shapes["entry"].tolist() == [0, 0, 1, 2]
    assert shapes["config"].tolist() == [1, 1, 0, -1]
    assert shapes["ratio"].iloc[:2].tolist() == pytest.approx([1.1, 1.04])
    assert got.score.geomean == pytest.approx(math.sqrt(1.1 * 1.04))
    assert [(b.tol, b.count) for b in got.score.bands] == [
        (0.02, 0),
        (0.05, 1),
        (0.1, 2),  # 1.1 is at 10%: within it (the tolerance rule's <=)
    ]
    assert got.configs.tolist() == [1, 0, -1]
    assert got.ignored == ("_template",)
    assert got.dispatch.ranged == ("M",)


def test_score_configs_scores_any_choice_of_one_config_per_shape() -> None:
    df = pd.DataFrame(
        {"M": [1, 1, 2, 2], "BM": [64, 128, 64, 128], "met": [4.0, 2.0, 3.0, 6.0]}
    )
    metric = Metric("met", True)  # higher is better: best / value
    measured = measure(df, shape_cols=["M"], param_cols=["BM"], metric=metric)
    score = score_configs(measured, np.array([1, -1]), metric)
    assert score.shapes["status"].tolist() == [SCORED, NOT_MEASURED]
    assert score.shapes["ratio"].iloc[0] == pytest.approx(2.0)
    assert "entry" not in score.shapes.columns


def test_a_ranges_table_scores_within_its_tolerance_on_its_own_sweep(
    tmp_path: Path, capsys: Any
) -> None:
    sweep = sorted(str(p) for p in (FIXTURES / "sweep").glob("*.pkl"))
    code, _, _ = run(capsys, *sweep, "--ranges", "M", "-o", str(tmp_path / "ranged"))
    assert code == 0
    inputs, invalid = load_inputs(sweep)
    assert not invalid
    combined = combine(inputs, ())
    metric = Metric("met (ms)", False)
    measured = measure(
        combined.frame,
        shape_cols=combined.shape_cols,
        param_cols=combined.param_cols,
        metric=metric,
    )
    got = score_table(load_manifest(tmp_path / "ranged.yaml"), measured, metric)
    score = got.score
    # docs/ranges.md: 119 measured points, the worst ratio 1.022, M=496 never ran
    assert (score.scored, score.no_run, score.no_entry, score.not_measured) == (
        119,
        1,
        0,
        0,
    )
    assert round(score.worst_ratio, 3) == 1.022
    assert score.bands[1].share == 1.0  # every point within 3% (so within 5%)
    assert got.overlapping == 0
    left = score.shapes[score.shapes["status"] == NO_RUN]
    assert left[["M", "N", "K"]].values.tolist() == [[496, 4096, 4096]]


# ------------------------------------------------- the held-out pair of fixtures/heldout


@pytest.mark.parametrize("view", [["-p", "M,N,K"], ["--ranges", "M"]])
def test_a_table_built_from_one_run_scores_on_the_other_as_computed_apart(
    tmp_path: Path, capsys: Any, view: list[str]
) -> None:
    code, _, _ = run(
        capsys, str(HELDOUT / "run_a.csv"), *view, "-o", str(tmp_path / "t")
    )
    assert code == 0
    manifest = load_manifest(tmp_path / "t.yaml")
    entries = [dict(e.values) for e in manifest.entries]
    metric = Metric("met (ms)", False)
    scores = {}
    for label in ("a", "b"):
        inputs, invalid = load_inputs([str(HELDOUT / f"run_{label}.csv")])
        assert not invalid
        combined = combine(inputs, ())
        assert combined.shape_cols == ("M", "N", "K")
        measured = measure(
            combined.frame,
            shape_cols=combined.shape_cols,
            param_cols=combined.param_cols,
            metric=metric,
        )
        got = score_table(manifest, measured, metric).score
        want = reference(
            raw_csv(HELDOUT / f"run_{label}.csv"),
            entries,
            False,
            ["M", "N", "K"],
            ["BM", "BN", "STAGES", "SWAP_AB"],
            "met (ms)",
        )
        seen = {
            tuple(k): (status, ratio)
            for *k, status, ratio in got.shapes[
                ["M", "N", "K", "status", "ratio"]
            ].itertuples(index=False)
        }
        assert seen.keys() == want.keys()
        for key, (status, ratio) in want.items():
            assert seen[key][0] == status
            if status == SCORED:
                assert seen[key][1] == pytest.approx(ratio, rel=1e-12)
        ratios = [r for s, r in want.values() if s == SCORED]
        assert got.geomean == pytest.approx(statistics.geometric_mean(ratios))
        scores[label] = got
    # built from run A: near perfect there; on run B, noise and a crashed point show
    assert scores["a"].geomean <= 1.001
    assert scores["b"].geomean > scores["a"].geomean


def test_the_heldout_pickles_are_what_kbench_writes_beside_the_csvs() -> None:
    for label in ("a", "b"):
        # our own fixture, trusted: pandas may unpickle it to check the recipe
        payload = pd.read_pickle(HELDOUT / f"run_{label}.pkl")
        assert list(payload) == ["build_df", "merged_df", "name", "file"]
        assert isinstance(payload["file"], Path)
        merged = payload["merged_df"]
        assert list(merged.columns[:2]) == ["mesh_idx", "name"]
        assert list(merged.columns[-2:]) == ["spec", "kbench_filter"]
        assert merged["name"].dtype == "string" and merged["spec"].dtype == "string"
        written = pd.read_csv(HELDOUT / f"run_{label}.csv")
        pd.testing.assert_frame_equal(
            merged.drop(columns=["mesh_idx"]).astype(object),
            written.astype(object),
            check_dtype=False,
        )
