"""``--update MANIFEST``: the one change a mode asked for, made to a curated manifest.

A mode hands over one ``ManifestChange`` (``kprofile.manifest.change``): ``Upserts``
(one config per shape, from the per-file views) or ``RangeReplacement`` (each group's
range entries, from ``--ranges``). The edit itself is byte-exact and in place
(``kprofile.manifest.upsert``, ``kprofile.manifest.ranges``), on the manifest read
once (``kprofile.manifest.layout``); this sink decides the pivots, reports each
shape's or group's change as a section, and writes the file, or with ``--dry-run``
only shows the diff.

It is a compare-and-swap: the manifest is locked (the code generator's ``flock``
locks) before it is read, and written through the code generator's transaction, which
checks that it still holds the text the edit was computed from. Two ``--update`` runs
at once therefore both land, one after the other; nothing is lost.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import pandas as pd

from kprofile.core.values import shape_label
from kprofile.errors import KprofileError
from kprofile.manifest.change import ManifestChange, RangeReplacement, Upserts
from kprofile.manifest.layout import Layout, read_layout
from kprofile.manifest.outcome import (
    ShapeChange,
    Summary,
    UpdateResult,
    change_details,
    dropped_note,
)
from kprofile.manifest.ranges import GroupChange, ReplaceResult, replace_ranges
from kprofile.manifest.upsert import upsert
from kprofile.render.section import Section
from kprofile.sinks.belongs import check_origin, fixed_warnings
from tuning_codegen.diff import unified_diff
from tuning_codegen.errors import memory_named
from tuning_codegen.gcpause import paused_gc
from tuning_codegen.locks import locked
from tuning_codegen.textio import read_text
from tuning_codegen.transaction import write_locked

STATUSES = ("added", "changed", "unchanged")
NOTHING_MORE = Summary()
RANGE_STATUSES = ("replaced", "added", "unchanged")


class UpdateReport(NamedTuple):
    sections: tuple[Section, ...]  # the change (with --dry-run, its diff too)
    written: bool  # the manifest was rewritten
    warnings: tuple[str, ...] = ()  # for stderr


class _Edited(NamedTuple):
    text: str
    section: Section
    warnings: tuple[str, ...]


def apply_update(
    path: str,
    change: ManifestChange | None,
    *,
    dry_run: bool,
    pivots_given: bool,
    accept_foreign: bool = False,
) -> UpdateReport:
    """Make ``change`` to the manifest ``path``: locked, read, edited, and written
    atomically only if it changes and is still what was read. Without
    ``pivots_given`` (-p), pivots no manifest entry uses are not matched on.
    Results of another benchmark, or that sweep parameters no entry names, are
    refused unless ``accept_foreign`` (``sinks.belongs``)."""
    if change is None or (isinstance(change, Upserts) and not change.configs):
        raise KprofileError(
            path, "--update: no config to put in (no successful run in any input)"
        )
    real = os.path.realpath(path)
    with locked([real]):
        text = read_text(path)
        with memory_named(path, "update it"):  # within every limit, too big here
            edited = _edit(change, text, path, dry_run, pivots_given, accept_foreign)
        new_text, section, warnings = edited
        if new_text == text:
            return UpdateReport((section,), False, warnings)
        if dry_run:  # named from its folder: patch -p0 and git apply -p0 there
            name = os.path.basename(path)
            diff = unified_diff(text, new_text, name, name)
            return UpdateReport((section, diff_section(path, diff)), False, warnings)
        write_locked([(path, real, new_text, text)])
    return UpdateReport((section,), True, warnings)


def _edit(
    change: ManifestChange,
    text: str,
    path: str,
    dry_run: bool,
    pivots_given: bool,
    accept_foreign: bool,
) -> _Edited:
    """The manifest's new text, the section that reports the change and the
    warnings. Without ``-p``, pivots that no manifest entry uses are not matched on
    (``-p`` made the change's pivots)."""
    with paused_gc():  # the layout's objects are many, and none of them garbage
        layout = read_layout(text, path)  # once, for the checks and the edit
        warnings = [] if accept_foreign else check_origin(layout, change.origin, path)
        edited = _edit_layout(change, text, layout, path, dry_run, pivots_given)
        return edited._replace(warnings=(*warnings, *edited.warnings))


def _edit_layout(
    change: ManifestChange,
    text: str,
    layout: Layout,
    path: str,
    dry_run: bool,
    pivots_given: bool,
) -> _Edited:
    pivots: tuple[str, ...] = change.pivots
    unused: tuple[str, ...] = ()
    if not pivots_given:
        pivots, unused = manifest_pivots(layout, change.pivots)
    if isinstance(change, RangeReplacement):
        replaced = replace_ranges(
            text, change.table, match=pivots, path=path, layout=layout
        )
        state = update_state(replaced.text != text, dry_run=dry_run)
        section = replace_section(
            replaced, change.table.column, path=path, match=pivots, state=state,
            unused=unused,
        )  # fmt: skip
        return _Edited(replaced.text, section, ())
    if change.keep is not None:
        from kprofile.sinks.keep import kept_update  # start-up: --keep-within only

        result, more = kept_update(text, change, layout, pivots, path)
    else:
        result = upsert(text, change.configs, pivots=pivots, path=path, layout=layout)
        more = NOTHING_MORE
    state = update_state(result.text != text, dry_run=dry_run)
    section = update_section(
        result, path=path, pivots=pivots, state=state, unused=unused, more=more
    )
    fixed = [p for p in change.fixed if p in pivots]
    warnings = fixed_warnings(layout, result.changes, fixed=fixed, path=path)
    return _Edited(result.text, section, tuple(warnings))


def update_state(changed: bool, *, dry_run: bool) -> str:
    if dry_run:
        return (
            "dry run: nothing written" if changed else "dry run: nothing would change"
        )
    return "updated" if changed else "nothing to change: not rewritten"


def manifest_pivots(
    layout: Layout, candidates: Sequence[str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Default pivots (columns constant in the results) that the manifest's entries use,
    and the ones they never mention (e.g. a constant ``dtype``): matching on a key no
    entry has would add every shape as new. An empty manifest keeps every candidate."""
    items = layout.items
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
    more: Summary = NOTHING_MORE,
) -> Section:
    """One row per shape: its status, the params entry it is (or became), and what
    changed; ``more``: what ``--keep-within`` adds (``sinks.keep``)."""
    counts = summary_counts(result.changes, kept=more.kept)
    facts: tuple[tuple[str, Any], ...] = (
        ("manifest", path),
        ("matched by", ", ".join(pivots)),
        *more.facts,
        *counts.items(),
        ("file", state),
    )
    changes = result.changes
    columns: dict[str, list[Any]] = {
        "shape": [shape_label(c.shape) for c in changes],
        "status": [c.status for c in changes],
        "entry": [c.index for c in changes],
        "changes": [change_details(c) for c in changes],
    }
    columns.update(more.columns)
    notes = _unused_note(unused, "shape") + dropped_note(result.dropped) + more.notes
    table = pd.DataFrame(columns)
    return Section("update", f"update: {path}", path, facts, table, notes=notes)


def replace_section(
    result: ReplaceResult,
    column: str,
    *,
    path: str,
    match: Sequence[str],
    state: str,
    unused: Sequence[str] = (),
) -> Section:
    """One row per group: its status, the entries it had, where its ranges now are."""
    counts = {s: sum(c.status == s for c in result.changes) for s in RANGE_STATUSES}
    facts: tuple[tuple[str, Any], ...] = (
        ("manifest", path),
        ("matched by", ", ".join(match) or "- (every entry with the range column)"),
        ("range column", column),
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
    notes = _unused_note(unused, "group")
    return Section("update", f"update: {path}", path, facts, rows, notes=notes)


def _unused_note(unused: Sequence[str], what: str) -> tuple[str, ...]:
    """Why the pivots that no manifest entry uses were not matched on."""
    if not unused:
        return ()
    return (
        f"not matched by {', '.join(unused)}: constant in the results, but in no "
        f"entry of the manifest (-p names the {what} columns)",
    )


def diff_section(path: str, diff: str) -> Section:
    """``--dry-run``: the unified diff the update would make, as one multi-line note
    (kept whole)."""
    return Section(
        "update-diff",
        f"update: {path}: diff (dry run, nothing written)",
        path,
        notes=(diff,),
    )


def summary_counts(
    changes: Sequence[ShapeChange], *, kept: bool = False
) -> Mapping[str, int]:
    """How many shapes have each status (``kept`` too with ``--keep-within``)."""
    statuses = (*STATUSES, "kept") if kept else STATUSES
    return {s: sum(c.status == s for c in changes) for s in statuses}


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
