"""kprofile.core.portfolio (--budget): the best table of at most K configs, against
brute force over every subset, for both objectives; the bound and the pruning that
make it fast never cut an optimum."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from kprofile.core.measure import measure
from kprofile.core.metric import Metric
from kprofile.core.portfolio import budget, cost_matrix
from kprofile.core.portfolio_milp import PROOF_TOLERANCE
from kprofile.core.portfolio_search import lagrangian, prune
from kprofile.core.portfolio_solver import solve_budget
from kprofile.core.score import NO_RUN, SCORED

pytestmark = pytest.mark.slow  # HiGHS solves

RATIOS = [1.0, 1.01, 1.03, 1.1, 1.5, 2.0, math.inf]
#: Far more than these small tables need: a search that stalls fails, never hangs.
LIMIT = 20.0


def rows_of(costs: np.ndarray, subset: Sequence[int]) -> np.ndarray:
    return np.asarray(costs[:, list(subset)].min(axis=1))


def complete_subsets(costs: np.ndarray, size: int) -> list[tuple[int, ...]]:
    """Every subset of at most ``size`` candidates that serves every row."""
    k = costs.shape[1]
    return [
        subset
        for n in range(1, min(size, k) + 1)
        for subset in itertools.combinations(range(k), n)
        if np.isfinite(rows_of(costs, subset)).all()
    ]


def brute_sum(costs: np.ndarray, size: int) -> float:
    return min(float(rows_of(costs, s).sum()) for s in complete_subsets(costs, size))


def brute_worst(costs: np.ndarray, size: int) -> tuple[float, float]:
    """The lowest worst cost, then the lowest sum among tables with it."""
    keys = [
        (float(rows_of(costs, s).max()), float(rows_of(costs, s).sum()))
        for s in complete_subsets(costs, size)
    ]
    worst = min(w for w, _ in keys)
    return worst, min(t for w, t in keys if w == worst)


def fewest_complete(costs: np.ndarray) -> int:
    k = costs.shape[1]
    for n in range(1, k + 1):
        if any(
            np.isfinite(rows_of(costs, s)).all()
            for s in itertools.combinations(range(k), n)
        ):
            return n
    raise AssertionError("every row has a candidate")


@st.composite
def matrices(draw: st.DrawFn) -> tuple[np.ndarray, int]:
    n, k = draw(st.integers(1, 9)), draw(st.integers(1, 9))
    ratios = np.array(
        [[draw(st.sampled_from(RATIOS)) for _ in range(k)] for _ in range(n)]
    )
    for i in range(n):  # every row ran somewhere
        if not np.isfinite(ratios[i]).any():
            ratios[i, draw(st.integers(0, k - 1))] = draw(st.sampled_from(RATIOS[:-1]))
    logs = np.log(ratios)
    costs = logs - logs.min(axis=1, keepdims=True)  # 0 at each row's best
    return costs, draw(st.integers(1, 4))


def check_table(costs: np.ndarray, size: int, picked: Sequence[int]) -> np.ndarray:
    assert 1 <= len(picked) <= size
    assert list(picked) == sorted(set(picked))
    row = rows_of(costs, picked)
    assert np.isfinite(row).all()
    # no candidate of the table is idle: each serves some row first
    first = {picked[j] for j in np.argmin(costs[:, list(picked)], axis=1)}
    assert first == set(picked)
    return row


@settings(max_examples=examples(600))
@given(matrices())
def test_the_geomean_table_is_the_brute_force_optimum(
    case: tuple[np.ndarray, int],
) -> None:
    costs, size = case
    got = solve_budget(costs, size, "geomean", time_limit=LIMIT)
    if not complete_subsets(costs, size):
        assert (got.picked, got.feasible, got.proven) == ((), False, False)
        assert got.needed == fewest_complete(costs)
        return
    want = brute_sum(costs, size)
    row = check_table(costs, size, got.picked)
    assert got.objective == pytest.approx(float(row.sum()), abs=1e-12)
    assert want - 1e-12 <= got.objective <= want + PROOF_TOLERANCE
    assert got.proven and got.tie_proven and got.feasible
    assert got.bound <= want + 1e-9


@settings(max_examples=examples(600))
@given(matrices())
def test_the_worst_table_is_the_brute_force_optimum(
    case: tuple[np.ndarray, int],
) -> None:
    costs, size = case
    got = solve_budget(costs, size, "worst", time_limit=LIMIT)
    if not complete_subsets(costs, size):
        assert (got.picked, got.feasible) == ((), False)
        assert got.needed == fewest_complete(costs)
        return
    worst, total = brute_worst(costs, size)
    row = check_table(costs, size, got.picked)
    assert got.objective == float(row.max()) == worst  # a matrix value: exact
    assert got.bound == worst
    assert total - 1e-12 <= float(row.sum()) <= total + PROOF_TOLERANCE
    assert got.proven and got.tie_proven


@settings(max_examples=examples(600))
@given(matrices())
def test_the_lagrangian_bound_and_pruning_keep_every_optimum(
    case: tuple[np.ndarray, int],
) -> None:
    costs, size = case
    subsets = complete_subsets(costs, size)
    if not subsets:
        return
    sums = {s: float(rows_of(costs, s).sum()) for s in subsets}
    optimum = min(sums.values())
    known = max(sums.values())  # any complete table's sum is a valid upper bound
    relaxed = lagrangian(costs, size, known)
    assert relaxed.bound <= optimum + 1e-9
    keep = prune(costs, relaxed, known)
    for subset, total in sums.items():  # every table as good as the known one
        if total <= known:
            for i, j in enumerate(
                np.array(subset)[np.argmin(costs[:, subset], axis=1)]
            ):
                assert keep[i, j], (subset, i, j)


def test_a_time_limit_keeps_a_complete_table_and_a_true_bound() -> None:
    rng = np.random.default_rng(7)
    ratios = 1 + rng.gamma(1.0, 0.05, size=(40, 60))
    ratios[rng.random(ratios.shape) < 0.1] = np.inf
    logs = np.log(ratios)
    costs = logs - logs.min(axis=1, keepdims=True)
    got = solve_budget(costs, 3, "geomean", time_limit=0.0)
    row = check_table(costs, 3, got.picked)
    assert got.objective == pytest.approx(float(row.sum()))
    assert got.bound <= got.objective
    exact = solve_budget(costs, 3, "geomean", time_limit=None)
    assert exact.proven
    assert (
        got.bound
        <= exact.objective + PROOF_TOLERANCE
        <= got.objective + PROOF_TOLERANCE
    )
    assert got.proven == (got.objective - got.bound <= PROOF_TOLERANCE)
    worst = solve_budget(costs, 3, "worst", time_limit=0.0)
    check_table(costs, 3, worst.picked)
    assert worst.bound <= worst.objective
    assert not worst.proven or worst.bound == worst.objective


def test_size_must_be_positive_and_rows_need_a_candidate() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        solve_budget(np.zeros((1, 1)), 0, "geomean", time_limit=None)
    with pytest.raises(ValueError, match="every row"):
        solve_budget(np.array([[np.inf]]), 1, "geomean", time_limit=None)


# ----------------------------------------------------------------- on measured results


def frame() -> pd.DataFrame:
    """Three shapes x three configs; BM=256 never ran at M=3; nothing ran at M=4."""
    rows = [
        (1, 64, 1.0),
        (1, 128, 1.2),
        (1, 256, 1.05),
        (2, 64, 1.3),
        (2, 128, 1.0),
        (2, 256, 1.1),
        (3, 64, 1.5),
        (3, 128, 1.1),
        (3, 256, 0.0),
        (3, 256, 1.0),  # a second run: measure keeps the best, 1.0
        (4, 64, 0.0),
    ]
    return pd.DataFrame(rows, columns=["M", "BM", "met"])


def test_budget_on_measured_results_equals_brute_force() -> None:
    metric = Metric("met", False)
    measured = measure(frame(), shape_cols=["M"], param_cols=["BM"], metric=metric)
    shapes, configs, costs = cost_matrix(measured)
    assert shapes.tolist() == [0, 1, 2] and configs.tolist() == [0, 1, 2]
    for size in (1, 2, 3):
        for objective in ("geomean", "worst"):
            got = budget(
                measured, metric, size=size, objective=objective, time_limit=None
            )
            assert got.status == "optimal"
            ratios = got.score.shapes.loc[got.score.shapes["status"] == SCORED, "ratio"]
            subsets = complete_subsets(costs, size)
            if objective == "geomean":
                best = min(float(rows_of(costs, s).sum()) for s in subsets)
                assert got.value == pytest.approx(math.exp(best / 3))
                assert got.value == pytest.approx(float(np.exp(np.log(ratios).mean())))
            else:
                assert got.value == pytest.approx(math.exp(brute_worst(costs, size)[0]))
            assert got.gap == pytest.approx(0.0, abs=1e-6)
            assert got.score.shapes["status"].tolist() == [SCORED] * 3 + [NO_RUN]
            assert set(got.score.shapes["config"].iloc[:3]) == set(got.configs)


def test_budget_one_config_at_a_time() -> None:
    # K=1: BM=256 ran 1.05, 1.1, 1.0 (geomean 1.049) but BM=128 1.2, 1.0, 1.1
    metric = Metric("met", False)
    measured = measure(frame(), shape_cols=["M"], param_cols=["BM"], metric=metric)
    got = budget(measured, metric, size=1, time_limit=None)
    assert got.configs == (2,)
    assert got.score.shapes["ratio"].iloc[:3].tolist() == pytest.approx(
        [1.05, 1.1, 1.0]
    )
    worst = budget(measured, metric, size=1, objective="worst", time_limit=None)
    assert worst.configs == (2,) and worst.value == pytest.approx(1.1)


def test_budget_is_infeasible_when_k_configs_cannot_run_every_shape() -> None:
    df = pd.DataFrame({"M": [1, 2], "BM": [64, 128], "met": [1.0, 1.0]})
    metric = Metric("met", False)
    measured = measure(df, shape_cols=["M"], param_cols=["BM"], metric=metric)
    got = budget(measured, metric, size=1, time_limit=None)
    assert (got.status, got.configs, got.needed) == ("infeasible", (), 2)
    assert math.isnan(got.value) and math.isnan(got.gap)
    assert got.score.shapes["status"].tolist() == ["not measured"] * 2


def test_an_unknown_objective_is_refused() -> None:
    metric = Metric("met", False)
    measured = measure(frame(), shape_cols=["M"], param_cols=["BM"], metric=metric)
    with pytest.raises(ValueError, match="geomean, worst"):
        budget(measured, metric, size=1, objective="mean", time_limit=None)  # type: ignore[arg-type]
