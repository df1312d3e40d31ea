"""How a long step says how far it is, without knowing who listens.

A ``Progress`` is called with a label and, when it is known, the number of units the
step has (files, groups, parameters); it returns a context manager that yields an
``advance(units)`` function for the step to call as it goes. ``SILENT`` listens to
nothing: it is what every function takes by default, so the analysis stays pure and
testable, and only the command's edge (``kprofile.run``) passes a display
(``kprofile.render.progress``) when stderr is a terminal and ``-q`` is not given.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Protocol

Advance = Callable[[int], None]


class Progress(Protocol):
    def __call__(
        self, label: str, total: int | None = None
    ) -> AbstractContextManager[Advance]: ...


def _ignore(units: int) -> None:
    pass


@contextmanager
def _silent(label: str, total: int | None = None) -> Iterator[Advance]:
    yield _ignore


SILENT: Progress = _silent
