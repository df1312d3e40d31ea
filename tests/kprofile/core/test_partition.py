"""kprofile.core.partition: the exact partition of points into ranges, against brute force.

The brute force enumerates every partition of the points into runs and every config
assignment, and takes the smallest under the documented order: (number of ranges,
worst ratio, configs range by range, later ends range by range), an isolated point
always taking its best config.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from kprofile.core.partition import Partition, fewest, partition, run_lengths

INF = math.inf


def brute(ratio: np.ndarray) -> tuple[list[tuple[int, int]], list[int], float]:
    """Ranges, configs and worst ratio of the first partition in the documented order."""
    points, configs = ratio.shape
    best: tuple[tuple[object, ...], list[tuple[int, int]], list[int]] | None = None
    for cuts in itertools.product((False, True), repeat=points - 1):
        bounds = [0, *(i + 1 for i, cut in enumerate(cuts) if cut), points]
        ranges = list(zip(bounds, bounds[1:]))
        choices = [
            [c for c in range(configs) if all(ratio[p, c] < INF for p in range(a, b))]
            for a, b in ranges
        ]
        for k, (a, b) in enumerate(ranges):  # an isolated point takes its best
            if b == a + 1 and alone(ratio, a):
                choices[k] = [int(np.argmin(ratio[a]))]
        for chosen in itertools.product(*choices):
            worst = max(
                ratio[p, c] for (a, b), c in zip(ranges, chosen) for p in range(a, b)
            )
            key = (len(ranges), worst, chosen, tuple(-b for _, b in ranges))
            if best is None or key < best[0]:
                best = (key, ranges, list(chosen))
    assert best is not None
    return best[1], best[2], float(best[0][1])  # type: ignore[arg-type]


def alone(ratio: np.ndarray, p: int) -> bool:
    """No config serves point p together with a neighbour (written out by hand)."""
    for q in (p - 1, p + 1):
        if 0 <= q < len(ratio):
            if any(
                ratio[p, c] < INF and ratio[q, c] < INF for c in range(ratio.shape[1])
            ):
                return False
    return True


def spans(result: Partition) -> list[tuple[int, int]]:
    return list(zip(result.starts.tolist(), result.stops.tolist()))


def test_one_config_best_everywhere_gives_one_range() -> None:
    ratio = np.array(
        [[1.0, 1.2, INF], [1.0, 1.01, 1.3], [1.0, INF, 1.02], [1.0, 1.1, 1.1]]
    )
    result = partition(ratio)
    assert (spans(result), result.configs.tolist()) == ([(0, 4)], [0])
    assert result.worst.tolist() == [1.0] and result.ratios.tolist() == [1.0] * 4


def test_alternating_configs_with_tol_0_give_one_range_per_point() -> None:
    # with tol 0 only each point's best serves it: 0, 1, 0, 1, 0
    ratio = np.array([[1.0, INF], [INF, 1.0], [1.0, INF], [INF, 1.0], [1.0, INF]])
    result = partition(ratio)
    assert spans(result) == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]
    assert result.configs.tolist() == [0, 1, 0, 1, 0]


def test_a_config_not_measured_at_a_point_does_not_serve_it() -> None:
    # config 0 is near-best at points 0, 1, 3 but was not measured at point 2:
    # config 1 is the only one serving every point, however much worse it is
    ratio = np.array([[1.0, 1.025], [1.0, 1.025], [INF, 1.0], [1.0, 1.025]])
    result = partition(ratio)
    assert (spans(result), result.configs.tolist()) == ([(0, 4)], [1])
    assert result.worst.tolist() == [1.025]
    # without config 1, point 2 splits the run of config 0
    alone = partition(np.array([[1.0, INF], [1.0, INF], [INF, 1.0], [1.0, INF]]))
    assert spans(alone) == [(0, 2), (2, 3), (3, 4)]


def test_an_isolated_point_gets_a_range_of_its_own() -> None:
    # no config serves point 2 and a neighbour
    ratio = np.array(
        [[1.0, INF, INF], [1.0, INF, INF], [INF, INF, 1.0], [INF, 1.0, INF]]
    )
    result = partition(ratio)
    assert spans(result) == [(0, 2), (2, 3), (3, 4)]
    assert result.configs.tolist() == [0, 2, 1]


def test_lowest_worst_ratio_wins_among_the_fewest_ranges() -> None:
    # two ranges either way: [0,1) + [1,3) with worst 1.02, or [0,2) + [2,3) with 1.01
    ratio = np.array([[1.0, INF], [1.01, 1.02], [INF, 1.0]])
    result = partition(ratio)
    assert (spans(result), result.configs.tolist()) == ([(0, 2), (2, 3)], [0, 1])
    assert result.worst.tolist() == [1.01, 1.0]


def test_earliest_configs_win_even_where_a_range_could_be_better() -> None:
    """The group's worst ratio is 1.05 (point 2) whatever serves points 0-1, so they
    take the earlier config 0 (ratio 1.02) rather than their best, config 1 (1.0).
    A forward DP keeping one best (count, worst, configs) per prefix would keep config
    1 there (worst 1.0 < 1.02 over the prefix) and miss this."""
    ratio = np.array(
        [
            [1.02, 1.0, INF],
            [1.02, 1.0, INF],
            [INF, INF, 1.05],
            [INF, INF, 1.0],
        ]
    )
    result = partition(ratio)
    assert (spans(result), result.configs.tolist()) == ([(0, 2), (2, 4)], [0, 2])
    assert result.worst.tolist() == [1.02, 1.05]


def test_an_isolated_point_takes_its_best_config_not_the_earliest() -> None:
    """Point 0 shares no config with point 1: it is a range of its own and takes its
    best config (1), though config 0 is earlier and within the group's worst."""
    ratio = np.array([[1.02, 1.0, INF], [INF, INF, 1.05], [INF, INF, 1.0]])
    result = partition(ratio)
    assert (spans(result), result.configs.tolist()) == ([(0, 1), (1, 3)], [1, 2])
    assert result.worst.tolist() == [1.0, 1.05]


def test_same_configs_end_as_late_as_possible() -> None:
    # config 0 then config 1; the boundary can be after point 1, 2 or 3
    ratio = np.array([[1.0, INF], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [INF, 1.0]])
    result = partition(ratio)
    assert (spans(result), result.configs.tolist()) == ([(0, 4), (4, 5)], [0, 1])


def test_empty_and_invalid_input() -> None:
    assert len(partition(np.zeros((0, 3)))) == 0
    with pytest.raises(ValueError, match="every point needs a config"):
        partition(np.array([[1.0, INF], [INF, INF]]))


def test_run_lengths_count_consecutive_points_served() -> None:
    serves = np.array([[True, False], [True, True], [False, True], [True, True]])
    assert run_lengths(serves).tolist() == [[2, 0], [1, 3], [0, 2], [1, 1], [0, 0]]
    assert fewest(serves) == 2


VALUES = st.sampled_from([1.0, 1.0, 1.01, 1.02, 1.03, INF, INF])


@st.composite
def matrices(draw: st.DrawFn) -> np.ndarray:
    points = draw(st.integers(1, 7))
    configs = draw(st.integers(1, 4))
    ratio = np.array(
        [[draw(VALUES) for _ in range(configs)] for _ in range(points)], dtype=float
    )
    for p in range(points):  # every point has its best (ratio 1.0)
        if not (ratio[p] == 1.0).any():
            ratio[p, draw(st.integers(0, configs - 1))] = 1.0
    return ratio


@settings(max_examples=examples(400), deadline=None)
@given(matrices())
def test_partition_is_the_brute_force_optimum(ratio: np.ndarray) -> None:
    ranges, configs, worst = brute(ratio)
    result = partition(ratio)
    assert spans(result) == ranges
    assert result.configs.tolist() == configs
    assert float(result.worst.max()) == worst
    for (start, stop), config, range_worst in zip(ranges, configs, result.worst):
        assert range_worst == ratio[start:stop, config].max()
        assert result.ratios[start:stop].tolist() == ratio[start:stop, config].tolist()
