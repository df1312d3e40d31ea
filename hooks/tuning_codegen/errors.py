"""One error type for every user mistake, formatted ``path[:line]: error: message``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

# Exit codes, decided here and nowhere else.
EXIT_OK = 0
EXIT_STALE = 1
EXIT_INPUT_ERROR = 2
EXIT_INTERNAL_ERROR = 3

# Every character ``str.splitlines`` treats as a line boundary: what must never reach a
# one-line message, a generated line or a marker.
LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
# Characters a value must not bring into source code either: the other C0 and C1
# controls (tab excepted) and the bidirectional controls that make code read
# differently from what it is ("Trojan Source").
CONTROLS = frozenset(
    chr(c)
    for c in (*range(0x20), 0x7F, *range(0x80, 0xA0), 0x200E, 0x200F)
    if chr(c) not in LINE_BREAKS and chr(c) != "\t"
) | frozenset(map(chr, (*range(0x202A, 0x202F), *range(0x2066, 0x206A))))
# What a line of terminal output must not carry raw: a line break, a control character
# (ESC starts the sequences that clear the screen, retitle the window or move the
# cursor), or a tab (it breaks a table's columns). Each is written as Python writes it
# in a string literal: ``\\n``, ``\\t``, ``\\x1b``, ``\\u202e``.
_ESCAPES = {ord(c): repr(c)[1:-1] for c in (*LINE_BREAKS, "\t", *CONTROLS)}


def one_line(text: str) -> str:
    """``text`` as one line that shows what it holds: each line break, tab and control
    character written as its escape (``\\n``, ``\\x1b``). Every string that came from
    an input goes through here before it reaches a terminal, stdout or stderr."""
    return text.translate(_ESCAPES)


@dataclass(frozen=True)
class Location:
    path: str
    line: int | None = None

    def __str__(self) -> str:
        return self.path if self.line is None else f"{self.path}:{self.line}"


class InputError(Exception):
    """A problem with the user's input; never a bug in this program.

    Printed as exactly one line: line breaks in the path or the message (which may
    quote the user's text) are escaped.
    """

    def __init__(self, path: str, message: str, *, line: int | None = None) -> None:
        super().__init__(message)
        self.location = Location(str(path), line)
        self.message = message

    def __str__(self) -> str:
        return one_line(f"{self.location}: error: {self.message}")


class InputErrors(Exception):
    """Several independent errors found in one run, all reported together."""

    def __init__(self, errors: Iterable[InputError]) -> None:
        self.errors = tuple(errors)
        super().__init__("\n".join(str(e) for e in self.errors))


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived while files were being written (after clean-up)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum
