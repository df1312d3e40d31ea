"""Every group ranked, selected and given its common config at once (``core.ranked``,
``core.select.common_configs``) is what the per-file functions give each group split
off (``split_by``) and taken as a file of its own: ``rank_order``, and the oracle's
``select_top``, ``select_top_fraction``, ``select_within`` and ``common_config``
(``tests/select_oracle.py``), value for value
(types included), ties, missing values and failed runs as they break them.

The files are real kbench pickles read by the loader (``group_support``), so the
parameter columns are what spec strings decode to.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from group_support import AMOUNTS, PIVOTS, result_rows, same
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from select_oracle import SELECTIONS, common_config
from support import examples

from kprofile.core.columns import group_rows
from kprofile.core.metric import Metric, metric_values, rank_order, valid_mask
from kprofile.core.ranked import group_subsets, rank_groups
from kprofile.core.select import common_configs
from kprofile.inputs.load import Results, load_results


def _alone(part: Results) -> Results:
    """A group split off, as a file of its own (its constant columns not known)."""
    return Results(part.path, part.kind, part.frame, part.params, row_key=part.row_key)


def _check_group(
    results: Results, pivots: tuple[str, ...], metric: Metric, kind: str, amount: float
) -> None:
    grouping = group_rows(results, pivots)
    ranked = rank_groups(grouping, metric)
    subsets = group_subsets(ranked, kind, amount)
    commons = common_configs(ranked, kind=kind, amount=amount)
    assert len(commons) == len(grouping)
    for g in range(len(grouping)):
        rows = grouping.order[grouping.starts[g] : grouping.stops[g]]  # file's
        alone = _alone(grouping.part(g))
        values = metric_values(alone.frame, metric)
        order = rank_order(values, metric)
        assert ranked.ran.of(g).tolist() == rows[order].tolist()
        failed = np.flatnonzero(~valid_mask(values))
        assert ranked.failed.of(g).tolist() == rows[failed].tolist()
        best = values[order[0]] if len(order) else math.nan
        assert same(float(ranked.best[g]), float(best))
        chosen = SELECTIONS[kind](values, metric, amount)
        assert subsets.of(g).tolist() == rows[chosen].tolist()
        _check_common(
            commons[g], common_config(alone, metric, kind=kind, amount=amount), rows
        )
        assert commons[g].results is grouping.results


def _check_common(found: Any, expected: Any, rows: np.ndarray) -> None:
    assert found.subset.tolist() == rows[expected.subset].tolist()
    assert found.valid_count == expected.valid_count
    assert [m.name for m in found.modes] == [m.name for m in expected.modes]
    for got, want in zip(found.modes, expected.modes):
        assert same(got.value, want.value), (got, want)
        assert got.count == want.count
        assert same(got.share, want.share)
    assert list(found.config) == list(expected.config)
    for key, value in expected.config.items():
        assert same(found.config[key], value), key
    measured = None if expected.measured is None else int(rows[expected.measured])
    assert found.measured == measured
    assert same(found.ratio, expected.ratio)


@settings(
    max_examples=examples(400),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    result_rows(),
    st.booleans(),
    PIVOTS,
    st.sampled_from(sorted(SELECTIONS)),
    AMOUNTS,
)
@pytest.mark.slow  # a property run, or a real process under a limit
def test_every_group_is_selected_as_it_would_be_alone(
    kb_write: Callable[..., Path],
    rows: list[dict[str, Any]],
    higher: bool,
    pivots: tuple[str, ...],
    kind: str,
    amount: float,
) -> None:
    results = load_results(str(kb_write("r.pkl", rows)))
    pivots = tuple(p for p in pivots if p in results.params)
    _check_group(results, pivots, Metric("met (ms)", higher), kind, amount)


@pytest.mark.parametrize("kind", sorted(SELECTIONS))
def test_a_tie_goes_to_the_value_first_in_rank_order_in_every_group(
    kb_write: Callable[..., Path], kind: str
) -> None:
    """In each group two values of BM are as frequent; the better entry's wins, and
    a group whose best entries lack S takes S from the entries that have it."""
    rows = [
        {"M": 1, "BM": 64, "S": "a", "met (ms)": 2.0},
        {"M": 2, "BM": 64, "met (ms)": 1.0},
        {"M": 1, "BM": 128, "S": "b", "met (ms)": 1.0},
        {"M": 2, "BM": 128, "S": "b", "met (ms)": 2.0},
        {"M": 2, "BM": 256, "met (ms)": 0.0},
    ]
    results = load_results(str(kb_write("r.pkl", rows)))
    commons = common_configs(
        rank_groups(group_rows(results, ["M"]), Metric("met (ms)", False)),
        kind=kind,
        amount=1.0,
    )
    assert [c.config for c in commons] == [
        {"M": 1, "BM": 128, "S": "b"},
        {"M": 2, "BM": 64, "S": "b"},
    ]
    assert [c.measured for c in commons] == [2, None]  # M=2: BM=64/S=b never ran
    _check_group(results, ("M",), Metric("met (ms)", False), kind, 1.0)
