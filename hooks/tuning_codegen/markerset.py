"""The markers a text must not hold, found in time that grows with the text.

A target with hundreds of tables has hundreds of markers, and every rendered entry,
snippet and label is checked against all of them: one ``in`` per marker and text made
that cost the square of the table count. A ``MarkerSet`` (a mapping of each marker
to what it is, for messages) looks a few markers up one by one, and many by the
substrings of the text that have a marker's length, in a set.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

FEW = 16  # markers up to which each is looked for with ``in``


class MarkerSet(dict[str, str]):
    """Marker -> what it is (``the begin marker 'X' of table 'T'``)."""

    def __init__(self, markers: Mapping[str, str] | None = None) -> None:
        super().__init__()
        self._by_length: dict[int, set[str]] = {}
        self._lengths: list[int] = []
        self.parsed: dict[str, str | Exception] = {}  # snippet -> parsed, or its error
        self.add(markers or {})

    def add(self, markers: Mapping[str, str]) -> None:
        for marker, what in markers.items():
            if marker not in self:
                self._by_length.setdefault(len(marker), set()).add(marker)
            self[marker] = what
        self._lengths = sorted(self._by_length)
        self._starts: re.Pattern[str] | None = None

    def first_in(self, text: str) -> tuple[str, int] | None:
        """A marker ``text`` holds and where (with few markers, the first one in
        order that occurs; with many, the one that starts first), or None."""
        if not self.many():
            for marker in self:
                at = text.find(marker)
                if at != -1:
                    return marker, at
            return None
        return next(self.every_in(text), None)

    def many(self) -> bool:
        """Whether looking markers up by substrings beats one ``find`` each."""
        return len(self) > FEW and len(self._lengths) * 4 <= len(self)

    def every_in(self, text: str) -> Iterator[tuple[str, int]]:
        """Every occurrence of a marker in ``text``, by position (one scan)."""
        if self._starts is None:
            firsts = "".join(sorted({m[0] for m in self}))
            self._starts = re.compile(f"[{re.escape(firsts)}]")
        for match in self._starts.finditer(text):  # only where a marker may start
            start = match.start()
            for length in self._lengths:
                if start + length > len(text):
                    break
                piece = text[start : start + length]
                if piece in self._by_length[length]:
                    yield piece, start


def marker_set(markers: Mapping[str, str] | None) -> MarkerSet:
    """``markers`` as a ``MarkerSet`` (itself if it is one already)."""
    return markers if isinstance(markers, MarkerSet) else MarkerSet(markers)
