"""What one kprofile run produced, filled in by the mode that ran.

The mode appends report sections and the configs it selected; ``kprofile.run``
writes those configs (``-o``, ``--update``) and ``kprofile.cli`` prints the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kprofile.core.metric import Metric
from kprofile.errors import InvalidInput
from kprofile.inputs.load import Results
from kprofile.render.section import Section

if TYPE_CHECKING:
    from kprofile.manifest.replace import RangeTable

Entry = dict[str, Any]


@dataclass(eq=False)
class Outcome:
    inputs: list[Results] = field(default_factory=list)
    skipped: list[InvalidInput] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    metric: Metric | None = None
    entries: list[Entry] = field(default_factory=list)  # what -o writes
    upserts: list[Entry] = field(default_factory=list)  # what --update puts in
    ranges: RangeTable | None = None  # --ranges: what --update replaces instead
    written: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)  # for stderr

    def note(self, message: str) -> None:
        self.messages.append(message)


class NoUsableInput(Exception):
    """Every input was skipped."""

    def __init__(self, skipped: Sequence[InvalidInput]) -> None:
        super().__init__(f"no usable input ({len(skipped)} skipped)")
        self.skipped = tuple(skipped)
