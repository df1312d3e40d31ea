"""kbench spec strings (``stem/NAME=value/$RUNTIME=value/...``) as typed columns.

Values are parsed with ``ast.literal_eval`` (never ``eval``); anything that is not a
plain literal stays the string it was (a plain decimal integer or float is converted
directly, to the same value, and a name such as ``ws`` or ``DType.bf16`` is text
without a parse). A leading ``$`` (runtime parameter) is dropped from the
name. The tokens of a chunk of rows are found and told apart by numpy passes over its
bytes (``kprofile.inputs.spectokens``); each distinct ``NAME=value`` token is parsed
once, however many rows carry it, and rows are never handled one dict at a time.

Bounded by what the strings make, not only by their size (a pickle can repeat one
long string a million times by reference): each string's length and token count,
the distinct names, rows x names and all tokens together have limits
(``kprofile.inputs.limits``), each checked before the memory it guards is taken. A
chunk holds at most ``CHUNK_CHARS`` characters; a name's value ids (4 bytes a row)
are made when the name is first seen, once rows x names is known to be within its
limit (the columns made at the end take twice that), and each chunk writes its rows
into them.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np
import pandas as pd

from kprofile.inputs.ahead import cores, in_order
from kprofile.inputs.limits import (
    MAX_CELLS,
    MAX_PARAMS,
    MAX_SPEC_CHARS,
    MAX_SPEC_TOKENS,
)
from kprofile.inputs.spectokens import ChunkTokens, chunk_tokens
from kprofile.inputs.spectyped import typed_column
from kprofile.inputs.specvalues import parse_tokens
from kprofile.inputs.specwords import spec_lengths

CHUNK_ROWS = 1 << 16
CHUNK_CHARS = 1 << 20  # 1 MiB of text: its temporaries stay in the heap, warm
THREADED_CHARS = 4 * CHUNK_CHARS  # from this much text, chunks are found on all cores
TOKENS_AHEAD = 3  # chunks found ahead: workers stay busy while one is numbered


class SpecLimit(Exception):
    """Spec strings that would make more than a limit allows (the message says
    which); the loader reports it as the file's error."""


@dataclass(frozen=True)
class SpecColumns:
    """Parameter columns decoded from a spec column, in order of first appearance,
    and each column's value codes (``spectyped.value_codes``)."""

    names: tuple[str, ...]
    columns: dict[str, Any]  # name -> numpy array or pandas extension array
    codes: dict[str, np.ndarray]


class _Decoder:
    """Distinct tokens seen so far (each parsed once), value ids per parameter."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.tokens = 0
        self.token_ids: dict[str, int] = {}  # token -> name id << 32 | value id
        self.names: list[str] = []
        self.name_ids: dict[str, int] = {}
        self.values: list[list[Any]] = []  # per parameter, by value id
        # per parameter, each row's value id (-1: the row lacks it), None once taken
        self.rows: list[np.ndarray | None] = []
        self.repeated: list[bool] = []  # per parameter: a row names it twice

    def ids(self, texts: Sequence[str]) -> np.ndarray:
        """Each token's ``name id << 32 | value id``; the tokens seen for the first
        time parsed together (``parse_tokens``), numbered in their order: the ids
        they would have one by one."""
        known = self.token_ids
        new = [t for t in dict.fromkeys(texts) if t not in known]
        if new:
            self._number(new)
        return np.fromiter(map(known.__getitem__, texts), np.int64, len(texts))

    def _number(self, new: list[str]) -> None:
        """Parse and number tokens not seen before, a name at a time."""
        known = self.token_ids
        parsed = parse_tokens(new)
        codes, names = pd.factorize(np.array([n for n, _ in parsed], dtype=object))
        order = np.argsort(codes, kind="stable")  # each name's tokens, in order
        bounds = np.flatnonzero(np.diff(codes[order])) + 1
        for name, part in zip(names, np.split(order, bounds)):
            name_id = self.name_ids.get(name)
            if name_id is None:
                name_id = self._new_name(name)
            values = self.values[name_id]
            picked = part.tolist()
            first = len(values)
            values.extend([parsed[k][1] for k in picked])
            ids = range(name_id << 32 | first, name_id << 32 | len(values))
            known.update(zip([new[k] for k in picked], ids))

    def _new_name(self, name: str) -> int:
        count = len(self.names) + 1
        if count > MAX_PARAMS:
            raise SpecLimit(
                f"spec strings name more than {MAX_PARAMS:,} distinct parameters "
                "(the limit)"
            )
        if count * self.total > MAX_CELLS:
            raise SpecLimit(
                f"spec strings make {self.total:,} rows of {count:,} parameters, "
                f"over the limit of {MAX_CELLS:,} values"
            )
        self.name_ids[name] = len(self.names)
        self.names.append(name)
        self.values.append([])
        self.rows.append(np.full(self.total, -1, dtype=np.int32))  # ids < MAX_CELLS
        self.repeated.append(False)
        return len(self.names) - 1

    def count(self, tokens: int, longest: int) -> None:
        """Refuse a string of more than MAX_SPEC_TOKENS tokens, and more than
        MAX_CELLS tokens in all, before they are parsed."""
        if longest > MAX_SPEC_TOKENS:
            raise SpecLimit(
                f"a spec string of {longest:,} NAME=value tokens, over the limit of "
                f"{MAX_SPEC_TOKENS:,}"
            )
        self.tokens += tokens
        if self.tokens > MAX_CELLS:
            raise SpecLimit(
                f"spec strings hold more than {MAX_CELLS:,} NAME=value tokens "
                "(the limit)"
            )

    def add(self, rows: np.ndarray, codes: np.ndarray, texts: Sequence[str]) -> None:
        """Tokens of one chunk: their rows (absolute), codes into ``texts``."""
        packed = self.ids(texts)
        ids = packed[codes]
        name_of = (ids >> 32).astype(np.int32)
        value_of = (ids & 0xFFFFFFFF).astype(np.int32)
        del ids
        order = np.argsort(name_of, kind="stable")
        bounds = np.flatnonzero(np.diff(name_of[order])) + 1
        for part in np.split(order, bounds):
            self._piece(int(name_of[part[0]]), rows[part], value_of[part])

    def add_grid(self, start: int, codes: np.ndarray, texts: Sequence[str]) -> bool:
        """Tokens of a chunk whose every row names the same parameters in the same
        order (``codes``: rows x positions); False, and nothing added, otherwise."""
        packed = self.ids(texts)
        name_of = packed >> 32
        names = name_of[codes[0]].tolist()  # the first row's, position by position
        if len(set(names)) != len(names):
            return False
        # each code's position in the first row by its name (-1: not there); every
        # token must sit at its name's position
        places = np.full(len(self.names), -1, dtype=np.min_scalar_type(-len(names)))
        places[names] = np.arange(len(names))
        if not bool((places[name_of][codes] == places[names]).all()):
            return False
        value_of = (packed & 0xFFFFFFFF).astype(np.int32)
        rows = slice(start, start + len(codes))
        for position, name_id in enumerate(names):
            self._written(name_id)[rows] = value_of[codes[:, position]]
        return True

    def _piece(self, name_id: int, rows: np.ndarray, values: np.ndarray) -> None:
        """Rows as a slice where they are one run of consecutive rows (``rows`` is
        non-decreasing: a step of 0 is a row naming the parameter twice, and its
        later token is the one written last)."""
        steps = np.diff(rows)
        ids = self._written(name_id)
        if not len(steps) or bool((steps == 1).all()):
            ids[int(rows[0]) : int(rows[-1]) + 1] = values
        else:
            self.repeated[name_id] |= not bool(steps.all())
            ids[rows] = values

    def _written(self, name_id: int) -> np.ndarray:
        ids = self.rows[name_id]
        assert ids is not None, "a column's ids written after it was made"
        return ids

    def vectorised(self, found: ChunkTokens, start: int) -> None:
        """A chunk's tokens as the numpy passes found them (``chunk_tokens``)."""
        self.count(len(found.codes), int(found.per_row.max(initial=0)))
        if not len(found.codes):
            return
        grid = found.codes.reshape(-1, found.width) if found.width > 0 else None
        if grid is None or not self.add_grid(start, grid, found.texts):
            self.add(found.rows + start, found.codes, found.texts)

    def general(self, chunk: np.ndarray, start: int) -> None:
        """Any mix of specs: tokens split in Python, flattened with their rows."""
        split = [s.split("/")[1:] if isinstance(s, str) else [] for s in chunk]
        lengths = np.fromiter(map(len, split), dtype=np.int64, count=len(split))
        self.count(int(lengths.sum()), int(lengths.max(initial=0)))
        flat = np.fromiter(
            chain.from_iterable(split), dtype=object, count=int(lengths.sum())
        )
        if not len(flat):
            return
        rows = np.repeat(np.arange(start, start + len(chunk)), lengths)
        codes, uniques = pd.factorize(flat)
        self.add(rows, codes.astype(np.int64), list(uniques))

    def typed(self, name_id: int) -> tuple[Any, np.ndarray]:
        """One parameter's column and its value codes (``typed_column``), from its
        value id per row (-1 where absent; later tokens win), which the decoder
        hands over. A value id is made for a token some row holds; only a row
        naming the parameter twice can hide one (the later token wins)."""
        ids, self.rows[name_id] = self._written(name_id), None
        return typed_column(ids, self.values[name_id], not self.repeated[name_id])


def expand_specs(
    specs: Sequence[Any] | np.ndarray, lengths: np.ndarray | None = None
) -> SpecColumns:
    """Every spec string decoded into one array per parameter (missing: NA), given
    their ``spec_lengths`` if the caller has them. Raises ``SpecLimit`` for strings
    that would make more than the limits allow."""
    values = np.asarray(specs, dtype=object)
    lengths = spec_lengths(values) if lengths is None else lengths
    longest = int(lengths.max(initial=0))
    if longest > MAX_SPEC_CHARS:
        raise SpecLimit(
            f"a spec string of {longest:,} characters, over the limit of "
            f"{MAX_SPEC_CHARS:,}"
        )
    decoder = _Decoder(len(values))
    collecting = gc.isenabled()
    gc.disable()  # many short-lived token strings, no cycles: skip the collector
    try:
        # the next chunks' tokens found on other cores while this one is numbered
        found_in = functools.partial(_found, values, lengths)
        workers = _workers(lengths)
        # closed on the way out, an error included: the threads end with the call
        pending = in_order(found_in, _chunks(lengths), workers, TOKENS_AHEAD)
        with closing(pending) as chunks:
            for (start, stop), found in chunks:
                if found is None:
                    decoder.general(values[start:stop], start)
                else:
                    decoder.vectorised(found, start)
    finally:
        if collecting:
            gc.enable()
    # each column made apart from the others: on all cores, in order
    columns = range(len(decoder.names))
    with closing(in_order(decoder.typed, columns, workers, ahead=0)) as made:
        typed = [t for _, t in made]
    names = tuple(decoder.names)
    return SpecColumns(
        names,
        {name: column for name, (column, _) in zip(names, typed)},
        {name: codes for name, (_, codes) in zip(names, typed)},
    )


def _found(
    values: np.ndarray, lengths: np.ndarray, rows: tuple[int, int]
) -> ChunkTokens | None:
    """The tokens of rows ``start:stop`` (``chunk_tokens``)."""
    start, stop = rows
    return chunk_tokens(values[start:stop], lengths[start:stop])


def _workers(lengths: np.ndarray) -> int:
    """Threads to find chunks' tokens on: one per core for a long column, none (the
    caller's thread) for a short one."""
    return cores() if int(lengths.sum()) >= THREADED_CHARS else 1


def _chunks(lengths: np.ndarray) -> Iterator[tuple[int, int]]:
    """Row ranges of at most CHUNK_ROWS rows and CHUNK_CHARS characters (at least
    one row each)."""
    ends = np.cumsum(lengths)
    start, total = 0, len(lengths)
    while start < total:
        before = int(ends[start - 1]) if start else 0
        stop = int(np.searchsorted(ends, before + CHUNK_CHARS, side="right"))
        stop = min(max(stop, start + 1), start + CHUNK_ROWS, total)
        yield start, stop
        start = stop
