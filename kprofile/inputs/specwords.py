"""The primitives of the spec token passes (``spectokens``, ``specgrid``): each
string's length, a token read as the 8-byte words that hold it, and the hash of
those words."""

from __future__ import annotations

import numpy as np

MAX_TOKEN_BYTES = 64  # longer tokens: the chunk is split in Python
MASKS = np.array(
    [(1 << (8 * min(n, 8))) - 1 for n in range(MAX_TOKEN_BYTES + 1)], dtype=np.uint64
)
_MIX = np.uint64(0x9E3779B97F4A7C15)


def windows(raw: bytes) -> np.ndarray:
    """Every 8 bytes of ``raw`` from each offset, unaligned (the text must be padded
    with 7 bytes or more, so that a read from its last byte stays in bounds)."""
    return np.ndarray((len(raw) - 7,), dtype="<u8", buffer=raw, strides=(1,))


def token_words(
    window: np.ndarray, starts: np.ndarray, sizes: np.ndarray
) -> list[np.ndarray]:
    """Each token as ``ceil(longest / 8)`` little-endian words that together hold
    exactly its bytes: a token under 8 bytes in its first word, zero past its end
    (its other words 0); word k of a longer one read from byte ``min(8k, size - 8)``
    (only the tokens that reach word k are read for it). ``window``: ``windows``'."""
    first = window[starts]
    first &= MASKS[sizes]
    words = [first]
    for k in range(1, -(-int(sizes.max(initial=0)) // 8)):
        reach = np.flatnonzero(sizes > 8 * k)
        at = np.minimum(starts[reach] + 8 * k, starts[reach] + sizes[reach] - 8)
        if len(reach) == len(starts):
            words.append(window[at])
        else:
            word = np.zeros(len(starts), dtype=np.uint64)
            word[reach] = window[at]
            words.append(word)
    return words


def digest(words: list[np.ndarray], sizes: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each token's words and size (equal tokens, equal hashes)."""
    mixed = sizes.astype(np.uint64)
    shifted = np.empty_like(mixed)
    for word in words:  # in place: no new array per step
        np.bitwise_xor(mixed, word, out=mixed)
        np.multiply(mixed, _MIX, out=mixed)
        np.right_shift(mixed, np.uint64(29), out=shifted)
        np.bitwise_xor(mixed, shifted, out=mixed)
    return mixed


def grid_spans(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each token starts and how long it is (rows x tokens), from where each
    row's segments end (rows x segments, the stem's first)."""
    starts = grid[:, :-1] + 1
    return starts, grid[:, 1:] - starts


def equal_to(columns: tuple[np.ndarray, ...], at: np.ndarray) -> bool:
    """Whether every token's columns (size, words) equal those of the token at
    ``at`` (one token of its code)."""
    return all(np.array_equal(c, c[at]) for c in columns)


def spec_lengths(values: np.ndarray) -> np.ndarray:
    """Characters of each spec string (0 where there is none)."""
    try:
        return np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    except TypeError:  # a missing spec (NaN, None)
        return np.fromiter(
            (len(v) if isinstance(v, str) else 0 for v in values),
            dtype=np.int64,
            count=len(values),
        )
