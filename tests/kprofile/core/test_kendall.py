"""Kendall tau-b against a brute-force pair count, ties included."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from kprofile.core.kendall import inversions, kendall_tau_b


def brute_tau_b(x: list[float], y: list[float]) -> float:
    concordant = discordant = only_x = only_y = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                only_x += 1
            elif dy == 0:
                only_y += 1
            elif dx == dy:
                concordant += 1
            else:
                discordant += 1
    denominator = math.sqrt(
        (concordant + discordant + only_x) * (concordant + discordant + only_y)
    )
    return math.nan if denominator == 0 else (concordant - discordant) / denominator


small = st.lists(st.integers(0, 4), min_size=0, max_size=30)


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 6)), min_size=0, max_size=40)
)
def test_tau_b_matches_brute_force(pairs: list[tuple[int, int]]) -> None:
    x = [float(a) for a, _ in pairs]
    y = [float(b) for _, b in pairs]
    got, want = (
        kendall_tau_b(np.array(x), np.array(y)),
        brute_tau_b(x, y) if len(x) > 1 else math.nan,
    )
    assert (math.isnan(got) and math.isnan(want)) or got == pytest.approx(
        want, abs=1e-12
    )


@settings(max_examples=examples(100), deadline=None)
@given(small)
def test_inversions_match_brute_force(values: list[int]) -> None:
    expected = sum(
        1
        for i in range(len(values))
        for j in range(i + 1, len(values))
        if values[i] > values[j]
    )
    assert inversions(np.array(values, dtype=np.int64)) == expected


@pytest.mark.parametrize(
    ("x", "y", "tau"),
    [
        ([1, 2, 3], [1, 2, 3], 1.0),
        ([1, 2, 3], [3, 2, 1], -1.0),
        ([1, 1, 1], [1, 2, 3], math.nan),
        ([1, np.nan, 3], [1, 5, 2], 1.0),
    ],
)
def test_known_values(x: list[float], y: list[float], tau: float) -> None:
    got = kendall_tau_b(np.array(x, dtype=float), np.array(y, dtype=float))
    assert (math.isnan(tau) and math.isnan(got)) or got == tau
