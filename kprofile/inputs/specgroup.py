"""One ``params`` group of a spec: its keys, value lists, and rows as value codes.

A row of a group is a mixed-radix number whose digits are the positions of its values
(first key slowest, as kbench and ``itertools.product`` order them), so the value
codes of a key over all rows are a ``np.repeat``/``np.tile`` pattern.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

SKIPPED_KEYS = frozenset({"metadata"})


@dataclass(frozen=True, eq=False)
class Group:
    """One ``params`` mapping: its keys (first appearance) and value lists.

    A key spelled twice (``$M`` and ``M``) multiplies the rows as kbench does, its
    value coming from the last spelling. ``size`` is -1 when the product is too large
    to matter (more than 2**63 rows); strides are only computed for sizes checked.
    """

    keys: tuple[str, ...]
    choices: tuple[tuple[Any, ...], ...]  # per key, from its last spelling
    spelled: tuple[int, ...]  # value count of every spelling, in order
    last: tuple[int, ...]  # per key: index of its last spelling
    size: int
    log2: float  # log2 of the number of rows (approximate)
    position: dict[str, int]  # key -> its index in ``keys``

    @cached_property
    def strides(self) -> tuple[int, ...]:
        """Per key: group rows between two changes of its value."""
        after = [1] * (len(self.spelled) + 1)
        for i in range(len(self.spelled) - 1, -1, -1):
            after[i] = after[i + 1] * self.spelled[i]
        return tuple(after[i + 1] for i in self.last)

    def codes(self, key: int, dtype: Any = np.int32) -> np.ndarray:
        """Position in ``choices[key]`` of the value of every row of the group."""
        count, stride = len(self.choices[key]), self.strides[key]
        cycle = np.repeat(np.arange(count, dtype=dtype), stride)
        return np.tile(cycle, self.size // (count * stride))


def parse_group(mapping: Mapping[Any, Any]) -> Group:
    """A group's keys and value lists, and how many rows it stands for."""
    names: list[str] = []
    spelled: list[tuple[Any, ...]] = []
    for key, value in mapping.items():
        name = str(key)
        if name not in SKIPPED_KEYS:
            names.append(name.removeprefix("$"))
            spelled.append(tuple(value) if isinstance(value, list) else (value,))
    counts = tuple(map(len, spelled))
    size = math.prod(counts) if len(counts) < 64 or 0 in counts else -1
    if size < 0 or size >= 2**63:
        log2 = sum(map(math.log2, counts))
        size = -1 if log2 >= 63 else math.prod(counts)
    else:
        log2 = math.log2(size) if size else -math.inf
    last = {name: i for i, name in enumerate(names)}
    keys = tuple(last)
    choices = tuple(spelled[last[k]] for k in keys)
    position = {k: i for i, k in enumerate(keys)}
    return Group(keys, choices, counts, tuple(last.values()), size, log2, position)


def objects(values: Sequence[Any]) -> np.ndarray:
    """``values`` as a 1-d object array (lists stay elements, never new axes)."""
    array = np.empty(len(values), dtype=object)
    for i, value in enumerate(values):
        array[i] = value
    return array
