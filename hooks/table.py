"""A table: one manifest rendered through its snippets into one region of a target."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from hooks.languages import DEFAULT_LANGUAGE, Language
from hooks.render import DEFAULT_INDENT


@dataclass(frozen=True)
class Table:
    name: str
    manifest: str
    snippet: str
    target: str
    begin_marker: str
    end_marker: str
    source_label: str
    snippet_variants: Mapping[str, str] = field(default_factory=dict)
    indent: str = DEFAULT_INDENT
    language: Language = DEFAULT_LANGUAGE

    def inputs(self) -> tuple[str, ...]:
        """Every file this table reads or writes."""
        return (
            self.manifest,
            self.snippet,
            *self.snippet_variants.values(),
            self.target,
        )


def default_source_label(manifest: str) -> str:
    return os.path.basename(manifest)
