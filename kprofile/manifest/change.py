"""What a mode asks ``--update`` to do to a curated manifest: one ``ManifestChange``.

``Upserts`` (from the per-file views: one config per shape, put in place of the entry
with the same pivots, or added) or ``RangeReplacement`` (from ``--ranges``: each
group's range entries replace its old ones). Plain records: the mode that makes one
knows nothing of the text, the editor (``manifest.upsert``, ``manifest.ranges``)
nothing of the mode.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

Entry = dict[str, Any]


class Upserts(NamedTuple):
    """One config per shape. ``pivots``: the columns to match entries by when ``-p``
    is not given (those the manifest's entries use)."""

    configs: tuple[Entry, ...]
    pivots: tuple[str, ...]


class GroupRanges(NamedTuple):
    """One group's values (the group columns) and its new range entries, in order."""

    group: Mapping[str, Any]
    entries: tuple[Mapping[str, Any], ...]


class RangeTable(NamedTuple):
    """The range entries ``--ranges`` chose, group by group."""

    column: str
    group_cols: tuple[str, ...]
    groups: tuple[GroupRanges, ...]


class RangeReplacement(NamedTuple):
    """Each group's range entries in place of its old ones; groups are matched by
    ``table.group_cols`` (those the manifest's entries use)."""

    table: RangeTable

    @property
    def pivots(self) -> tuple[str, ...]:
        return self.table.group_cols


ManifestChange = Upserts | RangeReplacement
