"""Plan and apply regeneration: all tables rendered first, then targets written.

Tables that share a target are applied, in order, to one in-memory copy of it, so each
target is read once and written once. Any error anywhere means nothing is written.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from hooks.errors import CodegenError, CodegenErrors
from hooks.manifest import load_manifest
from hooks.render import normalize_snippet, render_region
from hooks.splice import replace_region
from hooks.table import Table
from hooks.textio import read_text, write_text_atomic


@dataclass(frozen=True)
class TargetUpdate:
    path: str
    old: str
    new: str
    tables: tuple[Table, ...]
    stale_tables: tuple[Table, ...]

    @property
    def stale(self) -> bool:
        return self.old != self.new


class _Cache:
    """Each input file is read once per run, however many tables share it."""

    def __init__(self) -> None:
        self._texts: dict[str, str] = {}

    def text(self, path: str) -> str:
        if path not in self._texts:
            self._texts[path] = read_text(path)
        return self._texts[path]


def render_table(table: Table, cache: _Cache | None = None) -> str:
    cache = cache or _Cache()
    errors: list[CodegenError] = []
    snippets: dict[str | None, str] = {}
    for name, path in [(None, table.snippet), *table.snippet_variants.items()]:
        try:
            snippets[name] = normalize_snippet(cache.text(path))
        except CodegenError as exc:
            errors.append(exc)
    try:
        manifest = load_manifest(table.manifest)
    except CodegenError as exc:
        errors.append(exc)
    if errors:
        raise CodegenErrors(errors)
    return render_region(
        manifest.entries,
        snippets,
        source_label=table.source_label,
        manifest_path=table.manifest,
        indent=table.indent,
        language=table.language,
    )


def group_by_target(tables: Iterable[Table]) -> dict[str, list[Table]]:
    groups: dict[str, list[Table]] = {}
    for table in tables:
        groups.setdefault(table.target, []).append(table)
    return groups


def plan(tables: Sequence[Table]) -> list[TargetUpdate]:
    """Render every table and splice it into its target, in memory.

    Raises CodegenErrors listing every problem found; otherwise returns one update per
    target, stale or not.
    """
    cache = _Cache()
    updates: list[TargetUpdate] = []
    errors: list[CodegenError] = []
    for target, group in group_by_target(tables).items():
        try:
            update = _plan_target(target, group, cache)
        except CodegenErrors as exc:
            errors.extend(exc.errors)
        except CodegenError as exc:
            errors.append(exc)
        else:
            updates.append(update)
    if errors:
        raise CodegenErrors(_unique(errors))
    return updates


def _plan_target(target: str, group: list[Table], cache: _Cache) -> TargetUpdate:
    errors: list[CodegenError] = []
    regions: list[tuple[Table, str]] = []
    for table in group:
        try:
            regions.append((table, render_table(table, cache)))
        except CodegenErrors as exc:
            errors.extend(exc.errors)
    try:
        old = cache.text(target)
    except CodegenError as exc:
        errors.append(exc)
    if errors:
        raise CodegenErrors(errors)
    text = old
    stale: list[Table] = []
    for table, region in regions:
        try:
            updated = replace_region(
                text, table.begin_marker, table.end_marker, region, path=target
            )
        except CodegenError as exc:
            errors.append(exc)
            continue
        if updated != text:
            stale.append(table)
        text = updated
    if errors:
        raise CodegenErrors(errors)
    return TargetUpdate(target, old, text, tuple(group), tuple(stale))


def _unique(errors: list[CodegenError]) -> list[CodegenError]:
    seen: set[str] = set()
    result = []
    for error in errors:
        if str(error) not in seen:
            seen.add(str(error))
            result.append(error)
    return result


def write_updates(updates: Iterable[TargetUpdate]) -> list[TargetUpdate]:
    """Write every stale target atomically; return the ones written."""
    written = [u for u in updates if u.stale]
    for update in written:
        write_text_atomic(update.path, update.new)
    return written
