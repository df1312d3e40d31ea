"""What a mode gives back: ``ModeResult``, made once by its handler and applied by the
orchestrator (``kprofile.run``): it prints the sections and notes, hands the entries
to ``-o``, the change to ``--update`` and the spec to ``--rerun``, and exits 1 when
``failed`` says a gate failed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from kprofile.render.section import Picture, Section

if TYPE_CHECKING:
    from kprofile.core.contenders import RerunSpec
    from kprofile.manifest.change import Entry, ManifestChange


class ModeResult(NamedTuple):
    sections: tuple[Section, ...] = ()
    entries: tuple[Entry, ...] = ()  # what -o writes
    change: ManifestChange | None = None  # what --update makes
    failed: str | None = None  # why a gate failed (--fail-above): exit 1
    notes: tuple[str, ...] = ()  # lines for stderr
    written: tuple[str, ...] = ()  # files the mode wrote itself (CSVs, PNGs)
    pictures: tuple[Picture, ...] = ()  # its charts (--plot, --report)
    rerun: RerunSpec | None = None  # what --rerun writes
