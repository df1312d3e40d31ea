"""kprofile's error types: one line, ``path[:line]: error: message``, exit code 2."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tuning_codegen.errors import InputError, one_line

PROG = "kprofile"
MOST_NAMES = 20  # the names an error about an unknown one lists, at most


class KprofileError(InputError):
    """A problem with the user's input or options; never a bug in this program.

    It shares ``tuning_codegen.errors.InputError``'s format, so errors raised while
    reading a manifest through ``tuning_codegen`` are reported the same way.
    """


class Notice(str):
    """A line for stderr that only advises (the metric chosen by default, how to
    split a file's shapes): said once per run however many times it is made, and
    not at all with ``-q``. Warnings and what was written are plain ``str`` notes."""


def usage_error(message: str) -> KprofileError:
    """An error about the command line itself, reported as ``kprofile: error: ...``."""
    return KprofileError(PROG, message)


def column_list(names: Iterable[object], label: str = "columns") -> str:
    """``columns: M, N, K, BM, ...``: what an error about an unknown column offers
    instead, every option's the same way. Each name once, in the order given (the
    caller puts first what the option usually names), at most ``MOST_NAMES`` of
    them, then how many more; a name a comma or edge blank would blur is quoted."""
    unique = list(dict.fromkeys(str(name) for name in names))
    shown = ", ".join(_name(name) for name in unique[:MOST_NAMES]) or "none"
    more = len(unique) - MOST_NAMES
    return f"{label}: {shown}" + (f" and {more} more" if more > 0 else "")


def _name(name: str) -> str:
    return repr(name) if not name or "," in name or name != name.strip() else name


@dataclass(frozen=True)
class InvalidInput:
    """An input file that could not be used; it is skipped and counted."""

    kind: str  # pkl, csv or yaml
    path: str
    reason: str
    line: int | None = None  # where the mistake is, when the reader knows

    def __str__(self) -> str:
        if self.line is not None:  # path:line: error: ..., as every located error
            return one_line(f"{self.path}:{self.line}: error: {self.reason}")
        return one_line(f"Invalid {self.kind} [{self.path}]: {self.reason}")


class InvalidInputError(Exception):
    """Raised by a loader; carries the InvalidInput record to report."""

    def __init__(self, record: InvalidInput) -> None:
        super().__init__(str(record))
        self.record = record
