"""``ranked.stable_argsort`` orders float keys exactly as numpy's stable sort does:
equal keys (ties, ``0.0`` and ``-0.0``, infinities) keep their input order."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from kprofile.core.ranked import stable_argsort

few = st.sampled_from([0.0, -0.0, 1.0, 2.5, 1e300, np.inf, -np.inf, 5e-324])
keys = st.lists(st.one_of(few, st.floats(allow_nan=False)), max_size=300)


@settings(max_examples=examples(400), deadline=None)
@given(keys)
def test_the_order_is_the_stable_sorts(values: list[float]) -> None:
    array = np.array(values, dtype=np.float64)
    assert (
        stable_argsort(array.copy()).tolist()
        == np.argsort(array, kind="stable").tolist()
    )


def test_a_million_keys_with_many_ties() -> None:
    array = np.random.default_rng(3).integers(0, 1000, 1_000_000).astype(float) / 8
    assert np.array_equal(stable_argsort(array), np.argsort(array, kind="stable"))
