"""Splicing a region between marker lines; every other byte is kept."""

from __future__ import annotations

import pytest

from tuning_codegen.errors import InputError
from tuning_codegen.splice import replace_region

CASES = [
    # (name, text, expected) with region "X\nY"
    (
        "lf",
        "a\n  // BEGIN\nold\nold\n  // END\nz\n",
        "a\n  // BEGIN\nX\nY\n  // END\nz\n",
    ),
    ("empty region", "BEGIN\nEND\n", "BEGIN\nX\nY\nEND\n"),
    (
        "crlf",
        "a\r\nBEGIN\r\nold\r\nEND\r\nz\r\n",
        "a\r\nBEGIN\r\nX\r\nY\r\nEND\r\nz\r\n",
    ),
    ("no final newline", "BEGIN\nold\nEND", "BEGIN\nX\nY\nEND"),
    ("crlf no final newline", "BEGIN\r\nEND", "BEGIN\r\nX\r\nY\r\nEND"),
    (
        "mixed endings outside kept",
        "a\r\nBEGIN\nold\nEND\r\nb\n",
        "a\r\nBEGIN\nX\nY\nEND\r\nb\n",
    ),
    (
        "markers inside longer lines",
        "x = 1  # BEGIN here\n\n# END here\n",
        "x = 1  # BEGIN here\nX\nY\n# END here\n",
    ),
    # Lines end where str.splitlines ends them, as in the reference: the region
    # starts after the form feed, U+2028, NEL ... that ends the marker's line.
    (
        "form feed ends a line",
        "\x0cBEGIN\x0c\nold\nEND\n",
        "\x0cBEGIN\x0cX\nY\nEND\n",
    ),
    (
        "line separator ends a line",
        "BEGIN\u2028old\nEND\u2029tail\n",
        "BEGIN\u2028X\nY\nEND\u2029tail\n",
    ),
    ("nel ends a line", "a\x85BEGIN\nold\x85END\n", "a\x85BEGIN\nX\nY\nEND\n"),
    ("cr only", "a\rBEGIN\rold\rEND\rz\r", "a\rBEGIN\rX\rY\rEND\rz\r"),
    ("cr only no final newline", "BEGIN\rEND", "BEGIN\rX\rY\rEND"),
]


@pytest.mark.parametrize(("name", "text", "expected"), CASES, ids=[c[0] for c in CASES])
def test_replace_region(name: str, text: str, expected: str) -> None:
    assert replace_region(text, "BEGIN", "END", "X\nY") == expected


def test_already_fresh_is_identity() -> None:
    text = "head\nBEGIN\nX\nY\nEND\ntail\n"
    assert replace_region(text, "BEGIN", "END", "X\nY") is not None
    assert replace_region(text, "BEGIN", "END", "X\nY") == text


ERRORS = [
    ("a\nb\n", "t.mojo: error: begin marker 'BEGIN' not found"),
    ("BEGIN\nb\n", "t.mojo: error: end marker 'END' not found"),
    (
        "BEGIN\nBEGIN\nEND\n",
        "t.mojo:2: error: begin marker 'BEGIN' occurs 2 times (lines 1 and 2); it must occur once",
    ),
    (
        "BEGIN\nEND\nx END\n",
        "t.mojo:3: error: end marker 'END' occurs 2 times (lines 2 and 3); it must occur once",
    ),
    (
        "END\nBEGIN\n",
        "t.mojo:1: error: end marker 'END' (line 1) must come after begin marker 'BEGIN' (line 2)",
    ),
    (
        "BEGIN END\n",
        "t.mojo:1: error: end marker 'END' (line 1) must come after begin marker 'BEGIN' (line 1)",
    ),
]


@pytest.mark.parametrize(("text", "message"), ERRORS)
def test_marker_errors(text: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        replace_region(text, "BEGIN", "END", "X", path="t.mojo")
    assert str(info.value) == message
