"""The byte-level token pass of spec decoding agrees with splitting each string in
Python, whatever the tokens' lengths, order, characters or hashes; numbers parsed
directly are the values ast.literal_eval gives."""

from __future__ import annotations

import ast
import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

import kprofile.inputs.spec as spec_module
import kprofile.inputs.specwords as words_module
from kprofile.inputs.spec import expand_specs
from kprofile.inputs.spectokens import chunk_tokens
from kprofile.inputs.specvalues import parse_value
from kprofile.inputs.specwords import spec_lengths


def _by_row(specs: list[Any]) -> dict[str, list[Any]]:
    """Each string split in Python, its tokens parsed with literal_eval by hand."""
    rows = []
    for spec in specs:
        row: dict[str, Any] = {}
        for token in spec.split("/")[1:] if isinstance(spec, str) else []:
            name, sep, text = token.partition("=")
            row[name.strip().removeprefix("$")] = (
                _literal(text.strip()) if sep else True
            )
        rows.append(row)
    names = list(dict.fromkeys(k for r in rows for k in r))
    return {n: [r.get(n) for r in rows] for n in names}


def _literal(text: str) -> Any:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text
    return value if isinstance(value, (bool, int, float, str)) else text


def _same(got: Any, expected: list[Any]) -> bool:
    values = [v.item() if isinstance(v, np.generic) else v for v in list(got)]
    for g, e in zip(values, expected, strict=True):
        if e is None:
            if not (g is None or g is pd.NA or (isinstance(g, float) and g != g)):
                return False
        elif isinstance(e, float) and math.isnan(e):
            if not (isinstance(g, float) and math.isnan(g)):
                return False
        elif type(g) is float and type(e) is int:  # a column of ints past int64
            if g != float(e):
                return False
        elif g != e or type(g) is not type(e):
            return False
    return True


def _check(specs: list[Any]) -> None:
    decoded = expand_specs(specs)
    expected = _by_row(specs)
    assert list(decoded.names) == list(expected)
    for name, values in expected.items():
        assert _same(decoded.columns[name], values), (name, specs)


names = st.sampled_from(["BM", "$M", "S", "A_VERY_LONG_PARAMETER_NAME", "", " X "])
texts = st.one_of(
    st.integers(-(2**70), 2**70).map(str),
    st.floats(allow_nan=False).map(repr),
    st.sampled_from(["True", "False", "ws", "'q'", "0x10", "007", "1_0", "-0", ""]),
    st.text("abc=/ 01.-", max_size=30),
    st.text(max_size=4),  # non-ASCII and NUL
)
tokens = st.one_of(st.tuples(names, texts).map(lambda t: f"{t[0]}={t[1]}"), names)
specs = st.lists(tokens, max_size=6).map(
    lambda ts: "stem" + "".join(f"/{t}" for t in ts)
)


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(st.one_of(specs, st.none()), min_size=1, max_size=20), st.integers(1, 4)
)
def test_decoding_matches_splitting_each_row(rows: list[Any], chunk: int) -> None:
    old = spec_module.CHUNK_ROWS
    spec_module.CHUNK_ROWS = chunk
    try:
        _check(rows)
    finally:
        spec_module.CHUNK_ROWS = old


@pytest.mark.parametrize(
    "rows",
    [
        ["b/S=" + "x" * 100, "b/S=y"],  # a token past MAX_TOKEN_BYTES
        ["b/S=é/T=1", "b/S=e/T=2"],  # non-ASCII
        ["b/S=a\0b/T=1", "b/S=a/T=2"],  # a NUL inside a string
        ["b/BM=1/BM=2", "b/BM=3"],  # a name twice: the later token wins
        ["b/A=1/B=2", "b/B=3/A=4", "b", ""],  # names in another order, no tokens
        ["b//A=1", "b/A=2/"],  # empty tokens
    ],
)
def test_strings_the_byte_pass_hands_back_decode_alike(rows: list[Any]) -> None:
    _check(rows)


def test_a_hash_collision_never_merges_two_tokens(monkeypatch: Any) -> None:
    """With every hash made equal, tokens of one length share a hash: the check of
    every token against its hash's first must find it and hand the chunk back (rows
    of different token counts: the row-by-row pass, not ``specgrid``'s keys)."""
    monkeypatch.setattr(words_module, "_MIX", np.uint64(0))
    chunk = np.array(["b/BM=64/S=ws", "b/BM=32/S=ab/T=1"], dtype=object)
    assert chunk_tokens(chunk, spec_lengths(chunk)) is None
    _check(list(chunk))


def test_the_byte_pass_codes_each_distinct_token_once() -> None:
    long = "SCHEDULE=ws_cooperative_with_a_longer_name"
    chunk = np.array([f"b/BM=64/{long}", f"b/BM=128/{long}", "b/BM=64"], dtype=object)
    found = chunk_tokens(chunk, spec_lengths(chunk))
    assert found is not None
    assert found.texts == ["BM=64", long, "BM=128"]
    assert found.codes.tolist() == [0, 1, 2, 1, 0]
    assert found.rows.tolist() == [0, 0, 1, 1, 2]


numbers = st.one_of(
    st.from_regex(r"-?[0-9]{1,25}", fullmatch=True),
    st.from_regex(r"-?[0-9]*\.[0-9]*([eE][-+]?[0-9]{1,4})?", fullmatch=True),
    st.from_regex(r"-?[0-9]+[eE][-+]?[0-9]{1,4}", fullmatch=True),
    st.floats().map(repr),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*", fullmatch=True),
    st.sampled_from(["None", "True", "False", "if", "not", "lambda", "await", "é"]),
    st.text(max_size=8),
)


@settings(max_examples=examples(500), deadline=None)
@given(numbers)
def test_values_parse_as_literal_eval_reads_them(text: str) -> None:
    got, expected = parse_value(text), _literal(text)
    assert type(got) is type(expected)
    assert got == expected or (got != got and expected != expected)


@pytest.mark.parametrize("other_name", [False, True])
def test_a_value_every_row_hides_does_not_decide_the_type(other_name: bool) -> None:
    """``b/BM=ws/BM=2``: the later token wins, so ``ws`` is no row's value and the
    column is int64, as if ``ws`` were never written (the skipped pass over the ids
    that finds the used values must not skip this case)."""
    rows = ["b/BM=ws/BM=2", "b/X=1/BM=3" if other_name else "b/BM=3"]
    decoded = expand_specs(rows)
    assert decoded.columns["BM"].dtype == np.int64
    assert decoded.columns["BM"].tolist() == [2, 3]


def test_rows_are_told_apart_by_their_lengths_not_by_a_separator() -> None:
    """The strings are joined with ``/`` and each row's stem found from its length:
    a NUL or an empty string in the chunk is text like any other (no Python path),
    and a chunk whose rows all have the same token count reports it."""
    chunk = np.array(["b/S=a\0b/T=1", "", "b/S=a/T=2", "c"], dtype=object)
    found = chunk_tokens(chunk, spec_lengths(chunk))
    assert found is not None
    assert found.texts == ["S=a\0b", "T=1", "S=a", "T=2"]
    assert found.per_row.tolist() == [2, 0, 2, 0] and found.width == -1
    assert found.rows.tolist() == [0, 0, 2, 2]
    uniform = np.array(["b/S=1/T=22", "stem/S=333/T=4"], dtype=object)
    found = chunk_tokens(uniform, spec_lengths(uniform))
    assert found is not None and found.width == 2
    assert found.texts == ["S=1", "T=22", "S=333", "T=4"]
    assert found.codes.tolist() == [0, 1, 2, 3]
