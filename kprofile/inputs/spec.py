"""kbench spec strings (``stem/NAME=value/$RUNTIME=value/...``) as typed columns.

Values are parsed with ``ast.literal_eval`` (never ``eval``); anything that is not a
plain literal stays the string it was. A leading ``$`` (runtime parameter) is dropped
from the name. Each distinct ``NAME=value`` token is parsed once, however many rows
carry it, and rows are handled in chunks of column arrays, never one dict per row.
"""

from __future__ import annotations

import ast
import gc
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np
import pandas as pd

CHUNK_ROWS = 1 << 14
_SCALARS = (bool, int, float, str)


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


class _Decoder:
    """Distinct tokens seen so far (each parsed once), value ids per parameter."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.token_ids: dict[str, tuple[int, int]] = {}
        self.parse_cache: dict[str, tuple[str, Any]] = {}
        self.names: list[str] = []
        self.name_ids: dict[str, int] = {}
        self.values: list[Any] = []
        self.codes: list[
            np.ndarray
        ] = []  # per parameter: value id per row, -1 where absent

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
                self.name_ids[name] = len(self.names)
                self.names.append(name)
                self.codes.append(np.full(self.total, -1, dtype=np.int64))
            self.values.append(value)
            found = self.token_ids[token] = (self.name_ids[name], len(self.values) - 1)
        return found

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
        decoded = []
        for position in range(1, grid.shape[1]):
            local, uniques = pd.factorize(grid[:, position])
            names = {self.parsed(t)[0] for t in uniques}
            if len(names) != 1:
                return False
            decoded.append((names.pop(), local, uniques))
        if len({name for name, _, _ in decoded}) != len(decoded):
            return False
        for _, local, uniques in decoded:
            pairs = self.pairs(uniques)
            self.codes[int(pairs[0, 0])][start : start + rows] = pairs[local, 1]
        return True

    def general(self, chunk: np.ndarray, start: int) -> None:
        """Any mix of specs: tokens flattened with their row numbers."""
        split = [s.split("/")[1:] if isinstance(s, str) else [] for s in chunk]
        lengths = np.fromiter(map(len, split), dtype=np.int64, count=len(split))
        flat = np.fromiter(
            chain.from_iterable(split), dtype=object, count=int(lengths.sum())
        )
        rows = np.repeat(np.arange(start, start + len(chunk)), lengths)
        local, uniques = pd.factorize(flat)
        pairs = self.pairs(uniques)
        name_of, value_of = pairs[local, 0], pairs[local, 1]
        for name_id in np.unique(name_of):
            mask = name_of == name_id
            self.codes[name_id][rows[mask]] = value_of[mask]


def expand_specs(specs: Sequence[Any] | np.ndarray) -> SpecColumns:
    """Every spec string decoded into one array per parameter (missing: NA)."""
    values = np.asarray(specs, dtype=object)
    decoder = _Decoder(len(values))
    collecting = gc.isenabled()
    gc.disable()  # millions of short-lived token strings, no cycles: skip the collector
    try:
        for start in range(0, len(values), CHUNK_ROWS):
            chunk = values[start : start + CHUNK_ROWS]
            if not decoder.uniform(chunk, start):
                decoder.general(chunk, start)
    finally:
        if collecting:
            gc.enable()
    columns = {
        name: _typed(decoder.codes[i], decoder.values)
        for i, name in enumerate(decoder.names)
    }
    return SpecColumns(tuple(decoder.names), columns)


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
