"""kprofile.core.sweep + kprofile.core.partition on rows: hand-made tables, errors, and a
property test that checks every answer point by point from the raw rows (exact
fractions, no kprofile code) and its size against brute force."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from kprofile.core.metric import Metric
from kprofile.core.partition import partition
from kprofile.core.sweep import Sweep, build_sweep
from kprofile.errors import KprofileError

MET = "met (ms)"
LOWER = Metric(MET, higher_is_better=False)


def sweep(rows: list[dict[str, Any]], tol: float, **kw: Any) -> Sweep:
    options: dict[str, Any] = {"column": "M", "group_cols": ["N"], "param_cols": ["BM"]}
    options.update({"metric": LOWER, "tol": tol, **kw})
    return build_sweep(pd.DataFrame(rows), **options)


def chosen(result: Sweep) -> list[list[tuple[Any, Any, Any]]]:
    """Per group: (first point, last point, BM) of each range."""
    out = []
    for group in result.groups:
        part = partition(group.ratio)
        bms = result.configs.loc[group.configs[part.configs], "BM"].tolist()
        out.append(
            [
                (group.points[a].item(), group.points[b - 1].item(), bm)
                for a, b, bm in zip(part.starts, part.stops, bms)
            ]
        )
    return out


def grid(times: dict[int, dict[int, float]], n: int = 1) -> list[dict[str, Any]]:
    """Rows from {M: {BM: time}}."""
    return [
        {"N": n, "M": m, "BM": bm, MET: t}
        for m, row in times.items()
        for bm, t in row.items()
    ]


def test_one_config_best_everywhere_is_one_range() -> None:
    rows = grid({m: {64: 1.0, 128: 1.5, 256: 2.0} for m in (16, 32, 48, 64)})
    assert chosen(sweep(rows, 0.03)) == [[(16, 64, 64)]]


def test_alternating_best_with_tol_0_is_one_range_per_point() -> None:
    rows = grid(
        {m: {64: 1.0 + (m // 16) % 2, 128: 2.0 - (m // 16) % 2} for m in (16, 32, 48)}
    )
    assert chosen(sweep(rows, 0.0)) == [[(16, 16, 128), (32, 32, 64), (48, 48, 128)]]


def test_a_config_not_measured_at_a_point_does_not_serve_it() -> None:
    # BM=64 is best at every M it ran at, but it never ran at M=32 (and failed at 48);
    # BM=128 is within 3% everywhere, so it serves the whole sweep alone
    times = {m: {64: 1.0, 128: 1.02} for m in (16, 32, 48, 64)}
    del times[32][64]
    times[48][64] = 0.0
    result = sweep(grid(times), 0.03)
    assert chosen(result) == [[(16, 64, 128)]]
    assert np.isinf(result.groups[0].ratio[1:3, 0]).all()


def test_a_config_measured_twice_keeps_its_best_run() -> None:
    rows = grid({m: {64: 1.0, 128: 1.1} for m in (16, 32)})
    rows += [
        {"N": 1, "M": 32, "BM": 128, MET: 1.0},
        {"N": 1, "M": 32, "BM": 64, MET: 9.0},
    ]
    result = sweep(rows, 0.2)
    assert result.groups[0].ratio.tolist() == [[1.0, 1.1], [1.0, 1.0]]


def test_groups_points_and_what_is_left_out() -> None:
    rows = grid({16: {64: 1.0}, 32: {64: 0.0, 128: math.nan}, 48: {64: 1.0}}, n=1)
    rows += grid({16: {64: 2.0}, 64: {64: 1.0}}, n=2)
    rows += [
        {"N": 2, "M": None, "BM": 64, MET: 1.0},
        {"N": 2, "M": math.nan, "BM": 64, MET: 1.0},
    ]
    result = sweep(rows, 0.03)
    assert [g.values for g in result.groups] == [{"N": 1}, {"N": 2}]
    assert [g.points.tolist() for g in result.groups] == [[16, 48], [16, 64]]
    assert result.integral and result.groups[0].points.dtype == np.int64
    assert result.skipped.to_dict("records") == [
        {"N": 1, "M": 32, "reason": "no successful run"},
        {"N": 2, "M": None, "reason": "2 rows with no M value"},
    ]


def test_float_points() -> None:
    rows = grid({m: {64: 1.0} for m in (0.5, 1.0)})
    result = sweep(rows, 0.03)
    assert not result.integral and result.groups[0].points.tolist() == [0.5, 1.0]
    whole = sweep(grid({m: {64: 1.0} for m in (16.0, 32)}), 0.03)
    assert whole.integral and whole.groups[0].points.tolist() == [16, 32]


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (
            ["a", "b"],
            "M must hold numbers to make ranges of; it holds string values (e.g. a)",
        ),
        (
            [True, False],
            "M must hold numbers to make ranges of; it holds boolean values (e.g. True)",
        ),
        (
            [16, "x"],
            "M must hold numbers to make ranges of; it holds mixed-integer values (e.g. 16)",
        ),
        ([None, None], "M has no value in any row"),
        (
            [16, 16],
            "M is constant in every group (N): there is nothing to split into ranges",
        ),
    ],
)
def test_unusable_range_columns(values: list[Any], message: str) -> None:
    rows = [{"N": n, "M": v, "BM": 64, MET: 1.0} for n in (1, 2) for v in values]
    with pytest.raises(KprofileError) as info:
        sweep(rows, 0.03)
    assert info.value.message == message


# ---------------------------------------------------------------- property test

TOLS = (0.0, 0.025, 0.045, 0.065)  # no integer ratio below 110/100 hits 1 + tol exactly
TIMES = st.sampled_from([0.0, math.nan, *range(100, 110)])


@st.composite
def sweeps(draw: st.DrawFn) -> tuple[list[dict[str, Any]], float, bool]:
    rows = []
    for n in range(draw(st.integers(1, 2))):
        points = draw(st.lists(st.integers(1, 9), min_size=1, max_size=6, unique=True))
        for m, bm in itertools.product(points, range(draw(st.integers(1, 3)))):
            for _ in range(draw(st.sampled_from([0, 1, 1, 1, 2]))):
                rows.append({"N": n, "M": m * 16, "BM": bm, MET: float(draw(TIMES))})
    rows.append({"N": 0, "M": 1, "BM": 0, MET: 100.0})  # something ran; M varies
    rows.append({"N": 0, "M": 2, "BM": 0, MET: 100.0})
    return rows, draw(st.sampled_from(TOLS)), draw(st.booleans())


def oracle(rows: list[dict[str, Any]], tol: float, higher: bool) -> dict[Any, Any]:
    """{(N, M): {BM: serves}} from the rows alone, with exact fractions."""
    runs: dict[tuple[Any, Any], dict[Any, Fraction]] = {}
    for row in rows:
        value = row[MET]
        if not (value > 0 and math.isfinite(value)):
            continue
        runs.setdefault((row["N"], row["M"]), {})
        old = runs[(row["N"], row["M"])].get(row["BM"])
        new = Fraction(value)
        if old is None or (new > old if higher else new < old):
            runs[(row["N"], row["M"])][row["BM"]] = new
    limit = 1 + Fraction(str(tol))
    serves = {}
    for point, by_config in runs.items():
        best = (max if higher else min)(by_config.values())
        serves[point] = {
            bm: (v * limit >= best) if higher else (v <= best * limit)
            for bm, v in by_config.items()
        }
    return serves


def fewest_by_brute_force(points: list[Any], serves: dict[Any, dict[Any, bool]]) -> int:
    for count in range(1, len(points) + 1):
        for cuts in itertools.combinations(range(1, len(points)), count - 1):
            bounds = [0, *cuts, len(points)]
            if all(
                any(
                    all(serves[p].get(c, False) for p in points[a:b])
                    for c in serves[points[a]]
                )
                for a, b in zip(bounds, bounds[1:])
            ):
                return count
    raise AssertionError("no partition")


@settings(max_examples=examples(150), deadline=None)
@given(sweeps())
def test_ranges_checked_point_by_point_and_minimal(
    case: tuple[list[dict[str, Any]], float, bool],
) -> None:
    rows, tol, higher = case
    metric = Metric(MET, higher_is_better=higher)
    try:
        result = sweep(rows, tol, metric=metric)
    except KprofileError as exc:
        assert exc.message.startswith("M is constant")
        return
    truth = oracle(rows, tol, higher)
    covered = []
    for group in result.groups:
        n = group.values["N"]
        points = sorted(m for (g, m) in truth if g == n)
        assert group.points.tolist() == points
        part = partition(group.ratio)
        bms = result.configs.loc[group.configs[part.configs], "BM"].tolist()
        for start, stop, bm in zip(part.starts, part.stops, bms):
            for m in points[start:stop]:
                assert truth[(n, m)].get(bm) is True  # measured there, within tol
                covered.append((n, m))
        assert len(part) == fewest_by_brute_force(
            points, {m: truth[(n, m)] for m in points}
        )
    assert sorted(covered) == sorted(truth)  # every point in exactly one range
