"""The tokens of a uniform chunk (every row the same number of tokens) told apart by
exact keys a column at a time where the column allows them, hashed where not.

Text the caller found ASCII leaves the high bit of every byte free, so a 64-bit word
holds up to 8 bytes of a token and, in those free bits, what else makes the key
exact (``_LENGTH_BITS``, ``_GROUP_BITS``, ``_HASHED``):

- a column whose tokens are at most 8 bytes: the token's word, zero past its end,
  and its length;
- a column whose tokens are 8 to 16 bytes and share their first 8 (a name such as
  ``CLUSTER_M=`` or ``SCHEDULE``): the token's last 8 bytes, its length, and which
  shared first 8 bytes (up to ``_GROUPS`` of them in a chunk): together, every
  byte of it;
- any other column: a hash of the token's words (``specwords``), marked apart from
  every exact key, and every hashed token is compared with one token of its code.

One factorize over the keys, row by row, numbers the tokens in order of first
appearance, as the row-by-row pass (``spectokens``) does, and a code's text is that
of any of its tokens (all are equal). None hands the chunk back to that pass: a
failed comparison, a token past ``MAX_TOKEN_BYTES``, or one token under two kinds of
key (in two columns), which would have two codes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from kprofile.inputs.specwords import (
    MASKS,
    MAX_TOKEN_BYTES,
    digest,
    equal_to,
    grid_spans,
    token_words,
    windows,
)

_WORD = 8
_LENGTH_BITS = (7, 15, 23, 31)  # a length of 0-8 (8-16 in a shared-prefix column)
_GROUP_BITS = (39, 47, 55)  # which shared first 8 bytes (0: none)
_HASHED = 1 << 63
_GROUPS = (1 << len(_GROUP_BITS)) - 1
_DATA = 0x7F7F7F7F7F7F7F7F  # a key's bytes without the free bits


def _spread(value: int, bits: tuple[int, ...]) -> int:
    return sum(((value >> i) & 1) << bit for i, bit in enumerate(bits))


_LENGTH_TAGS = np.array(
    [_spread(min(n, 15), _LENGTH_BITS) for n in range(MAX_TOKEN_BYTES + 1)], np.uint64
)


def grid_tokens(
    raw: bytes, joined: str, grid: np.ndarray
) -> tuple[np.ndarray, list[str]] | None:
    """Each token's code, row by row, numbered in order of first appearance, and the
    text of each code; None to hand the chunk back. ``grid``: where each row's
    segments end (rows x segments, the stem's first), in ``raw``: the ASCII bytes
    of ``joined``, padded."""
    starts, sizes = grid_spans(grid)  # rows x tokens
    by_column = sizes.T.copy()  # contiguous: a reduction per column is fast on it
    longest, shortest = by_column.max(axis=1), by_column.min(axis=1)
    if int(longest.max()) > MAX_TOKEN_BYTES:
        return None
    window = windows(raw)
    keys = window[starts]  # each token's first 8 bytes (and what follows a short one)
    keys &= MASKS[sizes]  # a short token's bytes only (a longer one's: all 8)
    keys |= _LENGTH_TAGS[sizes]  # a longer token's key is made below
    hashed = _shared_prefixes(keys, window, starts, sizes, (longest, shortest))
    check = None
    if hashed:
        at, size = starts[:, hashed].ravel(), sizes[:, hashed].ravel()
        words = token_words(window, at, size)
        keys[:, hashed] = (digest(words, size) | np.uint64(_HASHED)).reshape(
            -1, len(hashed)
        )
        check = (at, size, words)
    codes, uniques = pd.factorize(keys.ravel())
    codes = codes.astype(np.int64, copy=False)
    taken = np.empty(len(uniques), dtype=np.int64)
    taken[codes] = np.arange(len(codes))  # a token of each code, whichever
    if check is not None:
        at, size, words = check
        labels = codes.reshape(len(starts), -1)[:, hashed].ravel()
        hashed_taken = np.empty(len(uniques), dtype=np.int64)
        hashed_taken[labels] = np.arange(len(labels))
        if not equal_to((size, *words), hashed_taken[labels]):
            return None
    spans = zip(starts.ravel()[taken].tolist(), sizes.ravel()[taken].tolist())
    texts = [joined[s : s + n] for s, n in spans]
    return (codes, texts) if len(set(texts)) == len(texts) else None


def _shared_prefixes(
    keys: np.ndarray,
    window: np.ndarray,
    starts: np.ndarray,
    sizes: np.ndarray,
    bounds: tuple[np.ndarray, np.ndarray],
) -> list[int]:
    """The keys of each column of tokens over 8 bytes that share their first 8 made
    (in place); the other such columns, to be hashed. ``bounds``: each column's
    longest and shortest token."""
    longest, shortest = bounds
    prefixes: dict[int, int] = {}  # shared first 8 bytes -> group
    hashed = []
    for column in np.flatnonzero(longest > _WORD).tolist():
        first = keys[:, column] & np.uint64(_DATA)
        prefix = int(first[0])
        group = prefixes.get(prefix, len(prefixes) + 1)
        if longest[column] > 2 * _WORD or shortest[column] < _WORD or group > _GROUPS:
            hashed.append(column)
        elif bool((first == first[0]).all()):
            prefixes[prefix] = group
            tags = _LENGTH_TAGS[sizes[:, column] - _WORD]
            tags |= np.uint64(_spread(group, _GROUP_BITS))
            at = starts[:, column] + sizes[:, column] - _WORD
            keys[:, column] = np.bitwise_or(window[at], tags)  # its last 8 bytes
        else:
            hashed.append(column)
    return hashed
