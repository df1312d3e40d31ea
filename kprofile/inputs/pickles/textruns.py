"""Runs of short texts in a pickle stream (a column of spec strings), found by numpy
for the scan (``scan._scan``) instead of one Python step per text."""

from __future__ import annotations

import numpy as np

from kprofile.inputs.pickles.opcodes import COSTS

WINDOW = 1 << 20  # bytes of text columns read by numpy at a time
MIN_RUN = 32  # units a window's run must give to be worth numpy's call
UNIT_COST = 72 + 16  # a text and its memo slot, as _scan counts them
FRAME_COST = COSTS.get(0x95, 8)


class TextRuns:
    """Runs of ``MEMOIZE[, FRAME n], SHORT_BINUNICODE k <k bytes>`` units (a column
    of short texts, a FRAME wherever the pickler cut one) found by numpy a window at
    a time instead of one Python step each. A window is read once: its unit starts
    and ends are kept for every run in it (numpy pickles a list 1,000 items to an
    APPENDS, which ends a run). Each unit must start where the one before ends; a
    text holding the bytes of a unit's start is no unit and ends the chain. A run
    that gives fewer than MIN_RUN units hands the rest of its window to the one-step
    walk, so a stream made to break every chain costs the walk's time, not a numpy
    call per unit. Only what the walk would accept is taken (``_frames_taken``):
    the walk meets every refusal itself."""

    def __init__(self, data: bytes, room: int) -> None:
        self.data = data
        self.room = room  # the stream's bytes from data[0] (data may be a piece)
        self.base = self.stop = self.fits = 0  # the window read: data[base:stop]
        self.starts = self.ends = self.framed = self.breaks = np.zeros(0, np.int64)

    def take(self, at: int, spare: int, slow_left: int) -> tuple[int, int, int, int]:
        """From ``at``: the units taken, the FRAMEs among them, the offset after
        them, and the offset up to which the caller steps one opcode at a time."""
        first = self._unit_at(at)
        if first < 0:
            self._read(at)
            first = self._unit_at(at)
        if first < 0:  # the window's end: the walk steps it
            return 0, 0, at, self.stop
        last = int(self.breaks[np.searchsorted(self.breaks, first)])
        ends = self.ends[first : last + 1]
        framed = self.framed[first : last + 1]
        count = self._frames_taken(first, framed, spare, slow_left)
        if count < MIN_RUN:
            return 0, 0, at, self.stop
        return (
            count,
            int(np.count_nonzero(framed[:count])),
            self.base + int(ends[count - 1]),
            0,
        )

    def _unit_at(self, at: int) -> int:
        """The index of the unit that starts at ``at`` in the window read, or -1."""
        if at < self.base:
            return -1
        first = int(np.searchsorted(self.starts[: self.fits], at - self.base))
        if first == self.fits or self.starts[first] != at - self.base:
            return -1
        return first

    def _read(self, at: int) -> None:
        data = self.data
        window = np.frombuffer(data, np.uint8, min(WINDOW, len(data) - at), at)
        memos = np.flatnonzero(window[:-12] == 0x94)
        follows = window[memos + 1]
        framed = (follows == 0x95) & (window[memos + 10] == 0x8C)
        unit = framed | (follows == 0x8C)
        starts, framed = memos[unit], framed[unit]
        head = np.where(framed, 10, 1)  # the bytes before SHORT_BINUNICODE
        ends = starts + head + 2 + window[starts + head + 1]
        # a chain breaks after unit k where the next unit does not start at its end,
        # and after the last unit whose text ends inside the window
        fits = int(np.searchsorted(ends, len(window) - 12, side="right"))
        broken = np.flatnonzero(ends[: max(fits - 1, 0)] != starts[1:fits])
        self.breaks = np.append(broken, fits - 1)  # -1: none fits (unused then)
        self.base, self.stop, self.fits = at, at + len(window), fits
        self.starts, self.ends, self.framed = starts, ends, framed

    def _frames_taken(
        self, first: int, framed: np.ndarray, spare: int, slow_left: int
    ) -> int:
        """The units before the first FRAME the walk would refuse (its length past
        the data, the rare-opcode budget spent, or the cost budget, bounded from
        above), or all of them."""
        for j, u in enumerate(np.flatnonzero(framed).tolist()):
            p = self.base + int(self.starts[first + u])
            length = int.from_bytes(self.data[p + 2 : p + 10], "little")
            cost = UNIT_COST * (u + 1) + FRAME_COST * (j + 1)
            if length > self.room - (p + 10) or slow_left <= j or cost > spare:
                return u
        return len(framed)
