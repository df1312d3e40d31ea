"""Spec ``rules``: which rows of which groups every rule keeps.

A rule applies to the groups defining every name it reads. It is evaluated once,
vectorized, over the concatenated combinations of the values it reads in those groups
(never once per row), then each group's rows look their combination up. As in kbench,
an instance is kept unless an applicable rule is false for it; a rule on a missing
(null) value has no say, and a rule's error only counts for instances the rules
before it kept.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial
from typing import Any, NamedTuple

import numpy as np

from kprofile.errors import KprofileError
from kprofile.inputs.expr import (
    Coded,
    Expr,
    ExprError,
    Verdict,
    coded,
    compile_expr,
    evaluate_columns,
)
from kprofile.inputs.exprlang.limits import PY_COST, Budget
from kprofile.inputs.specgroup import Group

MAX_RULES = 1_000
MAX_RULES_LENGTH = 100_000
Keep = np.ndarray | None  # rows of a group kept so far (None: all of them)


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


def kept_rows(
    groups: Sequence[Group], rules: Sequence[Expr], path: str, budget: Budget
) -> list[Keep]:
    """For each group, the rows every applicable rule keeps."""
    keeps: list[Keep] = [None] * len(groups)
    for rule in rules:
        users = [
            i
            for i, g in enumerate(groups)
            if g.size and rule.names <= g.position.keys()
        ]
        if not users:
            continue
        plans = [_Plan.of(groups[i], rule) for i in users]
        try:
            budget.work(PY_COST * len(users))  # each group's own Python work
            size = sum(p.size for p in plans)
            budget.work(size * len(rule.names))  # the columns of combinations
            columns = _sources(plans, sorted(rule.names))
            verdict = evaluate_columns(rule, columns, size, budget=budget)
        except ExprError as exc:
            raise KprofileError(path, f"rules: {exc}") from None
        updated, failure = _applied(plans, [keeps[i] for i in users], verdict)
        if failure is not None:
            raise KprofileError(path, f"rules: {verdict.explain(failure)}")
        for i, keep in zip(users, updated):
            keeps[i] = keep
    return keeps


_DROPPED = np.zeros(1, dtype=bool)  # a one-row group's row, left out (never mutated)


def _applied(
    plans: Sequence[_Plan], keeps: Sequence[Keep], verdict: Verdict
) -> tuple[list[Keep], int | None]:
    """Each group's rows kept after one rule, and the first failing combination
    among rows still kept (groups in order, rows in order), if any."""
    passed = verdict.true | verdict.missing
    offsets = np.cumsum([0, *(p.size for p in plans)])[:-1]
    single = np.array([p.group.size == 1 for p in plans], dtype=bool)
    alive = np.array([k is None or bool(k[0]) for k in keeps], dtype=bool) & single
    failed = verdict.failed[offsets] & alive  # one-row groups, all at once
    first = int(np.argmax(failed)) if failed.any() else len(plans)
    updated = [
        keep if not one else (keep if passed[offset] else _DROPPED)
        for keep, one, offset in zip(keeps, single.tolist(), offsets.tolist())
    ]
    for number in np.flatnonzero(~single[:first]).tolist():
        plan, offset = plans[number], int(offsets[number])
        combo = plan.combinations() + offset
        keep = keeps[number]
        keep = np.ones(plan.group.size, bool) if keep is None else keep
        rows = verdict.failed[combo] & keep
        if rows.any():
            return updated, int(combo[np.argmax(rows)])
        updated[number] = keep & passed[combo]
    return updated, None if first == len(plans) else int(offsets[first])


class _Plan(NamedTuple):
    """The combinations of the values a rule reads in one group."""

    group: Group
    order: tuple[int, ...]  # the keys the rule reads, in group order
    counts: tuple[int, ...]
    weights: tuple[int, ...]
    size: int

    @classmethod
    def of(cls, group: Group, rule: Expr) -> _Plan:
        if group.size == 1:  # the common case of manifests: nothing to combine
            return cls(group, (), (), (), 1)
        order = tuple(sorted(group.position[name] for name in rule.names))
        counts = tuple(len(group.choices[i]) for i in order)
        weights = tuple(math.prod(counts[i + 1 :]) for i in range(len(order)))
        return cls(group, order, counts, weights, math.prod(counts))

    def weight(self, key: int) -> int:
        """Combinations between two changes of ``key``'s value (1 for one row)."""
        return self.weights[self.order.index(key)] if self.order else 1

    def combinations(self) -> np.ndarray:
        """For every row of the group: which combination of values it has."""
        if self.group.size == 1:
            return np.zeros(1, dtype=np.int64)
        combo = np.zeros(self.group.size, dtype=np.int64)
        for key, weight in zip(self.order, self.weights):
            digits = self.group.codes(key, np.int64)
            digits *= weight
            combo += digits
        return combo


def _sources(plans: Sequence[_Plan], names: Sequence[str]) -> dict[str, Coded]:
    """Each name's value in every combination of every plan, block by block."""
    starts = np.cumsum([0, *(p.size for p in plans)])
    sources = {}
    for name in names:
        keys = [p.group.position[name] for p in plans]
        choices = [p.group.choices[k] for p, k in zip(plans, keys)]
        sizes = np.array([len(c) for c in choices], dtype=np.int64)
        offsets = np.cumsum(sizes) - sizes
        weights = np.array([p.weight(k) for p, k in zip(plans, keys)], np.int64)
        table = [value for values in choices for value in values]
        sources[name] = coded(table, partial(_codes, starts, offsets, weights, sizes))
    return sources


def _codes(
    starts: np.ndarray,
    offsets: np.ndarray,
    weights: np.ndarray,
    sizes: np.ndarray,
    start: int,
    stop: int,
) -> np.ndarray:
    """Table positions for combinations [start, stop) of the concatenated plans."""
    combos = np.arange(start, stop, dtype=np.int64)
    plan = np.searchsorted(starts, combos, side="right") - 1
    local = combos - starts[plan]
    return offsets[plan] + (local // weights[plan]) % sizes[plan]
