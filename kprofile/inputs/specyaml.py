"""kbench spec YAMLs (and manifests) expanded into parameter columns, as kbench does.

``params`` is a list of groups. In a group each value is a scalar or a list; the group
stands for the cartesian product of its values (first key varies slowest) and groups
are concatenated in order. The key ``metadata`` is skipped and a leading ``$`` is
dropped from names. ``rules`` are boolean expressions over parameter names, evaluated
with ``kprofile.inputs.expr`` (never ``eval``); an instance is kept unless a rule whose
names its group defines is false for it (a rule on a missing (null) value does not
decide). A rule naming a parameter no group has is an error.

Bounded before anything is expanded: the number of rows (the sum over groups of the
product of their value counts) is checked against ``max_rows``, and rows times
parameters against ``CELLS_PER_ROW * max_rows``. Expansion is columnar: a row of a
group is a mixed-radix number whose digits are the value positions, so each column is
index arithmetic over value codes, and a rule is evaluated once per combination of the
values it reads, never once per row.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from kprofile.errors import KprofileError
from kprofile.inputs.expr import Expr, ExprError, compile_expr, evaluate_columns
from kprofile.inputs.exprlang.limits import Budget
from kprofile.inputs.exprlang.parse import shown

SKIPPED_KEYS = frozenset({"metadata"})
DEFAULT_MAX_ROWS = 10**7
CELLS_PER_ROW = 10
MAX_RULES = 1_000
MAX_RULES_LENGTH = 100_000


@dataclass(frozen=True)
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

    @cached_property
    def key_set(self) -> frozenset[str]:
        return frozenset(self.keys)

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


def parse_group(mapping: Mapping[Any, Any]) -> Group:
    """A group's keys and value lists, and how many rows it stands for."""
    spelled = [
        (str(k).removeprefix("$"), tuple(v) if isinstance(v, list) else (v,))
        for k, v in mapping.items()
        if str(k) not in SKIPPED_KEYS
    ]
    counts = tuple(len(choices) for _, choices in spelled)
    log2 = -math.inf if 0 in counts else sum(math.log2(c) for c in counts)
    size = math.prod(counts) if log2 < 63 else -1
    last = {name: i for i, (name, _) in enumerate(spelled)}
    keys = tuple(dict.fromkeys(name for name, _ in spelled))
    choices = tuple(spelled[last[k]][1] for k in keys)
    return Group(keys, choices, counts, tuple(last[k] for k in keys), size, log2)


def parse_rules(rules: Any, path: str) -> list[Expr]:
    """``rules`` as compiled expressions (a single string counts as one rule)."""
    if rules is None:
        return []
    items = [rules] if isinstance(rules, str) else rules
    if not isinstance(items, list) or not all(isinstance(r, str) for r in items):
        raise KprofileError(path, "'rules' must be a list of expression strings")
    if len(items) > MAX_RULES or sum(map(len, items)) > MAX_RULES_LENGTH:
        raise KprofileError(
            path,
            f"rules: at most {MAX_RULES:,} rules of {MAX_RULES_LENGTH:,} characters "
            "in all",
        )
    try:
        return [compile_expr(r) for r in items]
    except ExprError as exc:
        raise KprofileError(path, f"rules: {exc}") from None


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
    budget = Budget()
    kept = [_kept_rows(g, rules, path, budget) for g in groups]
    return _columns(groups, kept)


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
    if rows * keys > CELLS_PER_ROW * max_rows:
        raise KprofileError(
            path,
            f"params expand to {rows:,} rows of {keys:,} parameters, over the limit "
            f"of {CELLS_PER_ROW * max_rows:,} values ({CELLS_PER_ROW} per row of "
            "--max-rows)",
        )


def _kept_rows(
    group: Group, rules: Sequence[Expr], path: str, budget: Budget
) -> np.ndarray | None:
    """Which rows of ``group`` every applicable rule keeps (None: all of them)."""
    keep = None
    for rule in rules:
        if not group.size or not rule.names <= group.key_set:
            continue
        order = [i for i, k in enumerate(group.keys) if k in rule.names]
        counts = [len(group.choices[i]) for i in order]
        weights = [math.prod(counts[i + 1 :]) for i in range(len(order))]
        size = math.prod(counts)
        budget.work(10_000 + size)  # a rule's fixed cost, then its combinations
        combos = np.arange(size, dtype=np.int64)
        columns = {
            group.keys[key]: _objects(group.choices[key])[(combos // w) % c]
            for key, c, w in zip(order, counts, weights)
        }
        try:
            verdict = evaluate_columns(rule, columns, size, budget=budget)
        except ExprError as exc:
            raise KprofileError(path, f"rules: {exc}") from None
        combo = _combinations(group, order, weights, size)
        keep = np.ones(group.size, dtype=bool) if keep is None else keep
        failed = verdict.failed[combo] & keep
        if failed.any():
            first = int(combo[np.argmax(failed)])
            raise KprofileError(path, f"rules: {verdict.explain(first)}")
        keep &= verdict.true[combo] | verdict.missing[combo]
    return keep


def _combinations(
    group: Group, order: Sequence[int], weights: Sequence[int], size: int
) -> np.ndarray:
    """For every row of ``group``: which combination of ``order``'s values it has."""
    dtype = np.int32 if size < 2**31 else np.int64
    combo: np.ndarray = np.zeros(group.size, dtype=dtype)
    for key, weight in zip(order, weights):
        digits = group.codes(key, dtype)
        digits *= weight
        combo += digits
    return combo


def _objects(values: Sequence[Any]) -> np.ndarray:
    array = np.empty(len(values), dtype=object)
    for i, value in enumerate(values):
        array[i] = value
    return array


def _columns(groups: Sequence[Group], kept: Sequence[np.ndarray | None]) -> SpecGrid:
    counts = [g.size if k is None else int(k.sum()) for g, k in zip(groups, kept)]
    names = tuple(dict.fromkeys(k for g, n in zip(groups, counts) if n for k in g.keys))
    columns = {}
    for name in names:
        table = [
            v
            for g, n in zip(groups, counts)
            if n and name in g.key_set
            for v in g.choices[g.keys.index(name)]
        ]
        dtype = np.min_scalar_type(-len(table) - 1)  # -1: missing
        codes = np.full(sum(counts), -1, dtype=dtype)
        start, offset = 0, 0
        for group, keep, n in zip(groups, kept, counts):
            if n and name in group.key_set:
                key = group.keys.index(name)
                own = group.codes(key, dtype)
                codes[start : start + n] = (own if keep is None else own[keep]) + offset
                offset += len(group.choices[key])
            start += n
        columns[name] = typed_codes(codes, table)
    return SpecGrid(names, columns, sum(counts))


def typed_codes(codes: np.ndarray, table: Sequence[Any]) -> Any:
    """The column ``[table[c] if c >= 0 else None for c in codes]``, typed as YAML
    values are: int64 (Int64 with missing), bool (boolean), float64, else object."""
    used = np.zeros(len(table) + 1, dtype=bool)
    used[codes] = True  # -1 (missing) marks the last
    present = [table[int(i)] for i in np.flatnonzero(used[:-1])]
    present = [v for v in present if v is not None]
    missing = bool(used[-1]) or len(present) < int(used[:-1].sum())
    kinds = {type(v) for v in present}
    none = np.array([v is None for v in table] + [True], dtype=bool)
    mask = none[codes] if missing else None
    if kinds == {bool}:
        values = np.array([v is True for v in table] + [False], dtype=bool)[codes]
        return values if mask is None else pd.arrays.BooleanArray(values, mask)
    if kinds == {int} and all(-(2**63) < v < 2**63 for v in present):
        ints = np.array([v if type(v) is int else 0 for v in table] + [0], np.int64)
        if mask is None:
            return ints[codes]
        return pd.arrays.IntegerArray(ints[codes], mask)
    floats = _floats(table) if kinds and kinds <= {int, float} else None
    if floats is not None:
        return floats[codes]
    return _objects([*table, None])[codes]


def _floats(table: Sequence[Any]) -> np.ndarray | None:
    """The table as float64 (NaN for the rest), or None if an int is too large."""
    try:
        values = [float(v) if type(v) in (int, float) else np.nan for v in table]
    except OverflowError:
        return None
    return np.array([*values, np.nan], dtype=np.float64)
