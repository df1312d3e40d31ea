"""One definition of "the same value" for both tools (``tuning_codegen.values``)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from kprofile.manifest.write import manifest_text
from tuning_codegen.errors import InputError
from tuning_codegen.manifest import parse_manifest
from tuning_codegen.values import entry_key, same_entry, same_value

SAME = [
    (256, 256.0),
    (math.nan, float("nan")),
    (True, True),
    (None, None),
    ("a", "a"),
    ([1, 2], [1.0, 2]),
    ({"a": 1}, {"a": 1.0}),
]
DIFFERENT = [
    (True, 1),
    (False, 0),
    ("1", 1),
    (None, 0),
    (None, ""),
    ([1, 2], [2, 1]),
    ({"a": 1}, {"a": True}),
    (1, 1.5),
]


@pytest.mark.parametrize(("a", "b"), SAME)
def test_the_same_values(a: Any, b: Any) -> None:
    assert same_value(a, b) and same_value(b, a)
    assert same_entry({"K": a}, {"K": b})


@pytest.mark.parametrize(("a", "b"), DIFFERENT)
def test_different_values(a: Any, b: Any) -> None:
    assert not same_value(a, b) and not same_value(b, a)
    assert entry_key({"K": a}) != entry_key({"K": b})


def test_entries_ignore_key_order_but_not_keys() -> None:
    assert same_entry({"M": 1, "N": 2}, {"N": 2, "M": 1})
    assert not same_entry({"M": 1}, {"M": 1, "N": None})


def test_the_code_generator_refuses_what_kprofile_drops_as_a_duplicate() -> None:
    """kprofile -o drops an entry equal to an earlier one (manifest.write uses
    entry_key); tuning-codegen refuses such a pair with the same definition."""
    text = "params:\n- {M: 256, BM: 64}\n- {BM: 64.0, M: 256}\n"
    with pytest.raises(InputError) as info:
        parse_manifest(text, "t.yaml")
    assert str(info.value) == (
        "t.yaml:3: error: params[1] is identical to params[0] after merging"
    )
    written = manifest_text(
        [{"M": 256, "BM": 64}, {"M": 256, "BM": 64.0}], name=None, file=None, sources=[]
    )
    assert (len(written.entries), written.duplicates) == (1, 1)
