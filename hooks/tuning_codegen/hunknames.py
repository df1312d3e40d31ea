"""Which entry of a generated region a line falls in, named as git's hunk headers name
the function a change is in (``@@ -20,7 +20,7 @@ # index: [3] M=256/N=4096/K=4096``).

An entry is the lines from its provenance comment (``# Automatically generated from
[...]``) to the next one's; it is named by its ``# index: [N]`` line, as the target
writes it (``//`` in C++), and by its shape keys from the manifest when it has them:
``M``, ``N``, ``K`` (either case), each followed by its range end (``M_END``), as
``NAME=value`` joined by ``/`` (kbench's spec spelling). A line outside every region
of the update, or above a region's first entry, is named nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from tuning_codegen.generate import TargetUpdate, markers_of
from tuning_codegen.languages import Language
from tuning_codegen.manifest import Entry
from tuning_codegen.printable import one_line
from tuning_codegen.render import format_value
from tuning_codegen.splice import Lines, find_region

SHAPE_KEYS = ("M", "N", "K")
END = "_END"
MAX_HEADING = 80  # characters, as git cuts a function name


class _Region(NamedTuple):
    begin: int  # the begin marker's line (0-based, LFs counted)
    end: int  # the end marker's
    entries: tuple[Entry, ...]
    language: Language
    numbered: re.Pattern[str]  # its entries' index: lines
    provenance: re.Pattern[str]


def shape_label(values: Mapping[str, Any], language: Language) -> str:
    """``M=256/M_END=320/N=20480/K=5376`` of an entry's values ("" without any)."""
    parts = []
    by_upper = {key.upper(): key for key in values}
    for name in SHAPE_KEYS:
        for wanted in (name, name + END):
            key = by_upper.get(wanted)
            if key is not None:
                parts.append(f"{key}={format_value(values[key], language)}")
    return one_line("/".join(parts))


class EntryNames:
    """``names(line)``: the entry of ``update.new`` that 0-based line ``line`` (LFs
    counted) falls in, named as a hunk header names it ("" for none)."""

    def __init__(self, update: TargetUpdate) -> None:
        self.lines = update.new.split("\n")
        numbered = Lines(update.new)
        self.regions = []
        for table, markers in zip(update.tables, markers_of(update.tables)):
            where = find_region(numbered, markers, update.path)
            comment = re.escape(table.language.comment)
            self.regions.append(
                _Region(
                    numbered.number(where.begin) - 1,
                    numbered.number(where.end) - 1,
                    tuple(update.entries.get(table.name, ())),
                    table.language,
                    re.compile(rf"\s*{comment} index: \[(\d+)\]\s*$"),
                    re.compile(rf"\s*{comment} Automatically generated from \["),
                )
            )

    def __call__(self, line: int) -> str:
        for region in self.regions:
            if region.begin < line < region.end:
                return _named(self.lines, region, line)
        return ""


def _named(lines: Sequence[str], region: _Region, line: int) -> str:
    """The entry ``line`` falls in: the nearest ``index:`` line at or above it (or
    just below its provenance comment)."""
    start = line + 1 if region.provenance.match(lines[line]) else line
    for at in range(min(start, region.end - 1), region.begin, -1):
        found = region.numbered.match(lines[at])
        if found is None:
            continue
        position = int(found.group(1))
        named = lines[at].strip()
        if position < len(region.entries):
            shape = shape_label(region.entries[position].values, region.language)
            named = f"{named} {shape}".rstrip()
        return named[:MAX_HEADING]
    return ""
