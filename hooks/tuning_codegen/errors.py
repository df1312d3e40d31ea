"""One error type for every user mistake, formatted ``path[:line]: error: message``."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import NamedTuple

# Exit codes, decided here and nowhere else.
EXIT_OK = 0
EXIT_STALE = 1
EXIT_INPUT_ERROR = 2
EXIT_INTERNAL_ERROR = 3
EXIT_SIGNAL = 128  # plus the signal's number: 130 for Ctrl-C (SIGINT), as shells do

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
# What a printed path must not carry raw: every line break and control character, tab
# included, and the lone surrogates that stand for the undecodable bytes of a file name
# (``os.fsdecode``), which no terminal or log can show.
_UNPRINTABLE = frozenset(LINE_BREAKS) | CONTROLS | {"\t"}
_C_ESCAPES = {7: "a", 8: "b", 9: "t", 10: "n", 11: "v", 12: "f", 13: "r"}


def _unprintable(char: str) -> bool:
    return char in _UNPRINTABLE or "\udc80" <= char <= "\udcff"


def one_line(text: str) -> str:
    """``text`` as one line that shows what it holds: each line break, tab and control
    character written as its escape (``\\n``, ``\\x1b``), and the undecodable bytes of
    a file name as ``\\udc80``-style escapes. Every string that came from an input goes
    through here before it reaches a terminal, stdout or stderr."""
    return text.translate(_ESCAPES).encode("utf-8", "backslashreplace").decode()


def quote_path(path: str) -> str:
    """``path`` as git prints it (``core.quotePath``): unchanged when every character
    is printable and none is ``"`` or a backslash; else in double quotes, with C
    escapes (newline as backslash-n, tab as backslash-t, ...) and octal for the bytes
    of other unprintable characters, the undecodable bytes of a file name included.
    The one spelling of a path in output: no file name can start a line of it."""
    if not any(_unprintable(char) or char in '"\\' for char in path):
        return path
    quoted = []
    for char in path:
        if char in '"\\':
            quoted.append("\\" + char)
        elif not _unprintable(char):
            quoted.append(char)
        else:
            for byte in char.encode("utf-8", "surrogateescape"):
                quoted.append("\\" + _C_ESCAPES.get(byte, f"{byte:03o}"))
    return '"' + "".join(quoted) + '"'


class Location(NamedTuple):
    path: str
    line: int | None = None

    def __str__(self) -> str:
        path = quote_path(self.path)
        return path if self.line is None else f"{path}:{self.line}"


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


class InputWarning(NamedTuple):
    """Something in the input that is likely a mistake but not an error: printed as
    one line, ``path[:line]: warning: message``; the exit code does not change."""

    location: Location
    message: str

    def __str__(self) -> str:
        return one_line(f"{self.location}: warning: {self.message}")


def warn(warnings: Iterable[InputWarning]) -> None:
    """Print each warning on stderr, now."""
    for warning in warnings:
        print(warning, file=sys.stderr)


class InputErrors(Exception):
    """Several independent errors found in one run, all reported together."""

    def __init__(self, errors: Iterable[InputError]) -> None:
        self.errors = tuple(errors)
        super().__init__("\n".join(str(e) for e in self.errors))


def interrupted(prog: str, signum: int) -> int:
    """Say which signal stopped ``prog``; the exit code for it."""
    import signal  # not needed by a hook run that has nothing to do

    name = signal.Signals(signum).name
    print(f"{prog}: error: interrupted by {name}", file=sys.stderr)
    return EXIT_SIGNAL + signum


class Interrupted(BaseException):
    """A terminating signal arrived while files were being written (raised once
    every target is as it was, or every rename is done)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum
