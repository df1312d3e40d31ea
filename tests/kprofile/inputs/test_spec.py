"""Spec strings become typed columns: literals via ast.literal_eval, '$' dropped, vectorized."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

import kprofile.inputs.spec as spec_module
from kprofile.inputs.spec import expand_specs
from kprofile.inputs.specvalues import parse_token, parse_tokens, parse_value

VALUES = [
    ("128", 128),
    ("-3", -3),
    ("0.5", 0.5),
    ("1e-3", 0.001),
    ("True", True),
    ("False", False),
    ("'quoted'", "quoted"),
    ("bfloat16", "bfloat16"),
    ("DType.bfloat16", "DType.bfloat16"),
    ("__import__('os').system('true')", "__import__('os').system('true')"),
    ("[1, 2]", "[1, 2]"),
    ("(1, 2)", "(1, 2)"),
    ("1+2j", "1+2j"),
    ("", ""),
    ("9" * 5000, "9" * 5000),
]


@pytest.mark.parametrize(("text", "expected"), VALUES)
def test_parse_value(text: str, expected: Any) -> None:
    value = parse_value(text)
    assert value == expected and type(value) is type(expected)


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("BM=128", ("BM", 128)),
        ("$M=256", ("M", 256)),
        ("FLAG", ("FLAG", True)),
        ("X=a=b", ("X", "a=b")),
    ],
)
def test_parse_token(token: str, expected: tuple[str, Any]) -> None:
    assert parse_token(token) == expected


def test_parse_spec_skips_the_stem() -> None:
    assert parse_spec("bench/BM=128/SWAP=True/S=ws/$M=256") == {
        "BM": 128,
        "SWAP": True,
        "S": "ws",
        "M": 256,
    }


def test_uniform_specs_become_narrow_dtypes() -> None:
    specs = [
        "b/BM=128/SWAP=True/S=ws/R=0.5/$M=256",
        "b/BM=64/SWAP=False/S=default/R=1/$M=256",
    ]
    decoded = expand_specs(specs)
    assert decoded.names == ("BM", "SWAP", "S", "R", "M")
    assert decoded.columns["BM"].dtype == np.int64 and list(decoded.columns["BM"]) == [
        128,
        64,
    ]
    assert decoded.columns["SWAP"].dtype == bool
    assert list(decoded.columns["S"]) == ["ws", "default"]
    assert decoded.columns["R"].dtype == np.float64 and list(decoded.columns["R"]) == [
        0.5,
        1.0,
    ]


def test_missing_parameters_use_nullable_dtypes() -> None:
    decoded = expand_specs(["b/BM=1/F=True/S=x", "b/S=y", None])
    assert str(decoded.columns["BM"].dtype) == "Int64"
    assert str(decoded.columns["F"].dtype) == "boolean"
    assert list(decoded.columns["S"]) == ["x", "y", None]


def parse_spec(spec: str) -> dict[str, Any]:
    """The per-row reference: one spec string as a dict, token by token."""
    return dict(parse_token(t) for t in spec.split("/")[1:] if t)


def _reference(specs: list[Any]) -> dict[str, list[Any]]:
    rows = [parse_spec(s) if isinstance(s, str) else {} for s in specs]
    names = list(dict.fromkeys(k for r in rows for k in r))
    return {n: [r.get(n) for r in rows] for n in names}


def _normal(values: Any) -> list[Any]:
    out: list[Any] = []
    for v in pd.Series(values, dtype=object).tolist():
        if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
            out.append(None)
        elif isinstance(v, np.generic):
            out.append(v.item())
        else:
            out.append(v)
    return out


names = st.sampled_from(["BM", "BN", "$M", "S", "F"])
values = st.one_of(
    st.integers(-5, 300),
    st.booleans(),
    st.sampled_from(["ws", "default", "0x10", "1.5", "'q'"]),
)
spec_strings = st.lists(st.tuples(names, values), max_size=5).map(
    lambda kv: "stem" + "".join(f"/{k}={v}" for k, v in kv)
)


@settings(max_examples=examples(150), deadline=None)
@given(
    st.lists(spec_strings, min_size=1, max_size=12), st.sampled_from([1, 2, 3, 1 << 14])
)
def test_vectorized_decoding_matches_parsing_each_row(
    specs: list[str], chunk: int
) -> None:
    old = spec_module.CHUNK_ROWS
    spec_module.CHUNK_ROWS = chunk
    try:
        decoded = expand_specs(specs)
    finally:
        spec_module.CHUNK_ROWS = old
    reference = _reference(specs)
    assert list(decoded.names) == list(reference)
    for name, expected in reference.items():
        got = _normal(decoded.columns[name])
        assert [
            g == e
            and (type(g) is type(e) or {type(g), type(e)} <= {int, float})
            or (g is None and e is None)
            for g, e in zip(got, expected)
        ] == [True] * len(expected), name


token_texts = st.one_of(
    st.from_regex(r"\$?[A-Z_]{1,3}=-?[0-9]{1,22}", fullmatch=True),
    st.from_regex(r"[A-Z]{1,3}=[A-Za-z_][A-Za-z0-9_.]{0,8}", fullmatch=True),
    st.sampled_from(
        ["S=True", "S=False", "S=None", "S=", "S", "S=1.5", "S= 7 ", "S=a\nb"]
    ),
    st.sampled_from(["S=1\n2", "S=-0", "S=007", "S=é", "S='q'", "S=a..b", "S=_"]),
    st.text(max_size=6),
)


@settings(max_examples=examples(500), deadline=None)
@given(st.lists(token_texts, max_size=30))
def test_tokens_parsed_together_are_parsed_as_one_by_one(tokens: list[str]) -> None:
    """The bulk classification (all integers, all names) gives each value and its
    type exactly as ``parse_token`` does."""
    together = parse_tokens(tokens)
    alone = [parse_token(t) for t in tokens]
    assert [(n, v, type(v)) for n, v in together] == [(n, v, type(v)) for n, v in alone]
