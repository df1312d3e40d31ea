"""One error type for every user mistake, formatted ``path[:line]: error: message``."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from types import TracebackType
from typing import NamedTuple

from tuning_codegen.printable import (
    CONTROLS,
    INVISIBLE,
    LINE_BREAKS,
    UNSAFE_IN_SOURCE,
    escape_commands,
    one_line,
    quote_path,
)

__all__ = [
    "CONTROLS",
    "INVISIBLE",
    "LINE_BREAKS",
    "UNSAFE_IN_SOURCE",
    "escape_commands",
    "one_line",
    "quote_path",
]

# Exit codes, decided here and nowhere else.
EXIT_OK = 0
EXIT_STALE = 1
EXIT_INPUT_ERROR = 2
EXIT_INTERNAL_ERROR = 3
EXIT_SIGNAL = 128  # plus the signal's number: 130 for Ctrl-C (SIGINT), as shells do


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


_HEARING: list[Callable[[InputWarning], None]] = []  # besides stderr, innermost last


def warn(warnings: Iterable[InputWarning]) -> None:
    """Print each warning on stderr, now, and tell it to whoever is hearing them
    (``heard_by``: an output format that shows warnings its own way)."""
    for warning in warnings:
        print(warning, file=sys.stderr)
        for hear in _HEARING:
            hear(warning)


class heard_by:  # noqa: N801 (used as a function: ``with heard_by(reporter.warned):``)
    """While the block runs, every warning is also told to ``hear``."""

    def __init__(self, hear: Callable[[InputWarning], None]) -> None:
        self.hear = hear

    def __enter__(self) -> None:
        _HEARING.append(self.hear)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        _HEARING.remove(self.hear)


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


class memory_named:  # noqa: N801 (used as a function: ``with memory_named(path):``)
    """Running out of memory while reading ``path`` is that input's error (exit 2,
    one line naming it), not a bug: an input within every limit can still make more
    than this machine holds. (A class: it is entered once per manifest.)"""

    def __init__(self, path: str, what: str = "read it") -> None:
        self.path = path
        self.what = what

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if kind is not None and issubclass(kind, MemoryError):
            raise InputError(
                self.path,
                f"not enough memory to {self.what}: it makes more than this machine "
                "can hold; split it, or give the run more memory",
            ) from None
