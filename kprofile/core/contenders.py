"""``--rerun``: each shape's contenders, the configs close to its best, as the groups
of a kbench spec that runs exactly them.

A contender is a config close to its shape's best (``kprofile.core.standing``: within
X, or within the run-to-run noise): the configs one sweep cannot tell apart, to be
measured again and joined with the old runs (``--combine``). Shapes come in the order
the results first have them, contenders in the order of their configs there.

A kbench spec group is a cartesian product of its values (first key slowest), and a
spec runs the union of its groups, so a shape's contenders become groups that hold
its columns fixed and expand to exactly its contenders, nothing more
(``product_groups``): one group when they are a whole product; else, for the column
that needs the fewest, one group per value of every other column, listing that
column's values (contenders that lack a parameter are grouped apart, without it).
kbench drops a list's values equal to an earlier one by Python's ``==`` (``True``
and ``1``): where a column holds two such values, each contender is a group.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from kprofile.core.defaults import Closeness
from kprofile.core.standing import Standing, close
from kprofile.core.values import entries, entry
from tuning_codegen.values import value_key

Group = dict[str, Any]  # a parameter's value, or a list of its values


class ShapeContenders(NamedTuple):
    """One shape: its columns' values, its contenders (each a config's parameters,
    missing ones left out) and how many configs ran there."""

    shape: dict[str, Any]
    configs: tuple[dict[str, Any], ...]
    ran: int


class RerunSpec(NamedTuple):
    """What ``--rerun`` writes: kbench's ``name`` and ``file``, the groups, the
    parameters kbench passes at run time (``$``), the shapes they came from, and the
    lines of the comment that heads the file."""

    name: str
    file: str
    groups: tuple[Group, ...]
    runtime: tuple[str, ...]
    shapes: tuple[ShapeContenders, ...]
    header: tuple[str, ...] = ()


def contenders(found: Standing, within: Closeness) -> list[ShapeContenders]:
    """Every shape that ran, with its contenders (module docstring)."""
    measured = found.measured
    table = measured.table  # sorted by shape, then config: first appearance
    keep = close(found, within)
    shape_ids = table["shape"].to_numpy()
    starts = np.flatnonzero(np.r_[True, shape_ids[1:] != shape_ids[:-1]])
    counts = np.diff(np.r_[starts, len(shape_ids)])
    configs = table["config"].to_numpy()
    found_shapes = []
    for start, count in zip(starts.tolist(), counts.tolist()):
        ids = configs[start : start + count][keep[start : start + count]]
        shape = entry(measured.shapes.loc[int(shape_ids[start])].to_dict())
        chosen = tuple(entries(measured.configs.loc[ids]))
        found_shapes.append(ShapeContenders(shape, chosen, count))
    return found_shapes


def shape_groups(shape: ShapeContenders, order: Sequence[str]) -> list[Group]:
    """The groups of one shape: its columns fixed, its contenders listed, each key in
    ``order`` (the results' parameters, as their spec strings have them)."""
    ranked = {k: i for i, k in enumerate(order)}
    groups = []
    for group in product_groups(shape.configs):
        merged = {**shape.shape, **group}
        keys = sorted(merged, key=lambda k: ranked.get(k, len(ranked)))
        groups.append({k: merged[k] for k in keys})
    return groups


def product_groups(configs: Sequence[Mapping[str, Any]]) -> list[Group]:
    """Groups whose cartesian products, joined, are exactly ``configs`` (distinct
    configs; module docstring)."""
    by_keys: dict[tuple[str, ...], list[Mapping[str, Any]]] = {}
    for config in configs:
        by_keys.setdefault(tuple(config), []).append(config)
    groups: list[Group] = []
    for keys, members in by_keys.items():
        groups += _factored(keys, members)
    return groups


def _factored(keys: tuple[str, ...], members: list[Mapping[str, Any]]) -> list[Group]:
    values = {k: _distinct(m[k] for m in members) for k in keys}
    if any(len(set(v)) < len(v) for v in values.values()):
        return [dict(m) for m in members]  # kbench would take True and 1 as one
    size = len({tuple(value_key(m[k]) for k in keys) for m in members})
    if math.prod(len(v) for v in values.values()) == size:
        return [{k: _one_or_list(values[k]) for k in keys}]
    split = min(keys, key=lambda k: len(_split(members, keys, k)))
    return [
        {**{k: rest[0][k] for k in keys if k != split},
         split: _one_or_list(_distinct(m[split] for m in rest))}
        for rest in _split(members, keys, split).values()
    ]  # fmt: skip


def _split(
    members: list[Mapping[str, Any]], keys: tuple[str, ...], column: str
) -> dict[Hashable, list[Mapping[str, Any]]]:
    """``members`` grouped by their values of every key but ``column``."""
    out: dict[Hashable, list[Mapping[str, Any]]] = {}
    for member in members:
        key = tuple(value_key(member[k]) for k in keys if k != column)
        out.setdefault(key, []).append(member)
    return out


def _distinct(values: Any) -> list[Any]:
    seen: dict[Hashable, Any] = {}
    for value in values:
        seen.setdefault(value_key(value), value)
    return list(seen.values())


def _one_or_list(values: list[Any]) -> Any:
    return values[0] if len(values) == 1 else values
