"""The exact keys of a uniform chunk (``specgrid``) tell tokens apart as the hashed
row-by-row pass does: the same codes and texts, whatever the tokens' lengths, shared
prefixes, NULs or hashes; the cases each key is built for, and each reason to hand a
chunk back, are exercised by name."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

import kprofile.inputs.spectokens as tokens_module
import kprofile.inputs.specwords as words_module
from kprofile.inputs.specgrid import grid_tokens
from kprofile.inputs.spectokens import chunk_tokens
from kprofile.inputs.specwords import spec_lengths


def _found(rows: list[str]) -> Any:
    chunk = np.array(rows, dtype=object)
    return chunk_tokens(chunk, spec_lengths(chunk))


def _grid_of(rows: list[str]) -> Any:
    """``grid_tokens`` on ``rows`` as ``chunk_tokens`` hands them to it."""
    chunk = np.array(rows, dtype=object)
    joined = "/".join(rows)
    raw = (joined + "/" + "\0" * 8).encode("ascii")
    data = np.frombuffer(raw, dtype=np.uint8, count=len(joined) + 1)
    ends = np.flatnonzero(data == ord("/"))
    grid = tokens_module._grid(ends, spec_lengths(chunk))
    assert grid is not None, "not a uniform chunk"
    return grid_tokens(raw, joined, grid)


def _by_splitting(rows: list[str]) -> tuple[list[int], list[str]]:
    """Codes by first appearance, row by row, from Python's split."""
    texts: dict[str, int] = {}
    codes = [texts.setdefault(t, len(texts)) for r in rows for t in r.split("/")[1:]]
    return codes, list(texts)


# names that share their first 8 bytes with others, or not, long and short
_names = st.sampled_from(
    ["BM", "$M", "CLUSTER_M", "CLUSTER_N", "AAAAAAAA", "AAAAAAAB", "SCHEDULE", ""]
)
_values = st.one_of(
    st.text("ab1=_\0/x", max_size=3).map(lambda t: t.replace("/", "")),
    st.sampled_from(["1", "16", "ws", "ws_cooperative", "default", "x" * 50]),
)


@st.composite
def _uniform(draw: Any) -> list[str]:
    """Rows with the same token count, each column mostly one name."""
    width = draw(st.integers(1, 5))
    names = draw(st.lists(_names, min_size=width, max_size=width))
    rows = []
    for _ in range(draw(st.integers(1, 12))):
        tokens = [
            draw(st.one_of(_names, st.just(name))) + "=" + draw(_values)
            for name in names
        ]
        rows.append(draw(st.sampled_from(["b", "", "stem"])) + "/" + "/".join(tokens))
    return rows


@settings(max_examples=examples(400), deadline=None)
@given(_uniform())
def test_exact_keys_code_tokens_as_splitting_does(rows: list[str]) -> None:
    found = _grid_of(rows)
    columns = [{r.split("/")[1:][k] for r in rows} for k in range(rows[0].count("/"))]
    if sum(map(len, columns)) == len(set().union(*columns)):
        # no token in two columns (ASCII, none past 64 bytes): never handed back
        assert found is not None
    if found is not None:
        codes, texts = found
        assert (codes.tolist(), texts) == _by_splitting(rows)
    whole = _found(rows)  # and what chunk_tokens gives, handed back or not
    assert whole is not None
    assert (whole.codes.tolist(), whole.texts) == _by_splitting(rows)


@pytest.mark.parametrize(
    "rows",
    [
        # two long columns: the same last 8 bytes under two different first 8
        ["b/AAAAAAAAxxxxxxxx/BBBBBBBBxxxxxxxx", "b/AAAAAAAAxyz/BBBAAAAAxyz"],
        # one column of those: not one shared first 8 bytes, so hashed
        ["b/AAAAAAAAxxxxxxxx", "b/BBBBBBBBxxxxxxxx", "b/AAAAAAAAxyz", "b/BBBAAAAAxyz"],
        # one column: the same first 8 bytes, lengths 8 to 16
        ["b/CLUSTER_M=1", "b/CLUSTER_M=16", "b/CLUSTER_", "b/CLUSTER_M=1xxxxx"],
        # short tokens that differ only by a trailing NUL or by length
        ["b/S=a\0/S=a", "b/S=a/S=a\0", "b//S="],
        # more shared prefixes than the key has room for: the rest hashed (the
        # same last 8 bytes in every column)
        ["b/" + "/".join(chr(65 + k) * 8 + "x" * 8 for k in range(10)) + "/xxxxxxxx"]
        * 2,
        # past 16 bytes the first and last 8 miss the middle: hashed
        ["b/SCHEDULE=ws_cooperative", "b/SCHEDULE=ws_zzzperative"],
        # a column over 16 bytes, and one of 8 and 9 bytes with different starts
        ["b/SCHEDULE=ws_cooperative/STAGES=2", "b/SCHEDULE=ws/STAGES=10"],
    ],
)
def test_each_kind_of_key_tells_tokens_apart(rows: list[str]) -> None:
    found = _grid_of(rows)
    assert found is not None
    codes, texts = found
    assert (codes.tolist(), texts) == _by_splitting(rows)


def test_one_token_under_two_kinds_of_key_hands_the_chunk_back() -> None:
    """``BM=`` in a short column and in a hashed one would get two codes: the row
    pass codes it once."""
    rows = ["b/BM=/BM=", "b/BM=/BM=ws_cooperative"]
    assert _grid_of(rows) is None
    found = _found(rows)
    assert found is not None
    assert (found.codes.tolist(), found.texts) == _by_splitting(rows)


def test_a_token_past_the_limit_hands_the_chunk_back() -> None:
    assert _grid_of(["b/S=" + "x" * 70, "b/S=y"]) is None


def test_a_hash_collision_in_a_hashed_column_hands_the_chunk_back(
    monkeypatch: Any,
) -> None:
    """With every hash made equal, the hashed column's different tokens share a
    key: the comparison with each code's token must find it."""
    rows = ["b/BM=1/S=" + "p" * 20, "b/BM=2/S=" + "q" * 20]
    monkeypatch.setattr(words_module, "_MIX", np.uint64(0))
    assert _grid_of(rows) is None
    assert _found(rows) is None  # and the row-by-row pass finds it too


def test_a_uniform_chunk_takes_the_exact_keys(monkeypatch: Any) -> None:
    """chunk_tokens uses grid_tokens for a uniform chunk (and the row-by-row pass,
    which the other tests compare it with, when it hands the chunk back)."""
    rows = ["b/BM=64/CLUSTER_M=1", "b/BM=128/CLUSTER_M=2", "b/BM=64/CLUSTER_M=1"]
    calls = []

    def counted(*args: Any) -> Any:
        calls.append(args)
        return grid_tokens(*args)

    monkeypatch.setattr(tokens_module, "grid_tokens", counted)
    found = _found(rows)
    assert len(calls) == 1 and found is not None
    assert (found.codes.tolist(), found.texts) == _by_splitting(rows)
    assert found.width == 2
    monkeypatch.setattr(tokens_module, "grid_tokens", lambda *args: None)
    again = _found(rows)
    assert again is not None
    assert (again.codes.tolist(), again.texts) == (found.codes.tolist(), found.texts)
