"""The ``NAME=value`` tokens of a chunk of spec strings, found and told apart in a few
numpy passes over its bytes, without one Python string per token.

The chunk's strings are joined with ``/`` into one ASCII text; every ``/`` ends a
segment, and a segment that starts a string is its stem (not a token). Each token is
read as the 8-byte words that hold it (bytes past its end masked to zero), hashed with
its length, and factorized by that hash; every token is then compared, word by word
and length, with the first token of its hash, so two different tokens can never share
a code (a collision, a token longer than ``MAX_TOKEN_BYTES`` or text that is not
ASCII gives None, and the caller splits that chunk in Python instead). Only the
distinct tokens of the chunk become Python strings.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

MAX_TOKEN_BYTES = 64  # longer tokens: the chunk is split in Python
_SLASH = ord("/")
_MASKS = np.array([(1 << (8 * n)) - 1 for n in range(9)], dtype=np.uint64)
_MIX = np.uint64(0x9E3779B97F4A7C15)


@dataclass(frozen=True)
class ChunkTokens:
    """Each token's row (within the chunk) and code; ``texts[code]`` is its text."""

    rows: np.ndarray  # int64, non-decreasing
    codes: np.ndarray  # int64, codes in order of first appearance
    texts: list[str]


def chunk_tokens(chunk: np.ndarray) -> ChunkTokens | None:
    """The tokens of ``chunk`` (spec strings), or None where the chunk needs the
    Python path (a missing spec, non-ASCII text or a NUL in it, a long token, a hash
    collision)."""
    try:
        joined = "\0".join(chunk)
    except TypeError:  # a missing spec
        return None
    if not joined.isascii():
        return None
    data = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
    found = _tokens(data, len(chunk))
    if found is None:
        return None
    starts, ends, rows = found
    sizes = ends - starts
    if len(sizes) and int(sizes.max()) > MAX_TOKEN_BYTES:
        return None
    words = _words(data, starts, sizes)
    codes, first = _factorize(words, sizes)
    if codes is None:
        return None
    texts = [joined[s:e] for s, e in zip(starts[first].tolist(), ends[first].tolist())]
    return ChunkTokens(rows, codes, texts)


def _tokens(
    data: np.ndarray, count: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Start, end and row of every segment that is not a stem (strings joined by
    NUL); None if a string holds a NUL itself."""
    bounds = np.flatnonzero((data == _SLASH) | (data == 0))
    ends_row = data[bounds] == 0
    if int(np.count_nonzero(ends_row)) != count - 1:
        return None
    starts = np.empty(len(bounds) + 1, dtype=np.int64)
    starts[0] = 0
    np.add(bounds, 1, out=starts[1:])
    ends = np.empty(len(bounds) + 1, dtype=np.int64)
    ends[:-1] = bounds
    ends[-1] = len(data)
    stem = np.ones(len(starts), dtype=bool)
    stem[1:] = ends_row
    rows = np.cumsum(stem) - 1
    token = ~stem
    return starts[token], ends[token], rows[token]


def _words(data: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> list[np.ndarray]:
    """Each token as ``ceil(longest / 8)`` little-endian words, zero past its end
    (only the tokens that reach a word are read for it)."""
    padded = np.zeros(len(data) + 8, dtype=np.uint8)
    padded[: len(data)] = data
    # every 8 bytes from each offset, unaligned: one read per word of a token
    windows = np.ndarray((len(data) + 1,), dtype="<u8", buffer=padded, strides=(1,))
    words = [windows[starts] & _MASKS[np.minimum(sizes, 8)]]
    for k in range(1, -(-int(sizes.max(initial=0)) // 8)):
        reach = np.flatnonzero(sizes > 8 * k)
        word = np.zeros(len(starts), dtype=np.uint64)
        rest = np.minimum(sizes[reach] - 8 * k, 8)
        word[reach] = windows[starts[reach] + 8 * k] & _MASKS[rest]
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
