"""What a mode asks ``--update`` to do to a curated manifest: one ``ManifestChange``.

``Upserts`` (from the per-file views: one config per shape, put in place of the entry
with the same pivots, or added) or ``RangeReplacement`` (from ``--ranges``: each
group's range entries replace its old ones). Plain records: the mode that makes one
knows nothing of the text, the editor (``manifest.upsert``, ``manifest.ranges``)
nothing of the mode.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from kprofile.core.keep import KeepRule

Entry = dict[str, Any]


class Origin(NamedTuple):
    """The results a change comes from, which ``--update`` checks against the
    manifest: their benchmark (kbench's ``name``) and the parameters they sweep within
    each problem. Empty: nothing to check."""

    names: tuple[str, ...] = ()
    swept: tuple[str, ...] = ()


class Upserts(NamedTuple):
    """One config per shape. ``pivots``: the columns to match entries by (those of
    them the manifest's entries use, when ``-p`` is not given); ``fixed``: those of
    ``pivots`` with one value in every result (N, K of a one-problem sweep: another
    value is another problem); ``keep``: which entries keep their config although
    another was chosen (``--keep-within``; None: none)."""

    configs: tuple[Entry, ...]
    pivots: tuple[str, ...]
    origin: Origin = Origin()
    fixed: tuple[str, ...] = ()
    keep: KeepRule | None = None


class GroupRanges(NamedTuple):
    """One group's values (the group columns) and its new range entries, in order."""

    group: Mapping[str, Any]
    entries: tuple[Mapping[str, Any], ...]


class RangeTable(NamedTuple):
    """The range entries ``--ranges`` chose, group by group: ``column`` where each
    range starts, ``end`` where it ends (exclusive: ``M``, ``M_END``)."""

    column: str
    group_cols: tuple[str, ...]
    groups: tuple[GroupRanges, ...]
    end: str


class RangeReplacement(NamedTuple):
    """Each group's range entries in place of its old ones; groups are matched by
    ``table.group_cols`` (those the manifest's entries use)."""

    table: RangeTable
    origin: Origin = Origin()

    @property
    def pivots(self) -> tuple[str, ...]:
        return self.table.group_cols


ManifestChange = Upserts | RangeReplacement
