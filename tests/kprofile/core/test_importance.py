"""kprofile.core.importance: reachable ratios per parameter value, the ranking, and the charts."""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from kprofile.core.importance import (
    TABLE_COLUMNS,
    ImportanceResult,
    importance,
)
from kprofile.core.metric import Metric
from kprofile.core.values import value_label
from kprofile.errors import KprofileError
from kprofile.modes.pictures_judged import importance_pictures
from kprofile.sinks.derived import Written
from kprofile.sinks.pictures import drawn, write_pictures

pytestmark = pytest.mark.slow  # matplotlib draws the importance charts

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def grid(
    values: dict[tuple[int, int, bool], float], shapes: tuple[int, ...] = (1, 2)
) -> pd.DataFrame:
    """Rows (M, BM, SWAP) -> met; ``values`` keyed by (M, BM, SWAP); missing keys are not measured."""
    rows = [
        {"M": m, "BM": bm, "SWAP": swap, "met": v}
        for (m, bm, swap), v in values.items()
        if m in shapes
    ]
    return pd.DataFrame(rows)


def run(
    df: pd.DataFrame, params: tuple[str, ...] = ("BM", "SWAP"), *, lower: bool = True
) -> ImportanceResult:
    return importance(
        df,
        shape_cols=["M"],
        param_cols=list(params),
        metric=Metric("met", higher_is_better=not lower),
    )


def records(result: ImportanceResult) -> list[tuple[object, ...]]:
    return [
        (p.param, v.value, round(v.worst, 6), round(v.geomean, 6), v.shapes)
        for p in result.params
        for v in p.values
    ]


# Shape 1: best is (64, False) = 1.0; shape 2: best is (128, True) = 2.0.
BASE = {
    (1, 64, False): 1.0,
    (1, 64, True): 1.5,
    (1, 128, False): 1.2,
    (1, 128, True): 1.1,
    (2, 64, False): 3.0,
    (2, 64, True): 2.5,
    (2, 128, False): 4.0,
    (2, 128, True): 2.0,
}


def test_reachable_ratios_known_by_construction() -> None:
    result = run(grid(BASE))
    # BM=64: shape 1 -> 1.0, shape 2 -> 2.5/2 = 1.25; BM=128: shape 1 -> 1.1, shape 2 -> 1.0
    # SWAP=False: 1.0 and 3/2 = 1.5; SWAP=True: 1.1 and 1.0
    assert records(result) == [
        ("SWAP", False, 1.5, round(math.sqrt(1.5), 6), 2),
        ("SWAP", True, 1.1, round(math.sqrt(1.1), 6), 2),
        ("BM", 64, 1.25, round(math.sqrt(1.25), 6), 2),
        ("BM", 128, 1.1, round(math.sqrt(1.1), 6), 2),
    ]
    assert [(p.param, p.rank, p.cost, p.best_value) for p in result.params] == [
        ("SWAP", 1, 1.5, True),
        ("BM", 2, 1.25, 128),
    ]
    assert result.shapes_total == 2
    assert result.ranked_by == "worst"


def test_tidy_table_matches_records() -> None:
    result = run(grid(BASE))
    table = result.table
    assert tuple(table.columns) == TABLE_COLUMNS
    assert table["param"].tolist() == ["SWAP", "SWAP", "BM", "BM"]
    assert table["rank"].tolist() == [1, 1, 2, 2]
    assert table["value"].tolist() == [False, True, 64, 128]
    assert table["cost"].tolist() == [1.5, 1.5, 1.25, 1.25]
    assert table["shapes"].tolist() == [2, 2, 2, 2]
    assert table["shapes_total"].tolist() == [2, 2, 2, 2]
    assert table["worst"].tolist() == pytest.approx([1.5, 1.1, 1.25, 1.1])


def test_higher_is_better() -> None:
    df = grid(BASE).assign(met=lambda d: 1.0 / d["met"])
    assert records(run(df, lower=False)) == records(run(grid(BASE)))


def test_value_not_measured_on_every_shape_is_counted_not_invented() -> None:
    values = dict(BASE)
    del values[(2, 128, True)], values[(2, 128, False)]  # BM=128 never ran on shape 2
    result = run(grid(values))
    bm = next(p for p in result.params if p.param == "BM")
    # shape 2's best is now (64, True) = 2.5, so BM=64 reaches 1.0 on both shapes
    assert [(v.value, v.worst, v.shapes) for v in bm.values] == [
        (64, 1.0, 2),
        (128, 1.1, 1),
    ]
    assert bm.cost == 1.1
    assert result.table.loc[result.table["param"] == "BM", "shapes"].tolist() == [2, 1]


def test_value_with_only_failed_runs_has_no_number() -> None:
    df = grid(BASE)
    df = pd.concat(
        [df, pd.DataFrame([{"M": 1, "BM": 256, "SWAP": False, "met": 0.0}])],
        ignore_index=True,
    )
    bm = next(p for p in run(df).params if p.param == "BM")
    last = bm.values[-1]
    assert (last.value, last.shapes) == (256, 0)
    assert math.isnan(last.worst) and math.isnan(last.geomean)
    assert bm.cost == 1.25  # the unmeasured value does not decide the cost


def test_a_shape_where_nothing_ran_rules_out_no_value() -> None:
    """Shape 3 ran nothing: BM=128 was the one value tried there. It fails at no
    shape where something ran, so it stays the best value; BM=64 fails at shape 2,
    where BM=128 ran, and so cannot be."""
    values = {
        (1, 64, False): 1.2,
        (1, 128, False): 1.0,
        (2, 64, False): 0.0,  # failed, where BM=128 ran
        (2, 128, False): 2.0,
        (3, 128, False): 0.0,  # nothing ran at shape 3
    }
    result = run(grid(values, shapes=(1, 2, 3)))
    bm = next(p for p in result.params if p.param == "BM")
    assert [(v.value, v.fails) for v in bm.values] == [(64, 1), (128, 0)]
    assert bm.best_value == 128


def test_nan_is_a_value_of_its_own_and_sorts_last() -> None:
    df = pd.DataFrame(
        {
            "M": [1, 1, 1, 2, 2, 2],
            "BM": [np.nan, 64, 128] * 2,
            "SWAP": [False] * 6,
            "met": [1.0, 1.2, 1.3, 2.0, 1.0, 1.0],
        }
    )
    bm = next(p for p in run(df).params if p.param == "BM")
    assert [v.value for v in bm.values] == [64.0, 128.0, None]
    assert [v.worst for v in bm.values] == [1.2, 1.3, 2.0]
    assert value_label(bm.values[-1].value) == "NA"


def test_duplicates_keep_best_and_failed_runs_are_ignored() -> None:
    df = grid(BASE)
    extra = pd.DataFrame(
        [
            {"M": 1, "BM": 128, "SWAP": True, "met": -1.0},  # failed (negative)
            {"M": 1, "BM": 128, "SWAP": True, "met": 9.0},  # worse duplicate
            {"M": 1, "BM": 64, "SWAP": False, "met": math.nan},  # failed
        ]
    )
    assert records(run(pd.concat([extra, df], ignore_index=True))) == records(run(df))


def test_ranking_ties_break_by_geomean_then_input_order() -> None:
    df = pd.DataFrame(
        {
            "M": [1, 1, 2, 2],
            "A": [
                0,
                1,
                0,
                1,
            ],  # A=0: 1.0 and 1.5; A=1: 1.5 and 1.0 -> cost 1.5, geomean sqrt(1.5)
            "B": [
                0,
                1,
                1,
                0,
            ],  # B=0: 1.0 and 1.0; B=1: 1.5 and 1.5 -> cost 1.5, geomean 1.5
            "C": [7, 7, 7, 7],  # one value: reaches each shape's best, cost 1.0
            "met": [1.0, 1.5, 1.5, 1.0],
        }
    )
    result = importance(
        df,
        shape_cols=["M"],
        param_cols=["C", "A", "B"],
        metric=Metric("met", higher_is_better=False),
    )
    # B=0 -> (M=1: 1.0, M=2: 1.0); B=1 -> (1.5, 1.5): worst 1.5, geomean 1.5 > A's sqrt(1.5)
    assert [(p.param, p.cost) for p in result.params] == [
        ("B", 1.5),
        ("A", 1.5),
        ("C", 1.0),
    ]


def test_no_shape_columns_means_one_shape() -> None:
    df = grid(BASE, shapes=(1,))
    result = importance(
        df,
        shape_cols=[],
        param_cols=["BM"],
        metric=Metric("met", higher_is_better=False),
    )
    assert result.shapes_total == 1
    assert [(v.value, v.worst) for v in result.params[0].values] == [
        (64, 1.0),
        (128, 1.1),
    ]


ERRORS = [
    pytest.param(
        pd.DataFrame(columns=["M", "BM", "SWAP", "met"]),
        {},
        "no results: the table is empty",
        id="empty",
    ),
    pytest.param(
        grid(BASE),
        {"metric": Metric("gflops", higher_is_better=True)},
        "no column 'gflops'; columns: M, BM, SWAP, met",
        id="metric",
    ),
    pytest.param(
        grid(BASE),
        {"shape_cols": ["K"]},
        "no column 'K' to group by (-p); columns: BM, SWAP, M, met",
        id="shape",
    ),
    pytest.param(
        grid(BASE).assign(met=-1.0),
        {},
        "no successful run: every 'met' value is 0, negative or missing",
        id="all-failed",
    ),
]


@pytest.mark.parametrize(("df", "overrides", "message"), ERRORS)
def test_errors(df: pd.DataFrame, overrides: dict[str, object], message: str) -> None:
    kwargs: dict[str, object] = {
        "shape_cols": ["M"],
        "param_cols": ["BM", "SWAP"],
        "metric": Metric("met", higher_is_better=False),
        **overrides,
    }
    with pytest.raises(KprofileError) as info:
        importance(df, **kwargs)  # type: ignore[arg-type]
    assert info.value.message == message


# ------------------------------------------------------------------ property: against a plain-Python reference


@st.composite
def random_grids(draw: st.DrawFn) -> pd.DataFrame:
    rows = []
    for m in range(draw(st.integers(1, 4))):
        for a in (0, 1, 2):
            for b in ("x", "y"):
                v = draw(st.sampled_from([None, 0.0, 1.0, 1.2, 1.7, 3.0]))
                if v is not None:
                    rows.append({"M": m, "A": a, "B": b, "met": v})
    rows.append({"M": 0, "A": 0, "B": "x", "met": 2.0})
    return pd.DataFrame(rows)


def reference(df: pd.DataFrame, param: str) -> dict[object, tuple[float, float, int]]:
    best: dict[tuple[int, object, object], float] = {}
    for m, a, b, v in df[["M", "A", "B", "met"]].itertuples(index=False):
        if v > 0:
            best[(m, a, b)] = min(v, best.get((m, a, b), math.inf))
    shape_best = {m: min(v for k, v in best.items() if k[0] == m) for m, _, _ in best}
    out = {}
    for value in dict.fromkeys(df[param]):
        reach: dict[int, float] = {}
        for (m, a, b), v in best.items():
            if {"A": a, "B": b}[param] == value:
                reach[m] = min(v / shape_best[m], reach.get(m, math.inf))
        if reach:
            out[value] = (
                max(reach.values()),
                math.prod(reach.values()) ** (1 / len(reach)),
                len(reach),
            )
        else:
            out[value] = (math.nan, math.nan, 0)
    return out


@settings(max_examples=examples(150), deadline=None)
@given(random_grids())
def test_matches_plain_python_reference(df: pd.DataFrame) -> None:
    result = importance(
        df,
        shape_cols=["M"],
        param_cols=["A", "B"],
        metric=Metric("met", higher_is_better=False),
    )
    for p in result.params:
        ref = reference(df, p.param)
        got = {v.value: (v.worst, v.geomean, v.shapes) for v in p.values}
        assert got.keys() == ref.keys()
        for key, (worst, geo, n) in ref.items():
            assert got[key][2] == n
            assert got[key][:2] == pytest.approx((worst, geo), nan_ok=True)
        assert p.cost == max(w for w, _, n in ref.values() if n)
    costs = [p.cost for p in result.params]
    assert costs == sorted(costs, reverse=True)


# ------------------------------------------------------------------ charts


def plot_importance(result: ImportanceResult, out: Path) -> Written:
    """``--importance --plot OUT``'s files, as the command writes them."""
    pictures = drawn(importance_pictures(result))
    return write_pictures(pictures, plot=str(out), report=None, sections=(), header={})


def test_plot_writes_readable_pngs_with_deterministic_names(tmp_path: Path) -> None:
    import matplotlib.image as matplotlib_image

    out = tmp_path / "charts" / "nested"
    paths = [Path(p) for p in plot_importance(run(grid(BASE)), out).paths]
    assert [p.name for p in paths] == [
        "importance.png",
        "importance-SWAP.png",
        "importance-BM.png",
    ]
    for path in paths:
        assert path.parent == out
        assert path.read_bytes()[:8] == PNG_MAGIC
        pixels = matplotlib_image.imread(path)
        assert pixels.ndim == 3 and pixels.shape[0] > 100 and pixels.shape[1] > 100
    again = [Path(p) for p in plot_importance(run(grid(BASE)), out).paths]
    assert again == paths
    assert sorted(out.iterdir()) == sorted(paths)


def test_plot_file_names_are_safe_and_unique(tmp_path: Path) -> None:
    df = pd.DataFrame(
        {
            "M": [1, 1, 2, 2],
            "A B": [0, 1, 0, 1],
            "A/B": [1, 0, 0, 1],
            "../x": [0, 0, 1, 1],
            "met": [1.0, 1.2, 1.4, 1.0],
        }
    )
    result = importance(
        df,
        shape_cols=["M"],
        param_cols=["A B", "A/B", "../x"],
        metric=Metric("met", higher_is_better=False),
    )
    names = sorted(Path(p).name for p in plot_importance(result, tmp_path).paths)

    def hashed(label: str) -> str:  # the documented rule, computed here
        return hashlib.sha256(label.encode()).hexdigest()[:10]

    assert names == sorted(
        [
            f"importance-A_B-{hashed('importance-A B')}.png",
            f"importance-A_B-{hashed('importance-A/B')}.png",
            "importance-_x.png",
            "importance.png",
        ]
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == names
