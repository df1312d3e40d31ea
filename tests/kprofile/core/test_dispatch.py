"""kprofile.core.dispatch: the entry a kernel takes for a shape, against a brute-force scan.

Tables are real manifests parsed by tuning_codegen's reader (merge keys included); the
brute force walks the entries in order with the documented rule written out by hand.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from support import examples
from table_support import brute, number, same, table

import kprofile.core.dispatch_match as module
from kprofile.core.dispatch import dispatch
from kprofile.errors import KprofileError
from tuning_codegen.manifest import parse_manifest


def shapes(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame(rows)


def test_exact_keys_match_as_the_same_value() -> None:
    t = table(
        [
            {"M": 256, "N": 4096, "BM": 1},
            {"M": 256.0, "N": 8192, "BM": 2},
            {"M": 8, "N": 4096, "BM": 3},
        ]
    )
    s = shapes(
        [
            {"M": 256, "N": 4096},
            {"M": 256, "N": 8192},  # 256 == 256.0
            {"M": 8, "N": 4096},
            {"M": 9, "N": 4096},  # no entry
        ]
    )
    found = dispatch(t, s, ["M", "N"])
    assert found.entry.tolist() == [0, 1, 2, -1]
    assert found.covering.tolist() == [1, 1, 1, 0]
    assert found.keys == ("M", "N")
    assert found.ranged == ()
    assert found.unkeyed == ()


def test_a_boolean_is_not_a_number_and_a_string_is_not_a_number() -> None:
    t = table(
        [{"SPLIT": True, "BM": 1}, {"SPLIT": "1", "BM": 2}, {"SPLIT": 1, "BM": 3}]
    )
    s = pd.DataFrame({"SPLIT": pd.Series([1, True, "1"], dtype=object)})
    assert dispatch(t, s, ["SPLIT"]).entry.tolist() == [2, 0, 1]


def test_ranges_cover_m_up_to_but_not_including_m_end() -> None:
    t = table(
        [
            {"N": 4096, "M": 16, "M_END": 144, "BM": 64},
            {"N": 4096, "M": 144, "M_END": 961, "BM": 128},
            {"N": 8192, "M": 512, "BM": 256},  # no M_END: exactly M=512
        ]
    )
    s = shapes(
        [
            {"M": 15, "N": 4096},
            {"M": 16, "N": 4096},
            {"M": 143, "N": 4096},
            {"M": 144, "N": 4096},
            {"M": 960, "N": 4096},
            {"M": 961, "N": 4096},  # past the open end of the last range
            {"M": 512, "N": 8192},
            {"M": 513, "N": 8192},
            {"M": 100, "N": 8192},
        ]
    )
    found = dispatch(t, s, ["M", "N"])
    assert found.entry.tolist() == [-1, 0, 0, 1, 1, -1, 2, -1, -1]
    assert found.ranged == ("M",)


def test_the_end_column_follows_the_column_case() -> None:
    t = table([{"m": 1, "m_end": 10, "BM": 1}, {"m": 10, "M_END": 20, "BM": 2}])
    s = shapes([{"m": 5}, {"m": 10}, {"m": 15}])
    # the second entry's M_END is not m's end: it is an exact m=10 entry
    assert dispatch(t, s, ["m"]).entry.tolist() == [0, 1, -1]


def test_first_entry_wins_and_overlaps_are_counted() -> None:
    t = table(
        [
            {"M": 1, "M_END": 100, "BM": 1},
            {"M": 50, "M_END": 200, "BM": 2},
            {"M": 60, "BM": 3},
        ]
    )
    found = dispatch(t, shapes([{"M": 10}, {"M": 60}, {"M": 150}]), ["M"])
    assert found.entry.tolist() == [0, 0, 1]
    assert found.covering.tolist() == [1, 3, 1]


def test_merge_keys_give_entries_their_shape() -> None:
    header = "defaults: &defaults\n  N: 4096\n  K: 4096\n"
    text = header + (
        "params:\n"
        "- <<: *defaults\n  M: 1\n  M_END: 64\n  BM: 64\n"
        "- <<: *defaults\n  M: 64\n  M_END: 512\n  K: 2048\n  BM: 128\n"
    )
    t = parse_manifest(text, "table.yaml")
    s = shapes(
        [{"M": 8, "N": 4096, "K": 4096}, {"M": 70, "N": 4096, "K": 2048}]
        + [{"M": 70, "N": 4096, "K": 4096}]
    )
    assert dispatch(t, s, ["M", "N", "K"]).entry.tolist() == [0, 1, -1]


def test_a_shape_column_no_entry_carries_is_not_matched_on() -> None:
    t = table([{"M": 8, "BM": 1}])
    found = dispatch(t, shapes([{"M": 8, "dtype": "bf16"}]), ["M", "dtype"])
    assert found.entry.tolist() == [0]
    assert found.keys == ("M",)
    assert found.unkeyed == ("dtype",)


def test_a_key_an_entry_lacks_reads_as_null() -> None:
    t = table([{"M": 8, "BM": 1}, {"M": 8, "N": 64, "BM": 2}])
    s = pd.DataFrame({"M": [8, 8], "N": [64.0, math.nan]})
    assert dispatch(t, s, ["M", "N"]).entry.tolist() == [1, 0]


def test_a_value_that_is_not_a_number_lies_in_no_range() -> None:
    t = table([{"M": 0, "M_END": 100, "BM": 1}, {"M": "small", "BM": 2}])
    s = pd.DataFrame({"M": pd.Series([5, "small", None, True], dtype=object)})
    assert dispatch(t, s, ["M"]).entry.tolist() == [0, 1, -1, -1]


def test_no_entries_cover_nothing() -> None:
    t = parse_manifest("params: []\n", "empty.yaml")
    found = dispatch(t, shapes([{"M": 1}]), ["M"])
    assert found.entry.tolist() == [-1]
    assert found.unkeyed == ("M",)


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        (
            [{"M": 1, "BM": 1}, {"M_END": 64, "BM": 2}],
            "table.yaml:4: error: params[1] has M_END but no M: a range needs both "
            "ends",
        ),
        (
            [{"M": 1, "M_END": "big", "BM": 1}],
            "table.yaml:2: error: params[0]: the range [M, M_END) must have numbers "
            "at both ends, got [1, big)",
        ),
        (
            [{"M": True, "M_END": 4, "BM": 1}],
            "table.yaml:2: error: params[0]: the range [M, M_END) must have numbers "
            "at both ends, got [True, 4)",
        ),
    ],
)
def test_a_range_without_two_numbers_is_an_error_at_its_line(
    entries: list[dict[str, Any]], message: str
) -> None:
    with pytest.raises(KprofileError) as caught:
        dispatch(table(entries), shapes([{"M": 1}]), ["M"])
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("low", "high", "shown"),
    [(512, 16, "[512, 16)"), (64, 64, "[64, 64)"), (2**53 + 1, 2**53 + 1,
     f"[{2**53 + 1}, {2**53 + 1})"), (2**53 + 1, 2.0**53, f"[{2**53 + 1}, {2.0**53})")],
)  # fmt: skip
def test_an_empty_range_is_an_error_at_its_line(
    low: float, high: float, shown: str
) -> None:
    t = table([{"M": 1, "M_END": 8, "BM": 1}, {"M": low, "M_END": high, "BM": 2}])
    with pytest.raises(KprofileError) as caught:
        dispatch(t, shapes([{"M": 1}]), ["M"])
    assert str(caught.value) == (
        f"table.yaml:5: error: params[1]: the range [M, M_END) = {shown} is empty: "
        "M_END must be above M"
    )


def test_range_ends_and_values_are_exact_integers_past_2_to_the_53() -> None:
    """A float64 holds 2**53 but not 2**53 + 1: compared as floats, both ranges would
    hold 2**53 + 1 and the first would win."""
    big = 2**53
    t = table(
        [
            {"M": big, "M_END": big + 1, "BM": 1},
            {"M": big + 1, "M_END": big + 2, "BM": 2},
            {"M": big + 3, "BM": 3},
        ]
    )
    s = pd.DataFrame({"M": np.array([big, big + 1, big + 2, big + 3], dtype=np.int64)})
    found = dispatch(t, s, ["M"])
    assert found.entry.tolist() == [0, 1, -1, 2]
    assert found.covering.tolist() == [1, 1, 0, 1]


def test_a_float_end_and_an_integer_value_compare_exactly() -> None:
    """[0.5, 2**53) holds 2**53 - 1 and not 2**53 (nor 2**53 + 1, whose float is
    2**53)."""
    big = 2**53
    t = table([{"M": 0.5, "M_END": float(big), "BM": 1}])
    s = pd.DataFrame({"M": pd.Series([big - 1, big, big + 1, 1], dtype=object)})
    assert dispatch(t, s, ["M"]).entry.tolist() == [0, -1, -1, 0]


def test_many_entries_on_many_shapes_match_like_the_scan() -> None:
    """Buckets of exact keys, ranges that overlap (first wins) and gaps, at a size
    where every path of the matcher runs; against the scan written out."""
    rng = np.random.default_rng(7)
    entries: list[dict[str, Any]] = []
    for i in range(300):
        n = int(rng.integers(0, 5))
        if i % 3:
            low = int(rng.integers(0, 200))
            entries.append({"N": n, "M": low, "M_END": low + int(rng.integers(1, 40)),
                            "BM": i})  # fmt: skip
        else:
            entries.append({"N": n, "M": int(rng.integers(0, 200)), "BM": i})
    rows = [
        {"M": int(m), "N": int(n)} for m, n in rng.integers(0, 220, (500, 2)) % [220, 6]
    ]
    found = dispatch(table(entries), pd.DataFrame(rows), ["M", "N"])
    assert found.entry.tolist() == brute(entries, rows, ["M", "N"])
    counts = [sum(1 for e in entries if _covers(e, r)) for r in rows]
    assert found.covering.tolist() == counts


def covering(
    entries: list[dict[str, Any]], row: dict[str, Any], cols: list[str]
) -> int:
    """How many entries cover ``row``: the documented rule, entry by entry."""
    keys = [c for c in cols if any(c in e or c + "_END" in e for e in entries)]
    total = 0
    for entry in entries:
        ok = True
        for c in keys:
            if c + "_END" in entry:
                v = number(row[c])
                ok = v is not None and entry[c] <= v < entry[c + "_END"]
            else:
                ok = same(entry.get(c), row[c])
            if not ok:
                break
        total += ok
    return total


def _covers(entry: dict[str, Any], row: dict[str, Any]) -> bool:
    if entry["N"] != row["N"]:
        return False
    if "M_END" in entry:
        return bool(entry["M"] <= row["M"] < entry["M_END"])
    return bool(entry["M"] == row["M"])


# ------------------------------------------------------------- against brute force


values = st.sampled_from([1, 2, 3, 2.0, True, False, "2", None])
BIG = 2**53
points = st.one_of(
    st.integers(0, 12),
    st.sampled_from([0.5, 2.5, 12.0]),
    st.integers(BIG - 2, BIG + 3),  # where a float64 holds every other integer
    st.sampled_from([float(BIG), float(BIG) + 2.0]),
)


@st.composite
def key(draw: st.DrawFn, entry: dict[str, Any], column: str) -> None:
    """Give ``entry`` a range over ``column`` (never empty), an exact value or
    nothing."""
    kind = draw(st.sampled_from(["range", "exact", "missing"]))
    if kind == "range":
        low = draw(points)
        high = low + draw(st.integers(1, 6))
        assume(high > low)  # 2.0**53 + 1 is 2.0**53
        entry[column], entry[column + "_END"] = low, high
    elif kind == "exact":
        entry[column] = draw(st.one_of(points, values))


@st.composite
def dispatch_cases(
    draw: st.DrawFn,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Tables with ranges over M, over N, over both (the match matrix) or neither."""
    entries = []
    for i in range(draw(st.integers(0, 6))):
        entry: dict[str, Any] = {"BM": i}
        draw(key(entry, "M"))
        if draw(st.booleans()):
            draw(key(entry, "N"))
        entries.append(entry)
    rows = [
        {"M": draw(st.one_of(points, values)), "N": draw(st.one_of(points, values))}
        for _ in range(draw(st.integers(1, 8)))
    ]
    return entries, rows


@settings(max_examples=examples(600))
@given(dispatch_cases())
def test_dispatch_equals_a_brute_force_scan(
    case: tuple[list[dict[str, Any]], list[dict[str, Any]]],
) -> None:
    entries, rows = case
    t = table(entries)
    frame = pd.DataFrame(
        {c: pd.Series([r[c] for r in rows], dtype=object) for c in ("M", "N")}
    )
    found = dispatch(t, frame, ["M", "N"])
    assert found.entry.tolist() == brute(entries, rows, ["M", "N"])
    assert found.covering.tolist() == [covering(entries, r, ["M", "N"]) for r in rows]


@settings(max_examples=examples(200))
@given(dispatch_cases())
def test_dispatch_is_the_same_in_chunks(
    case: tuple[list[dict[str, Any]], list[dict[str, Any]]],
) -> None:
    """The match matrix (two ranged columns) in chunks of one shape gives the same
    answer as in one chunk."""
    entries, rows = case
    t = table(entries)
    frame = pd.DataFrame(
        {c: pd.Series([r[c] for r in rows], dtype=object) for c in ("M", "N")}
    )
    whole = dispatch(t, frame, ["M", "N"])
    saved = module.CHUNK_CELLS
    module.CHUNK_CELLS = 1
    try:
        chunked = dispatch(t, frame, ["M", "N"])
    finally:
        module.CHUNK_CELLS = saved
    assert np.array_equal(whole.entry, chunked.entry)
    assert np.array_equal(whole.covering, chunked.covering)
