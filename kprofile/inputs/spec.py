"""kbench spec strings (``stem/NAME=value/$RUNTIME=value/...``) as typed columns.

Values are parsed with ``ast.literal_eval`` (never ``eval``); anything that is not a
plain literal stays the string it was. A leading ``$`` (runtime parameter) is dropped
from the name. Each distinct ``NAME=value`` token is parsed once, however many rows
carry it, and rows are handled in chunks of column arrays, never one dict per row.

Bounded by what the strings make, not only by their size (a pickle can repeat one
long string a million times by reference): each string's length and token count,
the distinct names, rows x names and all tokens together have limits
(``kprofile.inputs.limits``), each checked before the memory it guards is taken. A
chunk holds at most ``CHUNK_CHARS`` characters, and a name's values are kept as the
pieces each chunk found until every check has passed: memory grows with the tokens
read, not with rows x names.
"""

from __future__ import annotations

import ast
import gc
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np
import pandas as pd

from kprofile.inputs.limits import (
    MAX_CELLS,
    MAX_PARAMS,
    MAX_SPEC_CHARS,
    MAX_SPEC_TOKENS,
)

CHUNK_ROWS = 1 << 14
CHUNK_CHARS = 1 << 22
_SCALARS = (bool, int, float, str)


class SpecLimit(Exception):
    """Spec strings that would make more than a limit allows (the message says
    which); the loader reports it as the file's error."""


def parse_value(text: str) -> Any:
    """A spec value as the literal it spells (``128``, ``True``, ``0.5``, ``'x'``) or
    the text."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text
    return value if isinstance(value, _SCALARS) else text


def parse_token(token: str) -> tuple[str, Any]:
    """``'$M=256'`` -> ``('M', 256)``; a token without ``=`` is a flag set to True."""
    name, sep, value = token.partition("=")
    name = name.strip().removeprefix("$")
    return (name, parse_value(value.strip())) if sep else (name, True)


@dataclass(frozen=True)
class SpecColumns:
    """Parameter columns decoded from a spec column, in order of first appearance."""

    names: tuple[str, ...]
    columns: dict[str, Any]  # name -> numpy array or pandas extension array


Piece = tuple["slice | np.ndarray", np.ndarray]  # rows of a parameter, value ids


class _Decoder:
    """Distinct tokens seen so far (each parsed once), value ids per parameter."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.tokens = 0
        self.token_ids: dict[str, tuple[int, int]] = {}
        self.parse_cache: dict[str, tuple[str, Any]] = {}
        self.names: list[str] = []
        self.name_ids: dict[str, int] = {}
        self.values: list[Any] = []
        self.pieces: list[list[Piece]] = []  # per parameter, in the order found

    def parsed(self, token: str) -> tuple[str, Any]:
        cached = self.parse_cache.get(token)
        if cached is None:
            cached = self.parse_cache[token] = parse_token(token)
        return cached

    def ids(self, token: str) -> tuple[int, int]:
        found = self.token_ids.get(token)
        if found is None:
            name, value = self.parsed(token)
            if name not in self.name_ids:
                self._new_name(name)
            self.values.append(value)
            found = self.token_ids[token] = (self.name_ids[name], len(self.values) - 1)
        return found

    def _new_name(self, name: str) -> None:
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
        self.pieces.append([])

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

    def pairs(self, uniques: Any) -> np.ndarray:
        return np.array([self.ids(t) for t in uniques], dtype=np.int64).reshape(-1, 2)

    def uniform(self, chunk: np.ndarray, start: int) -> bool:
        """Fast path: every spec in the chunk has one parameter at each position."""
        try:
            flat = "/".join(chunk).split("/")
        except TypeError:  # a missing spec
            return False
        rows = len(chunk)
        if not rows or len(flat) % rows:
            return False
        grid = np.array(flat, dtype=object).reshape(rows, -1)
        if any("=" in stem for stem in pd.unique(grid[:, 0])):
            return False  # rows of different lengths: columns are misaligned
        self.count(len(flat) - rows, grid.shape[1] - 1)
        decoded = []
        for position in range(1, grid.shape[1]):
            local, uniques = pd.factorize(grid[:, position])
            names = {self.parsed(t)[0] for t in uniques}
            if len(names) != 1:
                self.tokens -= len(flat) - rows  # counted again by general()
                return False
            decoded.append((names.pop(), local, uniques))
        if len({name for name, _, _ in decoded}) != len(decoded):
            self.tokens -= len(flat) - rows
            return False
        for _, local, uniques in decoded:
            pairs = self.pairs(uniques)
            rows_of = slice(start, start + rows)
            self.pieces[int(pairs[0, 0])].append((rows_of, pairs[local, 1]))
        return True

    def general(self, chunk: np.ndarray, start: int) -> None:
        """Any mix of specs: tokens flattened with their row numbers."""
        split = [s.split("/")[1:] if isinstance(s, str) else [] for s in chunk]
        lengths = np.fromiter(map(len, split), dtype=np.int64, count=len(split))
        self.count(int(lengths.sum()), int(lengths.max(initial=0)))
        flat = np.fromiter(
            chain.from_iterable(split), dtype=object, count=int(lengths.sum())
        )
        rows = np.repeat(np.arange(start, start + len(chunk)), lengths)
        local, uniques = pd.factorize(flat)
        pairs = self.pairs(uniques)
        name_of, value_of = pairs[local, 0], pairs[local, 1]
        for name_id in np.unique(name_of):
            mask = name_of == name_id
            self.pieces[name_id].append((rows[mask], value_of[mask]))

    def codes(self, name_id: int) -> np.ndarray:
        """One parameter's value id per row, -1 where absent (later tokens win)."""
        ids = np.full(self.total, -1, dtype=np.int64)
        for rows, values in self.pieces[name_id]:
            ids[rows] = values
        return ids


def expand_specs(specs: Sequence[Any] | np.ndarray) -> SpecColumns:
    """Every spec string decoded into one array per parameter (missing: NA).
    Raises ``SpecLimit`` for strings that would make more than the limits allow."""
    values = np.asarray(specs, dtype=object)
    lengths = _lengths(values)
    longest = int(lengths.max(initial=0))
    if longest > MAX_SPEC_CHARS:
        raise SpecLimit(
            f"a spec string of {longest:,} characters, over the limit of "
            f"{MAX_SPEC_CHARS:,}"
        )
    decoder = _Decoder(len(values))
    collecting = gc.isenabled()
    gc.disable()  # millions of short-lived token strings, no cycles: skip the collector
    try:
        for start, stop in _chunks(lengths):
            chunk = values[start:stop]
            if not decoder.uniform(chunk, start):
                decoder.general(chunk, start)
    finally:
        if collecting:
            gc.enable()
    columns = {
        name: _typed(decoder.codes(i), decoder.values)
        for i, name in enumerate(decoder.names)
    }
    return SpecColumns(tuple(decoder.names), columns)


def _lengths(values: np.ndarray) -> np.ndarray:
    """Characters of each spec string (0 where there is none)."""
    try:
        return np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    except TypeError:  # a missing spec (NaN, None)
        return np.fromiter(
            (len(v) if isinstance(v, str) else 0 for v in values),
            dtype=np.int64,
            count=len(values),
        )


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


def _typed(ids: np.ndarray, values: list[Any]) -> Any:
    """Turn value ids into the narrowest column: int64, float64, bool or object."""
    counts = np.bincount(ids + 1, minlength=len(values) + 1)
    present = np.flatnonzero(counts[1:])
    missing = bool(counts[0])
    kinds = {type(values[i]) for i in present if values[i] is not None}
    has_none = any(values[i] is None for i in present)
    lookup_ids = np.where(ids < 0, 0, ids)
    if kinds and not has_none:
        if kinds == {bool}:
            table = np.array(
                [bool(v) if isinstance(v, bool) else False for v in values], dtype=bool
            )
            out = table[lookup_ids]
            return pd.arrays.BooleanArray(out, ids < 0) if missing else out
        if kinds <= {int} and all(abs(values[i]) < 2**63 for i in present):
            table = np.array(
                [v if type(v) is int else 0 for v in values], dtype=np.int64
            )
            out = table[lookup_ids]
            return pd.arrays.IntegerArray(out, ids < 0) if missing else out
        if kinds <= {int, float}:
            table = np.array(
                [float(v) if type(v) in (int, float) else np.nan for v in values],
                dtype=np.float64,
            )
            out = table[lookup_ids]
            out[ids < 0] = np.nan
            return out
    table = np.empty(len(values) + 1, dtype=object)
    table[:-1] = values
    table[-1] = None
    return table[np.where(ids < 0, len(values), ids)]
