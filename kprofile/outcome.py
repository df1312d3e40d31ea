"""What one kprofile run produced, filled in by the mode that ran.

The mode appends report sections, the entries ``-o`` writes, the one change
``--update`` makes to a manifest and, for a gate such as ``--fail-above``, why the run
failed; the sinks (``kprofile.sinks``) write them and ``kprofile.execute`` prints the
rest and picks the exit code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kprofile.core.metric import Metric
from kprofile.core.runs import CombinedRuns
from kprofile.errors import InvalidInput
from kprofile.inputs.load import Results
from kprofile.manifest.replace import RangeTable
from kprofile.progress import SILENT, Progress
from kprofile.render.section import Section

Entry = dict[str, Any]


@dataclass(frozen=True)
class Upserts:
    """``--update`` from the per-file views: one config per shape, put in place of the
    entry with the same pivots or added. ``pivots``: the columns to match entries by
    when ``-p`` is not given (those the manifest's entries use)."""

    configs: tuple[Entry, ...]
    pivots: tuple[str, ...]


@dataclass(frozen=True)
class RangeReplacement:
    """``--update`` from ``--ranges``: each group's range entries replace its old ones;
    groups are matched by ``table.group_cols`` (those the manifest's entries use)."""

    table: RangeTable

    @property
    def pivots(self) -> tuple[str, ...]:
        return self.table.group_cols


ManifestChange = Upserts | RangeReplacement


@dataclass(eq=False)
class Outcome:
    inputs: list[Results] = field(default_factory=list)
    skipped: list[InvalidInput] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    metric: Metric | None = None
    entries: list[Entry] = field(default_factory=list)  # what -o writes
    change: ManifestChange | None = None  # what --update does
    written: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)  # for stderr
    progress: Progress = SILENT  # where long steps say how far they are
    runs: CombinedRuns | None = None  # --combine: inputs is then one per shape
    failed: str | None = None  # a gate that failed (--fail-above): exit 1

    def note(self, message: str) -> None:
        self.messages.append(message)

    @property
    def sources(self) -> list[Results]:
        """The input files as loaded (``inputs`` is one per shape with --combine)."""
        return list(self.runs.files) if self.runs is not None else self.inputs


class NoUsableInput(Exception):
    """Every input was skipped."""

    def __init__(self, skipped: Sequence[InvalidInput]) -> None:
        super().__init__(f"no usable input ({len(skipped)} skipped)")
        self.skipped = tuple(skipped)
