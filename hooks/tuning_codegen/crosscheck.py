"""Checks across the tables of a registry, once every table has been read.

``lines``: each table's line in the registry; ``real``: each registered path (and the
registry's) resolved; ``path``: the registry, where the errors point.
"""

from __future__ import annotations

from collections.abc import Mapping

from tuning_codegen.errors import InputError
from tuning_codegen.markerset import MarkerSet
from tuning_codegen.table import Table


def shared_markers(
    tables: list[Table], lines: dict[str, int], real: Mapping[str, str], path: str
) -> list[InputError]:
    """Two tables writing one target with the same marker, or a source label holding
    a marker of its target."""
    errors = []
    by_target: dict[str, list[Table]] = {}
    for table in tables:
        by_target.setdefault(real[table.target], []).append(table)
    for group in by_target.values():
        owner: dict[str, Table] = {}
        for table in group:
            for marker in (table.begin_marker, table.end_marker):
                first = owner.setdefault(marker, table)
                if first is not table:
                    errors.append(
                        InputError(
                            path,
                            f"tables '{first.name}' (line {lines[first.name]}) and "
                            f"'{table.name}' both use the marker {marker!r} in "
                            f"{table.target}; each table needs markers of its own",
                            line=lines[table.name],
                        )
                    )
        markers = MarkerSet()
        for table in group:
            markers.add(table.markers())
        for table in group:
            found = markers.first_in(table.source_label)
            if found:
                errors.append(
                    InputError(
                        path,
                        f"table '{table.name}': source_label contains "
                        f"{markers[found[0]]}",
                        line=lines[table.name],
                    )
                )
    return errors


def targets_read(
    tables: list[Table], lines: dict[str, int], real: Mapping[str, str], path: str
) -> list[InputError]:
    """A target that is also read (the registry, a manifest or snippet): writing it
    would change the input of the next run, and the file would never settle."""
    read = {real[path]: f"the registry {path}"}
    for table in tables:
        for kind, used in (
            ("manifest", table.manifest),
            ("snippet", table.snippet),
            *(("snippet variant", v) for v in table.snippet_variants.values()),
        ):
            read.setdefault(real[used], f"the {kind} of table '{table.name}'")
    return [
        InputError(
            path,
            f"table '{table.name}': target '{table.target}' is also "
            f"{read[real[table.target]]}; a target must not be an input",
            line=lines[table.name],
        )
        for table in tables
        if real[table.target] in read
    ]


def shared_formatters(
    tables: list[Table], lines: dict[str, int], real: Mapping[str, str], path: str
) -> list[InputError]:
    """Tables sharing a target must agree on its formatter: the file is formatted
    once, as a whole."""
    first: dict[str, Table] = {}
    errors = []
    for table in tables:
        owner = first.setdefault(real[table.target], table)
        if owner.formatter != table.formatter and (
            owner.formatter is None
            or table.formatter is None
            or owner.formatter.argv != table.formatter.argv
        ):
            errors.append(
                InputError(
                    path,
                    f"tables '{owner.name}' (line {lines[owner.name]}) and "
                    f"'{table.name}' write {table.target} with different formatters "
                    f"({_shown(owner)} and {_shown(table)}); a target is formatted "
                    "once: give them the same 'format'",
                    line=lines[table.name],
                )
            )
    return errors


def _shown(table: Table) -> str:
    return "none" if table.formatter is None else repr(table.formatter.shown())
