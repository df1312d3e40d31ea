"""``--ranges COL --update MANIFEST``: replace each group's range entries in a curated
manifest (``kprofile.manifest.replace``) and report it as an ``update`` section.

Writing, ``--dry-run`` and the diff are ``kprofile.modes.update``'s, as for every mode.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from kprofile.manifest.replace import (
    GroupChange,
    RangeTable,
    ReplaceResult,
    replace_ranges,
)
from kprofile.modes.update import manifest_pivots, update_state
from kprofile.options import Options
from kprofile.outcome import Outcome
from kprofile.render.section import Section

STATUSES = ("replaced", "added", "unchanged")


def replace_in(
    text: str, path: str, table: RangeTable, options: Options, outcome: Outcome
) -> str:
    """``text`` with the groups' ranges replaced; appends the ``update`` section.
    Without ``-p``, group columns no manifest entry uses are not matched on."""
    match: tuple[str, ...] = table.group_cols
    unused: tuple[str, ...] = ()
    if not options.pivots:
        match, unused = manifest_pivots(text, path, table.group_cols)
    result = replace_ranges(text, table, match=match, path=path)
    state = update_state(result.text != text, dry_run=options.dry_run)
    outcome.sections.append(
        replace_section(
            result, table, path=path, match=match, state=state, unused=unused
        )
    )
    return result.text


def replace_section(
    result: ReplaceResult,
    table: RangeTable,
    *,
    path: str,
    match: Sequence[str],
    state: str,
    unused: Sequence[str] = (),
) -> Section:
    """One row per group: its status, the entries it had, where its ranges now are."""
    counts = {s: sum(c.status == s for c in result.changes) for s in STATUSES}
    facts: tuple[tuple[str, Any], ...] = (
        ("manifest", path),
        ("matched by", ", ".join(match) or "- (every entry with the range column)"),
        ("range column", table.column),
        *counts.items(),
        ("file", state),
    )
    rows = pd.DataFrame(
        {
            "group": [_label(c) for c in result.changes],
            "status": [c.status for c in result.changes],
            "before": [_indices(c.removed) for c in result.changes],
            "entries": [_indices(c.entries) for c in result.changes],
        }
    )
    notes = (
        (
            f"not matched by {', '.join(unused)}: constant in the results, but in no "
            "entry of the manifest (-p names the group columns)",
        )
        if unused
        else ()
    )
    return Section("update", f"update: {path}", path, facts, rows, notes=notes)


def _label(change: GroupChange) -> str:
    return "/".join(f"{k}={v}" for k, v in change.group.items()) or "all rows"


def _indices(indices: Sequence[int]) -> str:
    """``params[3-7]``, ``params[2, 5]`` or ``-``: entry indices, runs compacted."""
    values = list(indices)
    if not values:
        return "-"
    runs: list[list[int]] = []
    for i in values:
        if runs and i == runs[-1][-1] + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    parts = [str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs]
    return f"params[{', '.join(parts)}]"
