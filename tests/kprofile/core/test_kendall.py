"""Kendall tau-b against a brute-force O(n^2) pair count, ties and NaNs included."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from kprofile.core.kendall import kendall_tau_b


def brute_tau_b(x: list[float], y: list[float]) -> float:
    """Every pair of rows where both values are finite: concordant, discordant, tied."""
    rows = [(a, b) for a, b in zip(x, y) if math.isfinite(a) and math.isfinite(b)]
    concordant = discordant = only_x = only_y = 0
    for i in range(len(rows)):
        for j in range(i + 1, len(rows)):
            dx = np.sign(rows[i][0] - rows[j][0])
            dy = np.sign(rows[i][1] - rows[j][1])
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


values = st.one_of(st.integers(0, 4).map(float), st.just(math.nan), st.just(math.inf))


@pytest.mark.slow  # a property run, or a real process under a limit
@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(values, st.integers(0, 6).map(float)), max_size=40))
def test_tau_b_matches_brute_force(pairs: list[tuple[float, float]]) -> None:
    x = [a for a, _ in pairs]
    y = [b for _, b in pairs]
    got = kendall_tau_b(np.array(x), np.array(y))
    want = brute_tau_b(x, y)
    assert (math.isnan(got) and math.isnan(want)) or got == pytest.approx(
        want, abs=1e-12
    )


@pytest.mark.parametrize(
    ("x", "y", "tau"),
    [
        ([1, 2, 3], [1, 2, 3], 1.0),
        ([1, 2, 3], [3, 2, 1], -1.0),
        ([1, 1, 1], [1, 2, 3], math.nan),
        ([1, np.nan, 3], [1, 5, 2], 1.0),
        ([1, 2, 3, np.inf], [1, 5, 2, 0], 1 / 3),
        ([np.nan, 2], [1, 2], math.nan),
        ([], [], math.nan),
    ],
)
def test_known_values(x: list[float], y: list[float], tau: float) -> None:
    got = kendall_tau_b(np.array(x, dtype=float), np.array(y, dtype=float))
    assert (math.isnan(tau) and math.isnan(got)) or got == pytest.approx(tau)
