"""The ``NAME=value`` tokens of a chunk of spec strings, found and told apart in a few
numpy passes over its bytes, without one Python string per token.

The chunk's strings are joined with ``/`` into one ASCII text, one more ``/`` at its
end; every ``/`` ends a segment, and the segment that starts at a string's first
character is its stem (not a token; where each string starts follows from its length).
Each token is read as the 8-byte words that hold it (a token under 8 bytes masked past
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

MAX_TOKEN_BYTES = 64  # longer tokens: the chunk is split in Python
_SLASH = ord("/")
_PAD = "\0" * 8  # after the text: an 8-byte read from its last byte stays in bounds
_MASKS = np.array([(1 << (8 * min(n, 8))) - 1 for n in range(65)], dtype=np.uint64)
_MIX = np.uint64(0x9E3779B97F4A7C15)


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
    starts, sizes, per_row, width = _segments(ends, lengths)
    if len(sizes) and int(sizes.max()) > MAX_TOKEN_BYTES:
        return None
    words = _words(raw, starts, sizes)
    codes, first = _factorize(words, sizes)
    if codes is None:
        return None
    firsts = starts[first].tolist()
    texts = [joined[s : s + n] for s, n in zip(firsts, sizes[first].tolist())]
    return ChunkTokens(codes, texts, per_row, width)


def _segments(
    ends: np.ndarray, lengths: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Start and length of every segment that is not a stem, each row's token count
    and the common count (-1 if the rows differ). ``ends``: where each segment ends
    (each ``/``, the one after the last row included)."""
    rows = len(lengths)
    # where each row ends: the / that joins it to the next (the last row's: the end)
    row_ends = np.cumsum(lengths + 1)
    row_ends -= 1
    per = len(ends) // rows  # segments a row, if every row has as many
    if per * rows == len(ends):
        grid = ends.reshape(rows, per)
        # each row's last segment ending where the row does: per segments a row
        if np.array_equal(grid[:, -1], row_ends):
            starts = grid[:, :-1] + 1
            sizes = grid[:, 1:] - starts
            width = per - 1
            return starts.ravel(), sizes.ravel(), np.full(rows, width), width
    stems = np.searchsorted(ends, row_ends - lengths)  # the slashes before a row
    per_row = np.diff(stems, append=len(ends)) - 1
    token = np.ones(len(ends), dtype=bool)
    token[stems] = False
    starts = np.empty(len(ends), dtype=np.int64)
    starts[0] = 0
    np.add(ends[:-1], 1, out=starts[1:])
    starts = starts[token]
    return starts, ends[token] - starts, per_row, -1


def _words(raw: bytes, starts: np.ndarray, sizes: np.ndarray) -> list[np.ndarray]:
    """Each token as ``ceil(longest / 8)`` little-endian words that together hold
    exactly its bytes: a token under 8 bytes in its first word, zero past its end
    (its other words 0); word k of a longer one read from byte ``min(8k, size - 8)``
    (only the tokens that reach word k are read for it)."""
    # every 8 bytes from each offset, unaligned (the pad keeps the last in bounds)
    windows = np.ndarray((len(raw) - 7,), dtype="<u8", buffer=raw, strides=(1,))
    first = windows[starts]
    first &= _MASKS[sizes]
    words = [first]
    for k in range(1, -(-int(sizes.max(initial=0)) // 8)):
        reach = np.flatnonzero(sizes > 8 * k)
        at = np.minimum(starts[reach] + 8 * k, starts[reach] + sizes[reach] - 8)
        if len(reach) == len(starts):
            words.append(windows[at])
        else:
            word = np.zeros(len(starts), dtype=np.uint64)
            word[reach] = windows[at]
            words.append(word)
    return words


def _factorize(
    words: list[np.ndarray], sizes: np.ndarray
) -> tuple[np.ndarray | None, np.ndarray]:
    """Codes by first appearance and each code's first token; None for the codes
    when two different tokens share a hash."""
    digest = sizes.astype(np.uint64)
    shifted = np.empty_like(digest)
    for word in words:  # in place: no new array per step
        np.bitwise_xor(digest, word, out=digest)
        np.multiply(digest, _MIX, out=digest)
        np.right_shift(digest, np.uint64(29), out=shifted)
        np.bitwise_xor(digest, shifted, out=digest)
    del shifted
    codes, _ = pd.factorize(digest)
    codes = codes.astype(np.int64, copy=False)
    first = _first_of_each(codes)
    for column in (sizes, *words):
        if not np.array_equal(column, column[first][codes]):
            return None, first
    return codes, first


def _first_of_each(codes: np.ndarray) -> np.ndarray:
    """Where each code first appears (codes numbered in order of first appearance)."""
    if not len(codes):
        return np.zeros(0, dtype=np.int64)
    seen = np.maximum.accumulate(codes)
    new = np.ones(len(codes), dtype=bool)
    new[1:] = codes[1:] > seen[:-1]
    return np.flatnonzero(new)
