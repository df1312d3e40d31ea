"""kbench spec YAMLs (and manifests) expanded into parameter columns, as kbench does.

``params`` is a list of groups. In a group each value is a scalar or a list; the group
stands for the cartesian product of its values (first key varies slowest) and groups
are concatenated in order. The key ``metadata`` is skipped and a leading ``$`` is
dropped from names. ``rules`` are boolean expressions over parameter names, evaluated
with ``kprofile.inputs.expr`` (never ``eval``); an instance is kept unless a rule whose
names its group defines is false for it (a rule on a missing (null) value does not
decide). A rule naming a parameter no group has is an error.

Bounded before anything is expanded: the number of rows (the sum over groups of the
product of their value counts) is checked against ``max_rows``, the distinct
parameter names against ``MAX_PARAMS``, and rows times parameters against
``CELLS_PER_ROW * max_rows``. Expansion is columnar (value codes
per group, ``specgroup``), and a rule is evaluated once per combination of the values
it reads, never once per row (``specrules``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from kprofile.errors import KprofileError
from kprofile.inputs.exprlang.limits import Budget
from kprofile.inputs.exprlang.parse import shown
from kprofile.inputs.limits import DEFAULT_MAX_ROWS, MAX_PARAMS
from kprofile.inputs.specgroup import Group, objects, parse_group
from kprofile.inputs.specrules import Keep, kept_rows, parse_rules

CELLS_PER_ROW = 10


@dataclass(frozen=True, eq=False)
class SpecGrid:
    """The expanded spec: one typed column per parameter, in order of appearance."""

    names: tuple[str, ...]
    columns: dict[str, Any]
    size: int

    def records(self) -> list[dict[str, Any]]:
        """The rows as dicts without missing keys (small grids: tests, messages)."""
        rows = pd.DataFrame(self.columns, columns=list(self.names)).astype(object)
        return [
            {str(k): v for k, v in row.items() if v is not None and v is not pd.NA}
            for row in rows.where(rows.notna(), None).to_dict("records")
        ]


def expand_spec(
    document: Mapping[str, Any], path: str, *, max_rows: int = DEFAULT_MAX_ROWS
) -> SpecGrid:
    """Every instance of a spec/manifest document after expansion and rules."""
    params = document.get("params")
    if not isinstance(params, list) or not all(isinstance(g, Mapping) for g in params):
        raise KprofileError(path, "'params' must be a list of mappings")
    groups = [parse_group(g) for g in params]
    _check_size(groups, path, max_rows)
    rules = parse_rules(document.get("rules"), path)
    known = {k for g in groups if g.size for k in g.keys}
    for rule in rules:
        unknown = sorted(rule.names - known)
        if unknown:
            raise KprofileError(
                path,
                f"rule {shown(rule.text)} uses {', '.join(map(repr, unknown))}, "
                "which no params group defines",
            )
    return _columns(groups, kept_rows(groups, rules, path, Budget()))


def _check_size(groups: Sequence[Group], path: str, max_rows: int) -> None:
    huge = any(g.size < 0 for g in groups)
    rows = -1 if huge else sum(g.size for g in groups)
    if huge or rows > max_rows:
        largest = max(g.log2 for g in groups) * math.log10(2)
        count = f"about 10^{round(largest)}" if huge else f"{rows:,}"
        raise KprofileError(
            path,
            f"params expand to {count} rows, over the limit of {max_rows:,} "
            "(see --max-rows)",
        )
    keys = len({k for g in groups if g.size for k in g.keys})
    if keys > MAX_PARAMS:
        raise KprofileError(
            path,
            f"params name {keys:,} distinct parameters, over the limit of "
            f"{MAX_PARAMS:,}",
        )
    if rows * keys > CELLS_PER_ROW * max_rows:
        raise KprofileError(
            path,
            f"params expand to {rows:,} rows of {keys:,} parameters, over the limit "
            f"of {CELLS_PER_ROW * max_rows:,} values ({CELLS_PER_ROW} per row of "
            "--max-rows)",
        )


def _columns(groups: Sequence[Group], keeps: Sequence[Keep]) -> SpecGrid:
    """The kept rows of every group as one typed column per name."""
    counts = [g.size if k is None else int(k.sum()) for g, k in zip(groups, keeps)]
    starts = np.cumsum([0, *counts])
    parts: dict[str, list[tuple[int, int]]] = {}  # name -> (group, key) with rows
    for number, (group, count) in enumerate(zip(groups, counts)):
        for key, name in enumerate(group.keys if count else ()):
            parts.setdefault(name, []).append((number, key))
    columns = {}
    for name, where in parts.items():
        table = [v for g, k in where for v in groups[g].choices[k]]
        dtype = np.min_scalar_type(-len(table) - 1)  # -1: missing
        codes = np.full(int(starts[-1]), -1, dtype=dtype)
        offset = 0
        for number, key in where:
            group, keep, start = groups[number], keeps[number], int(starts[number])
            if group.size == 1:
                codes[start] = offset
            else:
                own = group.codes(key, dtype)
                own = own if keep is None else own[keep]
                codes[start : start + len(own)] = own + offset
            offset += len(group.choices[key])
        columns[name] = typed_codes(codes, table)
    return SpecGrid(tuple(parts), columns, int(starts[-1]))


def typed_codes(codes: np.ndarray, table: Sequence[Any]) -> Any:
    """The column ``[table[c] if c >= 0 else missing for c in codes]``, typed so that
    every value stays exactly what YAML read: int64 (Int64 with missing), bool
    (boolean) and float64 (floats, none of them NaN: NaN there means missing) when one
    type fits all; anything else (strings, null, NaN, a mix of ints and floats, an int
    beyond int64, dates, binary) an object column whose missing cells are ``pd.NA``,
    so that a null (None) and a ``.nan`` stay values."""
    used = np.zeros(len(table) + 1, dtype=bool)
    used[codes] = True  # -1 (missing) marks the last
    present = [table[int(i)] for i in np.flatnonzero(used[:-1])]
    kinds = {type(v) for v in present}
    mask = codes < 0 if used[-1] else None
    if kinds == {bool}:
        values = np.array([v is True for v in table] + [False], dtype=bool)[codes]
        return values if mask is None else pd.arrays.BooleanArray(values, mask)
    if kinds == {int} and all(-(2**63) < v < 2**63 for v in present):
        ints = np.array([v if type(v) is int else 0 for v in table] + [0], np.int64)
        if mask is None:
            return ints[codes]
        return pd.arrays.IntegerArray(ints[codes], mask)
    if kinds == {float} and not any(math.isnan(v) for v in present):
        return _floats(table)[codes]
    return objects([*table, pd.NA])[codes]


def _floats(table: Sequence[Any]) -> np.ndarray:
    """The table as float64 (NaN for the rest and for missing, the last)."""
    values = [v if type(v) is float else np.nan for v in table]
    return np.array([*values, np.nan], dtype=np.float64)
