"""kprofile.core.cover_solver: problems whose answer is known, and brute force on small ones.

Notation: a problem is a list of candidate columns; a column is a set of rows (ratio 1.0
there) or a dict row -> ratio. Losses use ratios 1, 1.25, 1.5, 2 so sums are exact.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import examples

from kprofile.core.cover_search import disjoint_bound, greedy, improve
from kprofile.core.cover_solver import (
    CoverProblem,
    CoverSolution,
    solve_cover,
    undominated,
)

pytestmark = pytest.mark.slow  # HiGHS solves against brute force

INF = math.inf

Column = set[int] | dict[int, float]


def problem(columns: Sequence[Column], n_rows: int) -> CoverProblem:
    ratios = np.full((n_rows, len(columns)), INF)
    for j, col in enumerate(columns):
        for i, r in col.items() if isinstance(col, dict) else ((i, 1.0) for i in col):
            ratios[i, j] = r
    return CoverProblem(ratios)


def solve(p: CoverProblem, **limits: float | None) -> CoverSolution:
    limits.setdefault("time_limit", None)
    return solve_cover(p, **limits)  # type: ignore[arg-type]


def is_cover(p: CoverProblem, picked: Sequence[int]) -> bool:
    """Every row has a finite ratio on some picked candidate (read from ``ratios``)."""
    return all(
        any(math.isfinite(p.ratios[i, j]) for j in picked)
        for i in range(p.ratios.shape[0])
    )


def loss_units(p: CoverProblem, picked: Sequence[int]) -> int:
    """The documented loss: per row, its lowest ratio among ``picked`` minus 1, rounded
    to whole millionths, summed (written out here, independent of the module)."""
    return sum(
        round((min(float(p.ratios[i, j]) for j in picked) - 1.0) * 1_000_000)
        for i in range(p.ratios.shape[0])
    )


def exact(picked: Sequence[int]) -> CoverSolution:
    return CoverSolution(tuple(picked), True, len(picked), True)


# ------------------------------------------------------------------ known answers

TRAP = [{0, 3}, {0}, {1, 4}, {3, 4}, {0, 2, 4}, {1, 2, 4}]

# (columns, rows, greedy picks, exact answer)
KNOWN = [
    pytest.param([{0, 1, 2}, {0}, {1}], 3, [0], [0], id="one-candidate-covers-all"),
    pytest.param([{0}], 1, [0], [0], id="single-row-single-candidate"),
    # Greedy takes 4 (3 rows), then 0, then 2; the only 2-set cover is 0 + 5.
    pytest.param(TRAP, 5, [0, 2, 4], [0, 5], id="greedy-3-optimum-2"),
    # All gain 2, greedy takes 0 by index, then 1 and 3; 2+3 and 2+5 cover, 3 == 5.
    pytest.param(
        [{1, 2}, {3}, {2, 3}, {0, 1}, {0, 2}, {0, 1}],
        4,
        [0, 1, 3],
        [2, 3],
        id="greedy-3-optimum-2-index-ties",
    ),
    # Row 0 has a single candidate (1), a poor one otherwise; both must take it.
    pytest.param(
        [{1, 2, 3}, {0, 1}, {3}], 4, [0, 1], [0, 1], id="row-only-one-candidate-covers"
    ),
    pytest.param([{2}, {0, 1, 2}, {0}, {1}], 3, [1], [1], id="late-candidate-wins"),
    # Greedy takes 0, then 1, then 2 (for row 4), which makes 0 redundant.
    pytest.param(
        [{0, 1, 2}, {1, 2, 3}, {0, 4}], 5, [0, 1, 2], [1, 2], id="greedy-redundant"
    ),
]


@pytest.mark.parametrize(("columns", "n_rows", "greedy_picks", "answer"), KNOWN)
def test_known_answers(
    columns: list[Column], n_rows: int, greedy_picks: list[int], answer: list[int]
) -> None:
    p = problem(columns, n_rows)
    assert greedy(p.loss_units()) == greedy_picks
    assert solve(p) == exact(answer)


# ------------------------------------------------------------------ ties

# (columns, rows, exact answer); the tie rule: lowest loss, then lowest position sum
TIES = [
    pytest.param([{0, 1}, {0, 1}], 2, [0], id="identical-earliest"),
    pytest.param([{0}, {0, 1}, {0, 1}, {1}], 2, [1], id="identical-superset-earliest"),
    pytest.param(
        [{0: 1.5, 1: 1.0}, {0: 1.0, 1: 1.25}], 2, [1], id="same-size-lower-loss"
    ),
    # Size before loss: one lossy candidate beats two perfect ones.
    pytest.param(
        [{0: 2.0, 1: 2.0, 2: 2.0}, {0, 1}, {2}], 3, [0], id="size-before-loss"
    ),
    # {0, 1} loses .25 on row 2, {0, 2} loses .5 there.
    pytest.param(
        [{0, 1}, {1: 2.0, 2: 1.25}, {2: 1.5}], 3, [0, 1], id="lowest-ratio-per-row"
    ),
    # {0, 1} loses .5 on row 2; in {0, 2}, 2 takes row 2 too: .25.
    pytest.param(
        [{0: 1.0, 1: 1.0, 2: 1.5}, {3}, {2: 1.0, 3: 1.25}], 4, [0, 2], id="lower-loss"
    ),
    # 1 covers a subset of 0's rows without 0's loss on row 0.
    pytest.param(
        [{0: 1.25, 1: 1.0, 2: 1.0, 3: 1.0}, {0, 1, 2}, {3, 4}],
        5,
        [1, 2],
        id="subset-with-lower-loss",
    ),
    # {0, 1} and {2, 3} both lose .5: positions 0 + 1 < 2 + 3.
    pytest.param(
        [{0: 1.0, 1: 1.25}, {2: 1.25, 3: 1.0}, {0: 1.0, 2: 1.5}, {1: 1.0, 3: 1.0}],
        4,
        [0, 1],
        id="equal-loss-earliest",
    ),
    # 1 is better than 0 on row 1, but 2 takes that row anyway: {0, 2} and {1, 2}
    # lose the same, and 1 dominates 0 for the loss only from a later position.
    pytest.param(
        [{0: 1.0, 1: 1.5}, {0: 1.0, 1: 1.25}, {1: 1.0, 2: 1.5}],
        3,
        [0, 2],
        id="equal-loss-survives-dominance",
    ),
]


@pytest.mark.parametrize(("columns", "n_rows", "answer"), TIES)
def test_ties_are_broken_deterministically(
    columns: list[Column], n_rows: int, answer: list[int]
) -> None:
    p = problem(columns, n_rows)
    assert solve(p) == solve(p) == exact(answer)


def test_equal_loss_and_position_sum_is_one_of_the_tied_tables() -> None:
    # {0, 3} and {1, 2} lose nothing and have position sum 3; {1, 3} and {0, 4} (4 is
    # a copy of 3) lose nothing too but sum 4. The rule stops at the sum: HiGHS picks
    # between the first two, the same way every time.
    p = problem([{0}, {0, 1}, {2, 3}, {1, 2, 3}, {1, 2, 3}], 4)
    first = solve(p)
    assert first.picked in {(0, 3), (1, 2)}
    assert (first.size_proven, first.loss_proven) == (True, True)
    assert all(solve(p) == first for _ in range(3))


# ------------------------------------------------------------------ time limits


def test_no_time_reports_a_valid_table_and_a_bound() -> None:
    # Without HiGHS: greedy's {0, 2, 4}; no single move shrinks it. Rows 1 ({2, 5})
    # and 3 ({0, 3}) share no candidate: at least 2.
    p = problem(TRAP, 5)
    assert solve(p, time_limit=0) == CoverSolution((0, 2, 4), False, 2, False)


def test_no_time_improves_the_fallback_by_swaps() -> None:
    # Greedy: {0, 1} (loss .5 on row 2); swapping 1 for 2 loses .25 only.
    p = problem([{0: 1.0, 1: 1.0, 2: 1.5}, {3}, {2: 1.0, 3: 1.25}], 4)
    assert greedy(p.loss_units()) == [0, 1]
    assert solve(p, time_limit=0).picked == (0, 2)


def test_a_known_cover_smaller_than_greedy_is_the_fallback() -> None:
    p = problem(TRAP, 5)
    found = solve_cover(p, time_limit=0, known=[5, 0])
    assert found == CoverSolution((0, 5), False, 2, False)


def test_no_time_for_the_loss_keeps_the_proven_size() -> None:
    # The loss search gets no time: the size is still proven, the loss is not.
    p = problem([{0: 1.25, 1: 1.0, 2: 1.0, 3: 1.0}, {0, 1, 2}, {3, 4}], 5)
    found = solve(p, loss_time_limit=0)
    assert (found.size_proven, found.lower_bound, found.loss_proven) == (True, 2, False)
    assert is_cover(p, found.picked) and len(found.picked) == 2


# ------------------------------------------------------------------ reductions


def test_undominated_keeps_the_earliest_of_equals_and_ignores_later_dominators() -> (
    None
):
    p = problem(
        [
            {0: 1.0, 1: 1.25},  # 0
            {0: 1.0, 1: 1.25},  # 1: a copy of 0, later: dropped
            {0: 1.0, 1: 1.5},  # 2: 0 covers its rows, each no worse: dropped
            {0: 1.0},  # 3: subset of 0, no worse there: dropped
            {0: 1.0, 1: 1.0, 2: 1.0},  # 4: dominates 0 from a later position: kept
            {2: 1.0, 3: 1.0},  # 5
        ],
        4,
    )
    assert undominated(p.loss_units()).tolist() == [1, 0, 0, 0, 1, 1]


def test_disjoint_bound_counts_rows_sharing_no_candidate() -> None:
    covers = problem(TRAP, 5).covers
    assert disjoint_bound(covers) == 2
    assert disjoint_bound(np.eye(4, dtype=bool)) == 4
    assert disjoint_bound(np.ones((3, 2), dtype=bool)) == 1


# ------------------------------------------------------------------ edge cases


@pytest.mark.parametrize("k", [0, 3])
@pytest.mark.parametrize("time_limit", [0, None])
def test_no_rows(k: int, time_limit: float | None) -> None:
    assert solve(CoverProblem(np.empty((0, k))), time_limit=time_limit) == exact([])


def test_row_without_candidate_is_an_error_not_a_hang() -> None:
    p = problem([{0: 1.0}, {0: 1.5}], 2)
    with pytest.raises(ValueError, match="row 1 has no candidate"):
        solve(p)


# ------------------------------------------------------------------ against brute force


def brute_force(p: CoverProblem) -> tuple[int, int, int, set[tuple[int, ...]]]:
    """Over every subset: the smallest size, the lowest loss among covers of that size,
    the lowest position sum among those, and every table reaching all three."""
    k = p.ratios.shape[1]
    for size in range(k + 1):
        covers = [c for c in itertools.combinations(range(k), size) if is_cover(p, c)]
        if covers:
            loss = min(loss_units(p, c) for c in covers)
            cheapest = [c for c in covers if loss_units(p, c) == loss]
            low = min(sum(c) for c in cheapest)
            return size, loss, low, {c for c in cheapest if sum(c) == low}
    raise AssertionError("the strategy makes every row coverable")


RATIOS = [INF, 1.0, 1.25, 1.5, 2.0, 1.0 + 1e-7, 1.1 + 3e-7]


@st.composite
def problems(draw: st.DrawFn) -> CoverProblem:
    n = draw(st.integers(1, 6))
    k = draw(st.integers(1, 6))
    ratios = np.array(
        draw(
            st.lists(
                st.lists(st.sampled_from(RATIOS), min_size=k, max_size=k),
                min_size=n,
                max_size=n,
            )
        )
    )
    for i in range(n):  # every row coverable
        if not np.isfinite(ratios[i]).any():
            ratios[i, draw(st.integers(0, k - 1))] = draw(st.sampled_from(RATIOS[1:]))
    return CoverProblem(ratios)


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@pytest.mark.slow  # a property run, or a real process under a limit
@given(problems())
def test_exact_matches_brute_force(p: CoverProblem) -> None:
    size, loss, low, tables = brute_force(p)
    found = solve(p)
    assert found == CoverSolution(found.picked, True, size, True)
    assert found.picked in tables  # of that size, loss and position sum
    assert (len(found.picked), loss_units(p, found.picked)) == (size, loss)
    assert sum(found.picked) == low
    fallback = solve(p, time_limit=0)
    assert is_cover(p, fallback.picked) and fallback.size_proven is False
    assert fallback.lower_bound <= size <= len(fallback.picked)
    assert disjoint_bound(p.covers) <= size
    units = p.loss_units()
    kept = improve(units, greedy(units))
    assert is_cover(p, kept)
    assert all(not is_cover(p, [j for j in kept if j != drop]) for drop in kept)
