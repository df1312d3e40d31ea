"""kprofile.core.setcover: hand-made problems whose answer is known, plus brute force on tiny ones.

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

from kprofile.core.setcover import Problem

INF = math.inf
BIG = 10**6  # an exact_limit no problem here can exhaust

Column = set[int] | dict[int, float]


def problem(
    columns: Sequence[Column], n_rows: int, ids: Sequence[int] | None = None
) -> Problem:
    ratios = np.full((n_rows, len(columns)), INF)
    for j, col in enumerate(columns):
        for i, r in col.items() if isinstance(col, dict) else ((i, 1.0) for i in col):
            ratios[i, j] = r
    return Problem.from_ratios(
        list(range(len(columns))) if ids is None else list(ids), ratios
    )


def own_best(p: Problem) -> list[int]:
    """The baseline cover.py passes: ids of every row's lowest-ratio candidate (ties: lowest index)."""
    k = p.ratios.shape[1]
    return sorted(
        {
            p.ids[min(range(k), key=lambda j: (p.ratios[i, j], j))]
            for i in range(p.ratios.shape[0])
        }
    )


def is_cover(p: Problem, picked: Sequence[int]) -> bool:
    """Every row has a finite ratio on some picked candidate index (independent of ``masks``)."""
    return all(
        any(math.isfinite(p.ratios[i, j]) for j in picked)
        for i in range(p.ratios.shape[0])
    )


def loss_of(p: Problem, picked: Sequence[int]) -> float:
    """Independent of ``Problem.loss``: each row's lowest ratio among ``picked``, minus 1, summed."""
    return sum(
        min(float(p.ratios[i, j]) for j in picked) - 1.0
        for i in range(p.ratios.shape[0])
    )


def indices(p: Problem, ids: Sequence[int]) -> list[int]:
    return [p.ids.index(c) for c in ids]


# ------------------------------------------------------------------ the Problem itself


def test_from_ratios_masks_follow_finite_entries() -> None:
    ratios = np.array([[1.0, INF, 1.5], [INF, INF, 1.0], [1.25, INF, INF]])
    p = Problem.from_ratios([7, 3, 5], ratios)
    assert p.ids == (7, 3, 5)
    assert p.masks == (0b101, 0b000, 0b011)
    assert p.full == 0b111
    assert p.ratios is ratios


LOSSES = [
    pytest.param([], 0.0, id="nothing-picked"),
    pytest.param([0], 0.0 + 0.5 + 1.0, id="one"),
    pytest.param([1], 0.25 + 0.0 + 0.5, id="other"),
    pytest.param([0, 1], 0.0 + 0.0 + 0.5, id="each-row-takes-its-lowest"),
    pytest.param([1, 0], 0.5, id="order-irrelevant"),
]


@pytest.mark.parametrize(("picked", "expected"), LOSSES)
def test_loss(picked: list[int], expected: float) -> None:
    p = problem([{0: 1.0, 1: 1.5, 2: 2.0}, {0: 1.25, 1: 1.0, 2: 1.5}], 3)
    assert p.loss(picked) == expected


# ------------------------------------------------------------------ known answers

TRAP = [{0, 3}, {0}, {1, 4}, {3, 4}, {0, 2, 4}, {1, 2, 4}]

# (columns, rows, greedy indices, exact indices)
KNOWN = [
    pytest.param([{0, 1, 2}, {0}, {1}], 3, [0], [0], id="one-candidate-covers-all"),
    pytest.param([{0}], 1, [0], [0], id="single-row-single-candidate"),
    # Greedy takes 4 (3 rows), then 0, then 2; the only 2-set cover is 0 + 5.
    pytest.param(TRAP, 5, [0, 2, 4], [0, 5], id="greedy-3-optimum-2"),
    # All gain 2, greedy takes 0 by index, then 1 and 3 (by index); 2+3 and 2+5 cover, 3 == 5.
    pytest.param(
        [{1, 2}, {3}, {2, 3}, {0, 1}, {0, 2}, {0, 1}],
        4,
        [0, 1, 3],
        [2, 3],
        id="greedy-3-optimum-2-index-ties",
    ),
    # Row 0 has a single candidate (1), a poor one otherwise; both methods must take it.
    pytest.param(
        [{1, 2, 3}, {0, 1}, {3}], 4, [0, 1], [0, 1], id="row-only-one-candidate-covers"
    ),
    pytest.param([{2}, {0, 1, 2}, {0}, {1}], 3, [1], [1], id="late-candidate-wins"),
    # Greedy takes 0, then 1, then 2 (for row 4), which makes 0 redundant.
    pytest.param(
        [{0, 1, 2}, {1, 2, 3}, {0, 4}], 5, [1, 2], [1, 2], id="greedy-drops-redundant"
    ),
]


@pytest.mark.parametrize(("columns", "n_rows", "greedy", "exact"), KNOWN)
def test_known_answers(
    columns: list[Column], n_rows: int, greedy: list[int], exact: list[int]
) -> None:
    ids = [
        100 - j for j in range(len(columns))
    ]  # decreasing: the output follows index order, not id order
    p = problem(columns, n_rows, ids)
    assert p.greedy() == greedy
    assert p.solve(baseline=own_best(p), exact_limit=BIG) == (
        [ids[j] for j in exact],
        "exact",
    )


# ------------------------------------------------------------------ ties

# (columns, rows, greedy indices, exact indices)
TIES = [
    pytest.param([{0, 1}, {0, 1}], 2, [0], [0], id="identical-lowest-index"),
    pytest.param(
        [{0}, {0, 1}, {0, 1}, {1}], 2, [1], [1], id="identical-superset-lowest-index"
    ),
    # Same gain; greedy and exact both take the lower loss although 0 comes first.
    pytest.param(
        [{0: 1.5, 1: 1.0}, {0: 1.0, 1: 1.25}], 2, [1], [1], id="same-gain-lower-loss"
    ),
    # Gain before loss: one lossy candidate beats two perfect ones (size before loss).
    pytest.param(
        [{0: 2.0, 1: 2.0, 2: 2.0}, {0, 1}, {2}], 3, [0], [0], id="size-before-loss"
    ),
    # After 0, greedy compares the loss on the open row 2 only: 1 (.25) beats 2 (.5) despite row 1.
    pytest.param(
        [{0, 1}, {1: 2.0, 2: 1.25}, {2: 1.5}],
        3,
        [0, 1],
        [0, 1],
        id="greedy-loss-on-open-rows-only",
    ),
    # Greedy: 0 (3 rows), then 1 (no loss on row 3): loss .5. {0, 2}: 2 takes row 2 too: loss .25.
    pytest.param(
        [{0: 1.0, 1: 1.0, 2: 1.5}, {3}, {2: 1.0, 3: 1.25}],
        4,
        [0, 1],
        [0, 2],
        id="equal-size-lower-loss",
    ),
    # Greedy: 0 (4 rows), then 2. 1 covers a subset of 0's rows but without 0's loss on row 0.
    pytest.param(
        [{0: 1.25, 1: 1.0, 2: 1.0, 3: 1.0}, {0, 1, 2}, {3, 4}],
        5,
        [0, 2],
        [1, 2],
        id="subset-with-lower-loss",
    ),
    # {0, 1} and {2, 3} both lose .5; greedy takes 3 first (no loss) and lands on {2, 3}.
    pytest.param(
        [{0: 1.0, 1: 1.25}, {2: 1.25, 3: 1.0}, {0: 1.0, 2: 1.5}, {1: 1.0, 3: 1.0}],
        4,
        [2, 3],
        [0, 1],
        id="equal-loss-lowest-indices",
    ),
]


@pytest.mark.parametrize(("columns", "n_rows", "greedy", "exact"), TIES)
def test_ties_are_broken_deterministically(
    columns: list[Column], n_rows: int, greedy: list[int], exact: list[int]
) -> None:
    p = problem(columns, n_rows)
    for _ in range(2):
        assert p.greedy() == greedy
        assert p.solve(baseline=own_best(p), exact_limit=BIG) == (exact, "exact")


def test_equal_loss_tie_survives_dominance() -> None:
    """Candidate 1 is better than 0 on row 1, but candidate 2 takes that row anyway: the
    covers {0, 2} and {1, 2} lose the same, and the tie goes to the lower indices even
    though greedy starts from {1, 2}."""
    p = problem([{0: 1.0, 1: 1.5}, {0: 1.0, 1: 1.25}, {1: 1.0, 2: 1.5}], 3)
    assert p.greedy() == [1, 2]
    assert p.loss([0, 2]) == p.loss([1, 2]) == 0.5
    assert p.solve(baseline=own_best(p), exact_limit=BIG) == ([0, 2], "exact")


# ------------------------------------------------------------------ baseline and node budget

TRAP_GREEDY, TRAP_EXACT = [0, 2, 4], [0, 5]

# (baseline ids, exact_limit, expected ids, method)
BUDGETS = [
    pytest.param([0, 2, 4], 0, TRAP_GREEDY, "greedy", id="no-budget-greedy-seed"),
    pytest.param([0, 1, 2, 4], 0, TRAP_GREEDY, "greedy", id="larger-baseline-ignored"),
    pytest.param([1, 3, 5], 0, TRAP_GREEDY, "greedy", id="equal-size-baseline-ignored"),
    pytest.param([0, 5], 0, [0, 5], "greedy", id="smaller-baseline-is-the-seed"),
    pytest.param([5, 0], 0, [0, 5], "greedy", id="baseline-order-irrelevant"),
    pytest.param([0, 2, 4], 1, TRAP_GREEDY, "greedy", id="one-node-not-enough"),
    pytest.param([0, 2, 4], BIG, TRAP_EXACT, "exact", id="ample-budget"),
    pytest.param([0, 5], BIG, TRAP_EXACT, "exact", id="optimal-baseline-proven"),
]


@pytest.mark.parametrize(("baseline", "limit", "expected", "method"), BUDGETS)
def test_budget_and_seed(
    baseline: list[int], limit: int, expected: list[int], method: str
) -> None:
    p = problem(TRAP, 5)
    assert p.solve(baseline=baseline, exact_limit=limit) == (expected, method)


def test_every_budget_gives_a_valid_answer_and_exact_means_minimal() -> None:
    p = problem(TRAP, 5)
    methods = set()
    for limit in range(60):
        picked, method = p.solve(baseline=own_best(p), exact_limit=limit)
        methods.add(method)
        assert is_cover(p, picked)
        assert len(picked) == (2 if method == "exact" else 3)
    assert methods == {"greedy", "exact"}


def answers_over_budgets(p: Problem) -> set[tuple[tuple[int, ...], str]]:
    """Every distinct answer for exact_limit 0..59 (the last ones: the proven optimum)."""
    answers: set[tuple[tuple[int, ...], str]] = set()
    for limit in range(60):
        picked, method = p.solve(baseline=own_best(p), exact_limit=limit)
        answers.add((tuple(picked), method))
    return answers


def test_identical_later_candidate_never_chosen_whatever_the_budget() -> None:
    p = problem([*TRAP, {1, 2, 4}], 5)  # 6 is a copy of 5
    assert answers_over_budgets(p) == {((0, 2, 4), "greedy"), ((0, 5), "exact")}


def test_phases_share_the_budget() -> None:
    # Phase 1 keeps 0 (same rows as 6, lower index) and finds {0, 5}; the loss search prefers 6
    # (no loss on row 3). At the smallest budget that proves the size, no node is left for it.
    p = problem([{0: 1.0, 3: 1.5}, *TRAP[1:], {0, 3}], 5)
    first = min(
        limit
        for limit in range(60)
        if p.solve(baseline=own_best(p), exact_limit=limit)[1] == "exact"
    )
    assert p.solve(baseline=own_best(p), exact_limit=first) == ([0, 5], "exact")
    assert p.solve(baseline=own_best(p), exact_limit=BIG) == ([5, 6], "exact")


def test_phase_one_out_of_budget_keeps_what_it_found() -> None:
    # Greedy: 0, then 1, then 2 (3 sets); 2 + 3 covers everything. Some budget finds it, can't prove it.
    p = problem([{1, 2, 4}, {1, 3}, {0, 1, 2}, {2, 3, 4}], 5)
    assert p.greedy() == [0, 1, 2]
    assert answers_over_budgets(p) == {
        ((0, 1, 2), "greedy"),
        ((2, 3), "greedy"),
        ((2, 3), "exact"),
    }


def test_phase_two_out_of_budget_is_exact_size_best_loss_so_far() -> None:
    # The size (2) is proven at the root (rows 0 and 3 share no candidate once 1 is dropped as
    # a subset of 2); the loss search then needs more nodes to replace greedy's {0, 1} by {0, 2}.
    p = problem([{0: 1.0, 1: 1.0, 2: 1.5}, {3}, {2: 1.0, 3: 1.25}], 4)
    assert answers_over_budgets(p) == {
        ((0, 1), "greedy"),
        ((0, 1), "exact"),
        ((0, 2), "exact"),
    }


# ------------------------------------------------------------------ empty input

EMPTY = [
    pytest.param([], np.empty((0, 0)), id="no-rows-no-candidates"),
    pytest.param([4, 5, 6], np.empty((0, 3)), id="no-rows"),
]


@pytest.mark.parametrize(("ids", "ratios"), EMPTY)
@pytest.mark.parametrize("limit", [0, BIG])
def test_empty_input(ids: list[int], ratios: np.ndarray, limit: int) -> None:
    p = Problem.from_ratios(ids, ratios)
    assert p.full == 0
    assert p.masks == (0,) * len(ids)
    assert p.greedy() == []
    assert p.loss([]) == 0.0
    assert p.solve(baseline=[], exact_limit=limit) == ([], "exact")


# ------------------------------------------------------------------ against brute force


def brute_force(p: Problem) -> tuple[int, float]:
    """Smallest cover over all subsets of candidates, and the lowest loss among covers of that size."""
    k = p.ratios.shape[1]
    for size in range(k + 1):
        losses = [
            loss_of(p, combo)
            for combo in itertools.combinations(range(k), size)
            if is_cover(p, combo)
        ]
        if losses:
            return size, min(losses)
    raise AssertionError("the strategy makes every row coverable")


RATIOS = [INF, 1.0, 1.25, 1.5, 2.0]


@st.composite
def problems(draw: st.DrawFn) -> Problem:
    n = draw(st.integers(1, 5))
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
    ids = draw(st.permutations(range(10, 10 + k)))
    return Problem.from_ratios(ids, ratios)


@settings(
    max_examples=examples(400),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(problems(), st.integers(0, 30))
def test_exact_matches_brute_force(p: Problem, limit: int) -> None:
    size, best_loss = brute_force(p)
    baseline = own_best(p)

    picked, method = p.solve(baseline=baseline, exact_limit=BIG)
    assert method == "exact"
    idx = indices(p, picked)
    assert idx == sorted(set(idx))  # distinct, increasing index
    assert is_cover(p, idx)
    assert len(idx) == size
    assert p.loss(idx) == pytest.approx(loss_of(p, idx), abs=1e-12)
    assert loss_of(p, idx) == pytest.approx(best_loss, abs=1e-9)

    greedy = p.greedy()
    assert greedy == sorted(set(greedy))
    assert is_cover(p, greedy)
    assert all(
        not is_cover(p, [j for j in greedy if j != drop]) for drop in greedy
    )  # nothing redundant
    assert len(greedy) >= size

    seed = [p.ids[j] for j in greedy] if len(greedy) <= len(baseline) else baseline
    assert p.solve(baseline=baseline, exact_limit=0) == (seed, "greedy")

    picked, method = p.solve(baseline=baseline, exact_limit=limit)
    idx = indices(p, picked)
    assert idx == sorted(set(idx))
    assert is_cover(p, idx)
    if method == "exact":
        assert len(idx) == size
        assert loss_of(p, idx) >= best_loss - 1e-9
        if len(seed) == size:  # the loss is the best found, and the seed was found
            assert loss_of(p, idx) <= loss_of(p, indices(p, seed)) + 1e-9
    else:  # the seed, unless the search found a smaller cover
        assert size <= len(idx) <= len(seed)
        assert len(idx) < len(seed) or picked == seed


def test_row_without_candidate_is_an_error_not_a_hang() -> None:
    p = problem([{0: 1.0}, {0: 1.5}], 2)
    with pytest.raises(ValueError, match="row 1 has no candidate"):
        p.greedy()
    with pytest.raises(ValueError, match="row 1 has no candidate"):
        p.solve(baseline=[0, 1], exact_limit=BIG)


def test_baseline_that_is_not_a_cover_is_refused() -> None:
    p = problem([{0: 1.0}, {1: 1.0}], 2)
    with pytest.raises(ValueError, match="baseline does not cover every row"):
        p.solve(baseline=[p.ids[0]], exact_limit=BIG)
