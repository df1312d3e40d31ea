"""``product_groups``: kbench spec groups whose cartesian products, joined, are exactly
the contenders given, nothing more; checked by expanding them with
``itertools.product``, as kbench's ``GridSearchStrategy`` does."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from kprofile.core.contenders import product_groups


def expanded(groups: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """kbench's expansion: each list's values without those equal (``==``) to an
    earlier one (``dict.fromkeys``), then their cartesian product."""
    rows = []
    for group in groups:
        keys = list(group)
        lists = [
            list(dict.fromkeys(v)) if isinstance(v, list) else [v]
            for v in group.values()
        ]
        rows += [dict(zip(keys, combo)) for combo in itertools.product(*lists)]
    return rows


def canonical(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The rows as a sorted list, each value with its type (True is not 1)."""
    return sorted(repr(sorted((k, type(v).__name__, v) for k, v in r.items()))
                  for r in rows)  # fmt: skip


def test_a_whole_product_is_one_group() -> None:
    configs = [{"BM": m, "BN": n} for m in (16, 64) for n in (32, 128)]
    assert product_groups(configs) == [{"BM": [16, 64], "BN": [32, 128]}]


def test_one_contender_is_one_group_of_scalars() -> None:
    assert product_groups([{"BM": 64, "SWAP_AB": True}]) == [
        {"BM": 64, "SWAP_AB": True}
    ]


def test_a_partial_product_lists_the_column_that_needs_fewest_groups() -> None:
    configs = [{"BM": 16, "BN": 32}, {"BM": 16, "BN": 64}, {"BM": 64, "BN": 32}]
    groups = product_groups(configs)
    assert len(groups) == 2
    assert canonical(expanded(groups)) == canonical(configs)


def test_configs_without_a_parameter_are_grouped_apart() -> None:
    configs = [{"BM": 16, "BK": 8}, {"BM": 32, "BK": 8}, {"BM": 16}]
    groups = product_groups(configs)
    assert groups == [{"BM": [16, 32], "BK": 8}, {"BM": 16}]


def test_true_and_1_are_never_listed_together() -> None:
    """kbench keeps one of a list's values that Python finds equal."""
    configs = [{"A": True, "B": 1}, {"A": 1, "B": 1}]
    groups = product_groups(configs)
    assert groups == configs
    assert all(not isinstance(v, list) for g in groups for v in g.values())


VALUES = st.one_of(st.integers(0, 3), st.sampled_from(["a", "b"]), st.booleans())


@st.composite
def contender_sets(draw: st.DrawFn) -> list[dict[str, Any]]:
    keys = draw(st.lists(st.sampled_from("ABCD"), min_size=1, max_size=4, unique=True))
    rows = draw(st.lists(st.fixed_dictionaries({k: VALUES for k in keys}), max_size=24))
    seen, unique = set(), []
    for row in rows:  # distinct configs, as the results' config ids are
        key = tuple((k, type(v), v) for k, v in row.items())
        if key not in seen:
            seen.add(key)
            unique.append(row)
    return unique


@settings(max_examples=examples(1000), deadline=None)
@given(contender_sets())
def test_the_groups_expand_to_exactly_the_contenders(
    configs: list[dict[str, Any]],
) -> None:
    groups = product_groups(configs)
    assert canonical(expanded(groups)) == canonical(configs)
    assert len(groups) <= len(configs)
