"""One error type for every user mistake, formatted ``path[:line]: error: message``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

# Exit codes, decided here and nowhere else.
EXIT_OK = 0
EXIT_STALE = 1
EXIT_INPUT_ERROR = 2


@dataclass(frozen=True)
class Location:
    path: str
    line: int | None = None

    def __str__(self) -> str:
        return self.path if self.line is None else f"{self.path}:{self.line}"


class CodegenError(Exception):
    """A problem with the user's input; never a bug in this program."""

    def __init__(self, path: str, message: str, *, line: int | None = None) -> None:
        super().__init__(message)
        self.location = Location(str(path), line)
        self.message = message

    def __str__(self) -> str:
        return f"{self.location}: error: {self.message}"


class CodegenErrors(Exception):
    """Several independent errors found in one run, all reported together."""

    def __init__(self, errors: Iterable[CodegenError]) -> None:
        self.errors = tuple(errors)
        super().__init__("\n".join(str(e) for e in self.errors))
