"""The garbage collector paused while a large graph of objects is built.

Composing a 50,000-entry manifest makes about a million objects, none of them garbage,
and the collector would walk them again and again while they are made: over half the
time of a ``--check`` (and a third of kprofile's reading of a 20,000-entry manifest
for ``--update``, a sixth of the update itself). Nothing built meanwhile holds cycles
that must be freed before the pause ends; the collector resumes (if it ran before)
when the block is left.
"""

from __future__ import annotations

import gc
from types import TracebackType


class paused_gc:  # noqa: N801 (used as a function: ``with paused_gc():``)
    """A class, not a generator: it is entered once per manifest of a large
    registry, and a generator-based context manager costs several times more."""

    def __enter__(self) -> None:
        self.enabled = gc.isenabled()
        gc.disable()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self.enabled:
            gc.enable()
