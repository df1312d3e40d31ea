"""Plan and apply regeneration: all tables rendered first, then targets written.

Tables that share a target (the same file, however its path is spelled, symlinks
included) are spliced into one in-memory copy of it, so each target is read once and
written once. Planning a target also checks the regions of every other table the
registry puts there (``siblings``): each region intact, none overlapping another, and,
after splicing, every marker still exactly once in order. Any error anywhere means
nothing is written. Writing locks every target for the whole read -> plan -> write
cycle and renames all new files only once all of them are complete.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from tuning_codegen.errors import (
    InputError,
    InputErrors,
    memory_named,
    warn,
)
from tuning_codegen.formatrun import Target
from tuning_codegen.formatter import formatted_insides
from tuning_codegen.gcpause import paused_gc
from tuning_codegen.manifest import Entry, parse_manifest
from tuning_codegen.markerset import MarkerSet, marker_set
from tuning_codegen.paths import find_git_root
from tuning_codegen.render import render_region, typo_warnings
from tuning_codegen.snippet import parse_snippet, trailing_comma_warnings
from tuning_codegen.sources import (
    Files,
    WorkingTree,
    group_by_target,
    other_tables_by_target,
)
from tuning_codegen.splice import (
    BOM,
    Markers,
    Region,
    inside,
    line_ending,
    locate,
    splice_insides,
    split_lines,
)
from tuning_codegen.table import Table


@dataclass(frozen=True)
class TargetUpdate:
    path: str  # as the first of its tables names it
    old: str
    new: str
    tables: tuple[Table, ...]
    stale_tables: tuple[Table, ...]
    real: str = ""  # the file written: symlinks resolved
    insides: Mapping[str, str] = field(default_factory=dict)
    """Each of ``tables``' new region, lines ending in LF (formatted, if it is)."""
    entries: Mapping[str, tuple[Entry, ...]] = field(default_factory=dict)
    """Each of ``tables``' manifest entries, in order (what a hunk header names)."""

    @property
    def stale(self) -> bool:
        return self.old != self.new


class Rendered(NamedTuple):
    text: str  # the region's lines, joined by LF, no final one
    entries: tuple[Entry, ...]  # the manifest's, in order


def render_table(
    table: Table,
    files: Files | None = None,
    forbidden: Mapping[str, str] | None = None,
    indent: str | None = None,
) -> Rendered:
    """The region of ``table``; ``forbidden``: every marker of its target; ``indent``
    the indent of its lines when not the table's own (``indent: marker``)."""
    files = files or WorkingTree()
    forbidden = marker_set(table.markers() if forbidden is None else forbidden)
    errors: list[InputError] = []
    snippets: dict[str | None, str] = {}
    for name, path in [(None, table.snippet), *table.snippet_variants.items()]:
        try:
            snippets[name] = _snippet(files, path, forbidden)
        except InputError as exc:
            errors.append(exc)
    try:
        with memory_named(table.manifest):
            manifest = parse_manifest(files.text(table.manifest), table.manifest)
    except InputError as exc:
        errors.append(exc)
    if errors:
        raise InputErrors(errors)
    with memory_named(table.manifest, "render it"):
        region = render_region(
            manifest.entries,
            snippets,
            source_label=table.source_label,
            manifest_path=table.manifest,
            indent=table.indent if indent is None else indent,
            language=table.language,
            forbidden=forbidden,
        )
    warn(typo_warnings(manifest.entries, snippets, table.manifest))
    warn(trailing_comma_warnings(table, snippets))
    return Rendered(region, manifest.entries)


def plan(
    tables: Sequence[Table],
    siblings: Sequence[Table] = (),
    real_of: Callable[[str], str] = os.path.realpath,
    files: Files | None = None,
) -> list[TargetUpdate]:
    """Render every table and splice it into its target, in memory.

    ``siblings``: other tables (the whole registry) whose regions in the same targets
    must stay intact. ``real_of``: the file a target path writes (the registry's,
    checked to be inside the repository when it was read). ``files``: where inputs
    and targets are read (the working tree by default; the index for ``--hook``).
    Raises InputErrors listing every problem found; otherwise returns one update per
    target, stale or not.
    """
    with paused_gc():  # rendering a large table makes many objects, few garbage
        return _plan(tables, siblings, real_of, files or WorkingTree())


def _plan(
    tables: Sequence[Table],
    siblings: Sequence[Table],
    real_of: Callable[[str], str],
    files: Files,
) -> list[TargetUpdate]:
    others = other_tables_by_target(tables, siblings)
    updates: list[TargetUpdate] = []
    errors: list[InputError] = []
    for key, group in group_by_target(tables).items():
        real = real_of(group[0].target)
        try:
            update = plan_target(real, group, others.get(key, []), files)
        except InputErrors as exc:
            errors.extend(exc.errors)
        except InputError as exc:
            errors.append(exc)
        else:
            updates.append(update)
    if errors:
        raise InputErrors(_unique(errors))
    return updates


def markers_of(tables: Sequence[Table]) -> list[Markers]:
    return [
        Markers(t.name, t.begin_marker, t.end_marker, t.language.comment)
        for t in tables
    ]


def _snippet(files: Files, path: str, markers: MarkerSet) -> str:
    """A snippet parsed and checked against the target's markers once, however many
    of the target's tables use it (the result, or its error, kept on ``markers``)."""
    if path not in markers.parsed:
        try:
            markers.parsed[path] = parse_snippet(files.text(path), path, markers)
        except InputError as exc:
            markers.parsed[path] = exc
    found = markers.parsed[path]
    if not isinstance(found, str):
        raise found
    return found


def plan_target(
    real: str,
    group: list[Table],
    others: list[Table],
    files: Files,
    *,
    guard: bool = True,
) -> TargetUpdate:
    """``group``'s new regions in their target; ``guard``: find every region again in
    the new text (the last check before a write; ``--list`` writes nothing)."""
    shown = group[0].target
    everyone = [*group, *others]
    forbidden = MarkerSet()
    for table in everyone:
        forbidden.add(table.markers())
    old, regions, located = _located(files, everyone, shown)
    lines = split_lines(old)
    begins = {r.table: lines[r.begin] for r in regions}
    insides: dict[str, str] = {}
    entries: dict[str, tuple[Entry, ...]] = {}
    errors: list[InputError] = []
    for table in group:
        own = table.indent_from_marker
        indent = _marker_indent(begins.get(table.name, "")) if own else None
        try:
            rendered = render_table(table, files, forbidden, indent)
        except InputErrors as exc:
            errors.extend(exc.errors)
            continue
        insides[table.name] = rendered.text + "\n"
        entries[table.name] = rendered.entries
    if errors or located:
        raise InputErrors([*errors, *located])
    formatter = group[0].formatter
    if formatter is not None:
        insides = formatted_insides(
            old,
            regions,
            insides,
            markers_of(everyone),
            formatter,
            _format_target(shown, real),
        )
    new = splice_insides(old, regions, insides)
    if guard:
        check_regions_intact(new, everyone, shown)
    stale = _stale(lines, everyone, regions, insides)
    return TargetUpdate(shown, old, new, tuple(group), stale, real, insides, entries)


def _located(
    files: Files, everyone: list[Table], shown: str
) -> tuple[str, list[Region], list[InputError]]:
    """The target's text, its regions, and the errors finding them (reported after
    the tables' own errors)."""
    located: list[InputError] = []
    old, regions = "", []
    try:
        old = files.text(shown)
        regions = locate(old, markers_of(everyone), shown)
    except InputErrors as exc:
        located.extend(exc.errors)
    except InputError as exc:
        located.append(exc)
    return old, regions, located


def _stale(
    lines: list[str],
    everyone: list[Table],
    regions: list[Region],
    insides: dict[str, str],
) -> tuple[Table, ...]:
    """The tables whose region's text differs from its new inside."""
    stale = []
    for table, region in zip(everyone, regions):
        if table.name in insides:
            newline = line_ending(lines[region.begin])
            if inside(lines, region) != insides[table.name].replace("\n", newline):
                stale.append(table)
    return tuple(stale)


def _marker_indent(line: str) -> str:
    """The spaces and tabs a marker line starts with (``indent: marker``)."""
    line = line.removeprefix(BOM)
    return line[: len(line) - len(line.lstrip(" \t"))]


def _format_target(shown: str, real: str) -> Target:
    folder = os.path.dirname(real)
    root = find_git_root(folder) or folder
    relative = os.path.relpath(real, root).replace(os.sep, "/")
    return Target(shown, relative, root, folder)


def check_regions_intact(new: str, tables: list[Table], shown: str) -> None:
    """The last guard before anything is written: the new text has every region."""
    try:
        locate(new, markers_of(tables), shown)
    except InputErrors as exc:
        raise InputErrors(
            InputError(
                shown,
                f"regenerating would break the regions: {e.message}; "
                "nothing was written",
                line=e.location.line,
            )
            for e in exc.errors
        ) from None


def _unique(errors: list[InputError]) -> list[InputError]:
    seen: set[str] = set()
    result = []
    for error in errors:
        if str(error) not in seen:
            seen.add(str(error))
            result.append(error)
    return result
