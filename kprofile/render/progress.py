"""Progress on a terminal's stderr: rich's display, one line per running step (a
spinner, its label, a bar and a count when the step knows its size, the time spent),
gone when the step ends, so stdout and the messages stay as they are.

Steps nest (loading inside a run, a solve inside ``--cover``): they share one display,
started by the first step and stopped with the last. Labels name input files: they go
through ``one_line`` like every string from an input.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING

from kprofile.progress import Advance
from tuning_codegen.errors import one_line

if TYPE_CHECKING:
    from rich.progress import Progress as RichProgress


class TerminalProgress:
    """A ``kprofile.progress.Progress`` drawn on ``stream`` (a terminal)."""

    def __init__(self, stream: IO[str], *, colour: bool) -> None:
        self.stream = stream
        self.colour = colour
        self.display: RichProgress | None = None
        self.running = 0

    @contextmanager
    def __call__(self, label: str, total: int | None = None) -> Iterator[Advance]:
        display = self._start()
        task = display.add_task(one_line(label), total=total, count=_count(0, total))
        self.running += 1

        done = 0

        def advance(units: int) -> None:
            nonlocal done
            done += units
            display.update(task, advance=units, count=_count(done, total))

        try:
            yield advance
        finally:
            display.remove_task(task)
            self.running -= 1
            if not self.running:
                display.stop()
                self.display = None

    def _start(self) -> RichProgress:
        if self.display is not None:
            return self.display
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        console = Console(
            file=self.stream,
            highlight=False,
            markup=False,
            color_system="auto" if self.colour else None,
            no_color=not self.colour,
        )
        self.display = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}", markup=False),
            BarColumn(),
            TextColumn("{task.fields[count]}", markup=False),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            refresh_per_second=8,
        )
        self.display.start()
        return self.display


def _count(done: int, total: int | None) -> str:
    """``3/10`` for a step of known size; nothing for one that only spins."""
    return "" if total is None else f"{done}/{total}"
