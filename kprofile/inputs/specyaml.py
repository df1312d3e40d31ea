"""kbench spec YAMLs (and manifests) expanded into parameter instances, as kbench does.

``params`` is a list of groups. In a group each value is a scalar or a list; the group
stands for the cartesian product of its values (first key varies slowest) and groups
are concatenated in order. The key ``metadata`` is skipped and a leading ``$`` is
dropped from names. ``rules`` are boolean expressions over parameter names, evaluated
with ``kprofile.inputs.expr`` (never ``eval``); an instance is kept when every rule that
can be evaluated on it is true. A rule naming a parameter no group has is an error.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from kprofile.errors import KprofileError
from kprofile.inputs.expr import Expr, ExprError, compile_expr, evaluate

SKIPPED_KEYS = frozenset({"metadata"})


def expand_group(group: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The instances one ``params`` group stands for, in kbench's order."""
    keys = [str(k).removeprefix("$") for k in group if str(k) not in SKIPPED_KEYS]
    choices = [
        v if isinstance(v, list) else [v]
        for k, v in group.items()
        if str(k) not in SKIPPED_KEYS
    ]
    return [dict(zip(keys, combo)) for combo in itertools.product(*choices)]


def parse_rules(rules: Any, path: str) -> list[Expr]:
    """``rules`` as compiled expressions (a single string counts as one rule)."""
    if rules is None:
        return []
    items = [rules] if isinstance(rules, str) else rules
    if not isinstance(items, list) or not all(isinstance(r, str) for r in items):
        raise KprofileError(path, "'rules' must be a list of expression strings")
    try:
        return [compile_expr(r) for r in items]
    except ExprError as exc:
        raise KprofileError(path, f"rules: {exc}") from None


def expand_spec(document: Mapping[str, Any], path: str) -> list[dict[str, Any]]:
    """Every instance of a spec/manifest document after expansion and rules."""
    groups = document.get("params")
    if not isinstance(groups, list) or not all(isinstance(g, Mapping) for g in groups):
        raise KprofileError(path, "'params' must be a list of mappings")
    instances = [inst for group in groups for inst in expand_group(group)]
    rules = parse_rules(document.get("rules"), path)
    known = {k for inst in instances for k in inst}
    for rule in rules:
        unknown = sorted(rule.names - known)
        if unknown:
            raise KprofileError(
                path,
                f"rule {rule.text!r} uses {', '.join(map(repr, unknown))}, which no params group defines",
            )
    return [inst for inst in instances if _passes(inst, rules, path)]


def _passes(instance: Mapping[str, Any], rules: Sequence[Expr], path: str) -> bool:
    for rule in rules:
        if not rule.names <= instance.keys():
            continue
        try:
            verdict = evaluate(rule, instance)
            if verdict is not pd.NA and not verdict:  # NA (a null value): no say
                return False
        except ExprError as exc:
            raise KprofileError(path, f"rules: {exc}") from None
    return True
