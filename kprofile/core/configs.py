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
    codes = [_local(results, p) for p in params]
    return combined([c for c, _ in codes], [n for _, n in codes], len(results.frame))


def shared_config_keys(
    inputs: Sequence[Results], params: Sequence[str]
) -> list[np.ndarray]:
    """``config_keys`` of every input, comparable across them: a value is numbered
    once for all inputs, by ``tuning_codegen.values.value_key`` (``True`` and ``1``
    apart, ``128`` and ``128.0`` alike)."""
    per_input: list[list[np.ndarray]] = [[] for _ in inputs]
    sizes = []
    for param in params:
        vocabulary: dict[Hashable, int] = {}
        for i, results in enumerate(inputs):
            per_input[i].append(_shared(results, param, vocabulary))
        sizes.append(len(vocabulary))
    return [combined(codes, sizes, len(r.frame)) for codes, r in zip(per_input, inputs)]


def combined(
    codes: Sequence[np.ndarray], sizes: Sequence[int], rows: int
) -> np.ndarray:
    """Codes in ``[0, sizes[i])`` of each column as one key per row: a mixed-radix
    number, numbered again (by first appearance) before it would overflow."""
    key = np.zeros(rows, dtype=np.int64)
    room = 1
    for column, size in zip(codes, sizes):
        size = max(size, 1)
        if room * size >= _ROOM:
            key = pd.factorize(key)[0].astype(np.int64)
            room = int(key.max()) + 1 if rows else 1
        key = key * size + column
        room *= size
    return key


def _local(results: Results, param: str) -> tuple[np.ndarray, int]:
    """The column's codes in ``[0, n)`` and ``n`` (a missing value, or no such
    column, is code 0)."""
    if param not in results.frame.columns:
        return np.zeros(len(results.frame), dtype=np.int64), 1
    codes = results.value_codes(param).astype(np.int64) + 1
    return codes, int(codes.max()) + 1 if len(codes) else 1


def _shared(
    results: Results, param: str, vocabulary: dict[Hashable, int]
) -> np.ndarray:
    """The column's values as ``vocabulary``'s codes (which grows): each distinct
    value of the input looked up once."""
    if param not in results.frame.columns:
        code = canon_code_list([None], vocabulary)[0]
        return np.full(len(results.frame), code, dtype=np.int64)
    local = results.value_codes(param).astype(np.int64) + 1  # 0: missing
    count = int(local.max()) + 1 if len(local) else 1
    first = np.zeros(count, dtype=np.int64)
    first[local[::-1]] = np.arange(len(local) - 1, -1, -1)  # each code's first row
    values = results.frame[param].iloc[first].tolist()
    values[0] = None  # code 0: a missing value, whether or not a row has one
    known = canon_code_list([None if v is pd.NA else v for v in values], vocabulary)
    return known[local]
