"""``--list``: every table's status (fresh, stale, or its first error), in time that
grows with the registry, not with its square.

The tables writing one target are planned together, once (their target read and its
markers found once). Only a target where something fails is looked at table by table,
and then its markers are located once, each table rendered once, and the tables that
render planned together again: a table's error is its own first error, else the
target's first.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import NamedTuple

from tuning_codegen.errors import InputError, InputErrors
from tuning_codegen.gcpause import paused_gc
from tuning_codegen.generate import markers_of, plan_target, render_table
from tuning_codegen.sources import WorkingTree, group_by_target, other_tables_by_target
from tuning_codegen.splice import locate
from tuning_codegen.table import Table


class Status(NamedTuple):
    table: Table
    status: str  # fresh, stale, or error
    error: InputError | None = None


def statuses(
    tables: Sequence[Table],
    siblings: Sequence[Table],
    real_of: Callable[[str], str] = os.path.realpath,
) -> list[Status]:
    """One status per table of ``tables``, in their order."""
    with paused_gc():  # rendering many tables makes many objects, few garbage
        return _statuses(tables, siblings, real_of)


def _statuses(
    tables: Sequence[Table],
    siblings: Sequence[Table],
    real_of: Callable[[str], str],
) -> list[Status]:
    files = WorkingTree()
    others = other_tables_by_target(tables, siblings)
    found: dict[str, Status] = {}
    for key, group in group_by_target(tables).items():
        real = real_of(group[0].target)
        rest = others.get(key, [])
        try:
            update = plan_target(real, group, rest, files, guard=False)
        except (InputError, InputErrors):
            found.update(
                (s.table.name, s) for s in _one_by_one(real, group, rest, files)
            )
            continue
        for table in group:
            stale = table in update.stale_tables
            found[table.name] = Status(table, "stale" if stale else "fresh")
    return [found[t.name] for t in tables]


def _one_by_one(
    real: str, group: list[Table], rest: list[Table], files: WorkingTree
) -> list[Status]:
    """The statuses of a target where planning failed."""
    everyone = [*group, *rest]
    target_errors: list[InputError] = []
    try:
        locate(files.text(group[0].target), markers_of(everyone), group[0].target)
    except InputErrors as exc:
        target_errors = list(exc.errors)
    except InputError as exc:
        target_errors = [exc]
    failed: dict[str, InputError] = {}
    for table in group:
        try:
            render_table(table, files, _all_markers(everyone))
        except InputErrors as exc:
            failed[table.name] = exc.errors[0]
    if target_errors:
        return [Status(t, "error", failed.get(t.name, target_errors[0])) for t in group]
    good = [t for t in group if t.name not in failed]
    stale: set[str] = set()
    if good:
        bad = [t for t in group if t.name in failed]
        try:
            update = plan_target(real, good, [*rest, *bad], files, guard=False)
            stale = {t.name for t in update.stale_tables}
        except (InputError, InputErrors) as exc:
            first = exc.errors[0] if isinstance(exc, InputErrors) else exc
            failed.update((t.name, first) for t in good)
    return [
        Status(t, "error", failed[t.name])
        if t.name in failed
        else Status(t, "stale" if t.name in stale else "fresh")
        for t in group
    ]


def _all_markers(tables: Sequence[Table]) -> dict[str, str]:
    forbidden: dict[str, str] = {}
    for table in tables:
        forbidden.update(table.markers())
    return forbidden
