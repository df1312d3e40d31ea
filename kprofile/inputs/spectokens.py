"""The ``NAME=value`` tokens of a chunk of spec strings, found and told apart in a few
numpy passes over its bytes, without one Python string per token.

The chunk's strings are joined with ``/`` into one ASCII text, one more ``/`` at its
end; every ``/`` ends a segment, and the segment that starts at a string's first
character is its stem (not a token; where each string starts follows from its length).
A chunk whose every row has as many segments is first told apart by exact keys, a
column at a time (``specgrid``); where that hands it back, and for any other chunk,
each token is read as the 8-byte words that hold it (a token under 8 bytes masked past
its end; a longer one's last word read at its end, so no word reaches outside it),
hashed with its length, and factorized by that hash; every token is then compared, word
by word and length, with the first token of its hash, so two different tokens can never
share a code (a collision, a token longer than ``MAX_TOKEN_BYTES`` or text that is not
ASCII gives None, and the caller splits that chunk in Python instead). Only the distinct
tokens of the chunk become Python strings.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from kprofile.inputs.specgrid import grid_tokens
from kprofile.inputs.specwords import (
    MAX_TOKEN_BYTES,
    digest,
    equal_to,
    grid_spans,
    token_words,
    windows,
)

_SLASH = ord("/")
_PAD = "\0" * 8  # after the text: an 8-byte read from its last byte stays in bounds


@dataclass(frozen=True)
class ChunkTokens:
    """Each token's code, row by row (``texts[code]`` is its text), and how many
    tokens each row has; ``width``: that count where every row has it, else -1."""

    codes: np.ndarray  # int64, codes in order of first appearance
    texts: list[str]
    per_row: np.ndarray  # int64
    width: int

    @property
    def rows(self) -> np.ndarray:
        """Each token's row (within the chunk), non-decreasing."""
        return np.repeat(np.arange(len(self.per_row)), self.per_row)


def chunk_tokens(chunk: np.ndarray, lengths: np.ndarray) -> ChunkTokens | None:
    """The tokens of ``chunk`` (spec strings of ``lengths`` characters), or None
    where the chunk needs the Python path (a missing spec, non-ASCII text, a long
    token, a hash collision)."""
    try:
        joined = "/".join(chunk)
    except TypeError:  # a missing spec
        return None
    if not joined.isascii():
        return None
    raw = (joined + "/" + _PAD).encode("ascii")
    data = np.frombuffer(raw, dtype=np.uint8, count=len(joined) + 1)
    ends = np.flatnonzero(data == _SLASH)  # each segment's end, the last one's too
    grid = _grid(ends, lengths)
    if grid is not None and grid.shape[1] > 1:
        exact = grid_tokens(raw, joined, grid)
        if exact is not None:
            width = grid.shape[1] - 1
            return ChunkTokens(*exact, np.full(len(grid), width), width)
    starts, sizes, per_row, width = _segments(ends, lengths, grid)
    if len(sizes) and int(sizes.max()) > MAX_TOKEN_BYTES:
        return None
    words = token_words(windows(raw), starts, sizes)
    codes, first = _factorize(words, sizes)
    if codes is None:
        return None
    firsts = starts[first].tolist()
    texts = [joined[s : s + n] for s, n in zip(firsts, sizes[first].tolist())]
    return ChunkTokens(codes, texts, per_row, width)


def _row_ends(lengths: np.ndarray) -> np.ndarray:
    """Where each row ends: the / that joins it to the next (the last row's: the
    one after it)."""
    row_ends = np.cumsum(lengths + 1)
    row_ends -= 1
    return row_ends


def _grid(ends: np.ndarray, lengths: np.ndarray) -> np.ndarray | None:
    """``ends`` as rows x segments where every row has as many segments, else None.
    ``ends``: where each segment ends (each ``/``, the one after the last row
    included)."""
    rows = len(lengths)
    per = len(ends) // rows  # segments a row, if every row has as many
    if per * rows != len(ends):
        return None
    grid = ends.reshape(rows, per)
    # each row's last segment ending where the row does: per segments a row
    return grid if np.array_equal(grid[:, -1], _row_ends(lengths)) else None


def _segments(
    ends: np.ndarray, lengths: np.ndarray, grid: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Start and length of every segment that is not a stem, each row's token count
    and the common count (-1 if the rows differ); ``grid``: ``_grid``'s."""
    if grid is not None:
        starts, sizes = grid_spans(grid)
        width = grid.shape[1] - 1
        return starts.ravel(), sizes.ravel(), np.full(len(grid), width), width
    row_ends = _row_ends(lengths)
    stems = np.searchsorted(ends, row_ends - lengths)  # the slashes before a row
    per_row = np.diff(stems, append=len(ends)) - 1
    token = np.ones(len(ends), dtype=bool)
    token[stems] = False
    starts = np.empty(len(ends), dtype=np.int64)
    starts[0] = 0
    np.add(ends[:-1], 1, out=starts[1:])
    starts = starts[token]
    return starts, ends[token] - starts, per_row, -1


def _factorize(
    words: list[np.ndarray], sizes: np.ndarray
) -> tuple[np.ndarray | None, np.ndarray]:
    """Codes by first appearance and each code's first token; None for the codes
    when two different tokens share a hash."""
    codes, _ = pd.factorize(digest(words, sizes))
    codes = codes.astype(np.int64, copy=False)
    first = _first_of_each(codes)
    return (codes if equal_to((sizes, *words), first[codes]) else None), first


def _first_of_each(codes: np.ndarray) -> np.ndarray:
    """Where each code first appears (codes numbered in order of first appearance)."""
    if not len(codes):
        return np.zeros(0, dtype=np.int64)
    seen = np.maximum.accumulate(codes)
    new = np.ones(len(codes), dtype=bool)
    new[1:] = codes[1:] > seen[:-1]
    return np.flatnonzero(new)
