"""The shared colouring: when to colour, and a diff coloured line by line."""

from __future__ import annotations

import io
import os

import pytest

from tuning_codegen.colour import (
    BOLD,
    CYAN,
    GREEN,
    RED,
    RESET,
    colour_diff,
    wants_colour,
)
from tuning_codegen.errors import one_line


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("stream", "choice", "environ", "expected"),
    [
        (Terminal(), "auto", {}, True),
        (io.StringIO(), "auto", {}, False),
        (Terminal(), "auto", {"NO_COLOR": "1"}, False),
        (Terminal(), "auto", {"NO_COLOR": ""}, True),
        (io.StringIO(), "always", {"NO_COLOR": "1"}, True),
        (Terminal(), "never", {}, False),
    ],
)
def test_wants_colour(
    stream: io.StringIO, choice: str, environ: dict[str, str], expected: bool
) -> None:
    assert wants_colour(stream, choice, environ) is expected


def test_colour_diff_marks_each_kind_of_line_and_keeps_the_endings() -> None:
    diff = "--- a\r\n+++ b\r\n@@ -1 +1 @@\r\n-old\r\n+new\r\n same\r\n"
    assert colour_diff(diff) == (
        f"{BOLD}--- a{RESET}\r\n{BOLD}+++ b{RESET}\r\n{CYAN}@@ -1 +1 @@{RESET}\r\n"
        f"{RED}-old{RESET}\r\n{GREEN}+new{RESET}\r\n same\r\n"
    )


def test_one_line_escapes_every_control_a_terminal_obeys() -> None:
    text = "a\x1b[2J\x1b]0;t\x07\tb\u202ec\x9b\x7f\n"
    assert one_line(text) == r"a\x1b[2J\x1b]0;t\x07\tb\u202ec\x9b\x7f\n"
    assert os.linesep not in one_line(text)
