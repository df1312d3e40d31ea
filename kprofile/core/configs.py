"""Which rows are the same config: one integer per row for its tuning parameters'
values, within one input (``config_keys``) or the same in every input
(``shared_config_keys``, where the values are matched as ``same_value`` means it).

Made from each parameter's value codes (``Results.value_codes``: the loader's, made
once), a mixed-radix number of them per row, so that a file of 1,179,648 rows costs
a few integer passes per parameter, never a hash of its rows: the per-shape view and
``-d`` compare configs by these keys.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
import pandas as pd

from kprofile.core.values import canon_code_list
from kprofile.inputs.load import Results

_ROOM = 1 << 62  # a key stays below this: numbered again when it would not


def config_keys(results: Results, params: Sequence[str]) -> np.ndarray:
    """One key per row of ``results``: equal exactly where every one of ``params``
    holds the same value (a parameter it lacks, or a missing value, is one value of
    its own). Keys of different inputs are not comparable."""
    key = _Key(len(results.frame))
    for param in params:
        codes = _codes(results, param)
        key.add(codes, int(codes.max()) + 1 if len(codes) else 1)
    return key.key


def shared_config_keys(
    inputs: Sequence[Results], params: Sequence[str]
) -> list[np.ndarray]:
    """``config_keys`` of every input, comparable across them: a value is numbered
    once for all inputs, by ``tuning_codegen.values.value_key`` (``True`` and ``1``
    apart, ``128`` and ``128.0`` alike)."""
    keys = [_Key(len(r.frame)) for r in inputs]
    rows = np.arange(max((len(r.frame) for r in inputs), default=0))
    for param in params:
        vocabulary: dict[Hashable, int] = {}
        shared = [_shared(r, param, vocabulary, rows) for r in inputs]
        for key, codes in zip(keys, shared):
            key.add(codes, len(vocabulary))
    return [key.key for key in keys]


class _Key:
    """A mixed-radix number per row, a column's codes at a time, numbered again (by
    first appearance) before it would overflow; made in place (a fresh array of a
    million rows costs its pages again)."""

    def __init__(self, rows: int) -> None:
        self.key = np.zeros(rows, dtype=np.int64)
        self.room = 1

    def add(self, codes: np.ndarray, size: int) -> None:
        """``codes``, each in ``[0, size)``."""
        size = max(size, 1)
        if self.room * size >= _ROOM:
            self.key = pd.factorize(self.key)[0].astype(np.int64)
            self.room = int(self.key.max()) + 1 if len(self.key) else 1
        self.key *= size
        self.key += codes
        self.room *= size


def _codes(results: Results, param: str) -> np.ndarray:
    """The column's codes from 0 (0: a missing value, or no such column)."""
    if param not in results.frame.columns:
        return np.zeros(len(results.frame), dtype=np.int64)
    codes = results.value_codes(param).astype(np.int64)
    codes += 1
    return codes


def _shared(
    results: Results,
    param: str,
    vocabulary: dict[Hashable, int],
    rows: np.ndarray,
) -> np.ndarray:
    """The column's values as ``vocabulary``'s codes (which grows): each distinct
    value of the input looked up once, at one row that holds it (``rows``: 0, 1, 2,
    ... as long as the longest input)."""
    if param not in results.frame.columns:
        code = canon_code_list([None], vocabulary)[0]
        return np.full(len(results.frame), code, dtype=np.int64)
    local = _codes(results, param)
    some = np.zeros(int(local.max()) + 1 if len(local) else 1, dtype=np.int64)
    some[local] = rows[: len(local)]  # a row of each code (the last one)
    values = results.frame[param].iloc[some].tolist()
    values[0] = None  # code 0: a missing value, whether or not a row has one
    known = canon_code_list([None if v is pd.NA else v for v in values], vocabulary)
    return np.take(known, local, out=local)
