"""``--update``: what was chosen per shape, and the sections that report the upsert."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from kprofile.core.analysis import CommonConfig, best_row
from kprofile.core.metric import Metric
from kprofile.inputs.load import Results
from kprofile.manifest.layout import read_layout
from kprofile.manifest.update import (
    ShapeChange,
    UpdateResult,
    change_details,
    shape_label,
)
from kprofile.render.section import Section

STATUSES = ("added", "changed", "unchanged")


def chosen_config(
    results: Results, metric: Metric, common: CommonConfig | None, pivots: Sequence[str]
) -> dict[str, Any] | None:
    """The config to upsert for one file (or ``-p`` group): the common config of
    ``--top``/``--within`` if given, else the best entry; pivots first, missing values
    left out. None when no run succeeded."""
    if common is not None:
        config = common.config if len(common.subset) else None
    else:
        best = best_row(results, metric)
        config = best.config() if best.position is not None else None
    if config is None:
        return None
    ordered = {p: config[p] for p in pivots if p in config}
    ordered.update((k, v) for k, v in config.items() if k not in ordered)
    return {k: v for k, v in ordered.items() if v is not None}


def manifest_pivots(
    text: str, path: str, candidates: Sequence[str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Default pivots (columns constant in the results) that the manifest's entries use,
    and the ones they never mention (e.g. a constant ``dtype``): matching on a key no
    entry has would add every shape as new. An empty manifest keeps every candidate.
    The manifest read here is kept for ``update_manifest`` on the same text."""
    items = read_layout(text, path).items
    if not items:
        return tuple(candidates), ()
    used = tuple(p for p in candidates if any(p in e.merged for e in items))
    return used, tuple(p for p in candidates if p not in used)


def update_section(
    result: UpdateResult,
    *,
    path: str,
    pivots: Sequence[str],
    state: str,
    unused: Sequence[str] = (),
) -> Section:
    """One row per shape: its status, the params entry it is (or became), and what
    changed."""
    counts = summary_counts(result.changes)
    facts: tuple[tuple[str, Any], ...] = (
        ("manifest", path),
        ("matched by", ", ".join(pivots)),
        *counts.items(),
        ("file", state),
    )
    table = pd.DataFrame(
        {
            "shape": [shape_label(c.shape) for c in result.changes],
            "status": [c.status for c in result.changes],
            "entry": [c.index for c in result.changes],
            "changes": [change_details(c) for c in result.changes],
        }
    )
    notes = (
        (
            f"not matched by {', '.join(unused)}: constant in the results, but in no "
            "entry of the manifest (-p names the shape columns)",
        )
        if unused
        else ()
    )
    return Section("update", f"update: {path}", path, facts, table, notes=notes)


def diff_section(path: str, diff: str) -> Section:
    """``--dry-run``: the unified diff the update would make, as one multi-line note
    (kept whole)."""
    return Section(
        "update-diff",
        f"update: {path}: diff (dry run, nothing written)",
        path,
        notes=(diff,),
    )


def summary_counts(changes: Sequence[ShapeChange]) -> Mapping[str, int]:
    return {s: sum(c.status == s for c in changes) for s in STATUSES}
