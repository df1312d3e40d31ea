"""``--update MANIFEST``: put the configs a mode selected into a curated manifest.

The edit itself (byte-exact, in place) is ``kprofile.manifest.update``; this module
decides the pivots, writes the file (or, with ``--dry-run``, only shows the diff) and
reports each shape's change as sections.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from kprofile.core.values import shape_label
from kprofile.errors import KprofileError
from kprofile.manifest.layout import read_layout
from kprofile.manifest.update import (
    ShapeChange,
    UpdateResult,
    change_details,
    update_manifest,
)
from kprofile.options import Options
from kprofile.outcome import Outcome
from kprofile.render.section import Section
from tuning_codegen.diff import unified_diff
from tuning_codegen.textio import read_text
from tuning_codegen.transaction import write_text_atomic

STATUSES = ("added", "changed", "unchanged")


def apply_update(options: Options, outcome: Outcome) -> None:
    """Upsert ``outcome.upserts`` into the manifest ``options.update``: written
    atomically and only if it changes. Default pivots (no ``-p``) that no manifest
    entry uses are dropped."""
    path = options.update
    assert path is not None  # run() calls this only for --update
    if outcome.ranges is not None:  # --ranges replaces each group's range entries
        from kprofile.modes.ranges_update import replace_in

        text = read_text(path)
        new_text = replace_in(text, path, outcome.ranges, options, outcome)
        _finish(options, outcome, path, text, new_text)
        return
    if not outcome.upserts:
        raise KprofileError(
            path, "--update: no config to put in (no successful run in any input)"
        )
    text = read_text(path)
    pivots: tuple[str, ...] = tuple(options.pivots)
    unused: tuple[str, ...] = ()
    if not options.pivots:
        pivots = _default_pivots(outcome)
        pivots, unused = manifest_pivots(text, path, pivots)
    result = update_manifest(text, outcome.upserts, pivots=pivots, path=path)
    changed = result.text != text
    state = update_state(changed, dry_run=options.dry_run)
    outcome.sections.append(
        update_section(result, path=path, pivots=pivots, state=state, unused=unused)
    )
    _finish(options, outcome, path, text, result.text)


def _finish(
    options: Options, outcome: Outcome, path: str, text: str, new_text: str
) -> None:
    """``--dry-run``: the diff; else the new text, written atomically if it changed."""
    changed = new_text != text
    if options.dry_run:
        if changed:
            diff = unified_diff(text, new_text, path, path)
            outcome.sections.append(diff_section(path, diff))
        return
    if changed:
        try:
            write_text_atomic(path, new_text)
        except OSError as exc:
            raise KprofileError(path, f"cannot write: {exc.strerror or exc}") from None
        outcome.written.append(path)
        outcome.note(f"updated {path}")


def _default_pivots(outcome: Outcome) -> tuple[str, ...]:
    from kprofile.core.columns import common_shape_columns

    return common_shape_columns(outcome.inputs)


def update_state(changed: bool, *, dry_run: bool) -> str:
    if dry_run:
        return (
            "dry run: nothing written" if changed else "dry run: nothing would change"
        )
    return "updated" if changed else "nothing to change: not rewritten"


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
