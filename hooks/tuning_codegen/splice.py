"""Finding marker lines and replacing the regions between them: text in, text out.

A region is everything strictly between the line holding its begin marker and the line
holding its end marker. Lines are what the reference tool splits (``str.splitlines``):
LF, CRLF and a lone CR end a line, and so do a form feed, a vertical tab, NEL, U+2028
and the other breaks it knows; but a line is *numbered* as git and editors number it,
counting LFs only (``Lines.number``), in every message. Each marker occurs on exactly
one line, begin before end; with a comment prefix given (the target's language), a
marker line must be a comment line: only indentation before the prefix. The regions of
the tables sharing a target never share a line, nest or overlap.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate

from tuning_codegen.errors import LINE_BREAKS, InputError, InputErrors
from tuning_codegen.markerset import MarkerSet

INDENTATION = " \t\f"
BOM = "\ufeff"  # may start a UTF-8 file, before the first line's indentation


@dataclass(frozen=True)
class Markers:
    """What to look for: a table's begin and end marker."""

    table: str
    begin: str
    end: str
    comment: str | None = None  # the prefix a marker line must start with


@dataclass(frozen=True)
class Region:
    """Where a table's markers are: 0-based indexes of the two marker lines."""

    table: str
    begin: int
    end: int

    def lines(self, numbered: Lines) -> str:
        return f"lines {numbered.number(self.begin)}-{numbered.number(self.end)}"


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split where the reference splits them."""
    return text.splitlines(keepends=True)


def line_ending(line: str) -> str:
    """The ending generated lines get after this (begin marker) line: CRLF or CR to
    keep a CRLF or CR file so, else LF (as the reference writes after any break)."""
    if line.endswith("\r\n"):
        return "\r\n"
    return "\r" if line.endswith("\r") else "\n"


def is_comment_line(line: str, comment: str) -> bool:
    return line.lstrip(INDENTATION).startswith(comment)


class Lines:
    """A text split into lines once, with where each line starts, so that finding a
    marker is one scan of the text (``str.find``), not a loop over its lines."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = split_lines(text)
        self.starts = [0, *accumulate(map(len, self.lines))]
        self._found: dict[str, list[int]] | None = None

    def number(self, index: int) -> int:
        """The line number (1-based) of line ``index`` as git, ``diff`` and editors
        count: LFs only, so a form feed or a U+2028 before it starts no line."""
        return self.text.count("\n", 0, self.starts[index]) + 1

    def look_for(self, markers: Iterable[str]) -> None:
        """Find many markers in one scan of the text (``holding`` then answers from
        it): one ``find`` per marker costs the text's length times their number."""
        wanted = MarkerSet({m: "" for m in markers if m and _one_line(m)})
        if not wanted.many():
            return
        found: dict[str, list[int]] = {m: [] for m in wanted}
        for marker, at in wanted.every_in(self.text):
            index = bisect_right(self.starts, at) - 1
            if not found[marker] or found[marker][-1] != index:
                found[marker].append(index)
        self._found = found

    def holding(self, marker: str) -> list[int]:
        """Indexes of the lines that contain ``marker``."""
        if self._found is not None and marker in self._found:
            return self._found[marker]
        if not marker or not _one_line(marker):  # "" is in each line
            return [i for i, line in enumerate(self.lines) if marker in line]
        found: list[int] = []
        at = self.text.find(marker)
        while at != -1:
            index = bisect_right(self.starts, at) - 1
            found.append(index)
            at = self.text.find(marker, self.starts[index + 1])
        return found


def _one_line(marker: str) -> bool:
    return not any(c in LINE_BREAKS for c in marker)


def _find_marker(
    lines: Lines, marker: str, what: str, path: str, comment: str | None
) -> int:
    found = lines.holding(marker)
    if not found:
        raise InputError(path, f"{what} marker {marker!r} not found")
    if len(found) > 1:
        first, second = lines.number(found[0]), lines.number(found[1])
        raise InputError(
            path,
            f"{what} marker {marker!r} occurs {len(found)} times "
            f"(lines {first} and {second}); it must occur once",
            line=second,
        )
    index = found[0]
    line = lines.lines[index]
    line = line.removeprefix(BOM) if index == 0 else line
    if comment is not None and not is_comment_line(line, comment):
        raise InputError(
            path,
            f"{what} marker {marker!r} is not on a comment line: only indentation "
            f"may come before '{comment}'",
            line=lines.number(index),
        )
    return index


def find_region(lines: Lines, markers: Markers, path: str) -> Region:
    b = _find_marker(lines, markers.begin, "begin", path, markers.comment)
    e = _find_marker(lines, markers.end, "end", path, markers.comment)
    if e <= b:
        raise InputError(
            path,
            f"end marker {markers.end!r} (line {lines.number(e)}) must come after "
            f"begin marker {markers.begin!r} (line {lines.number(b)})",
            line=lines.number(e),
        )
    return Region(markers.table, b, e)


def _clash(first: Region, second: Region, path: str, lines: Lines) -> InputError:
    """``second`` starts inside ``first`` (regions sorted by their begin line)."""
    a, b = f"'{first.table}'", f"'{second.table}'"
    one, two = first.lines(lines), second.lines(lines)
    if (first.begin, first.end) == (second.begin, second.end):
        what = f"tables {a} and {b} use the same marker lines ({one})"
    elif second.end <= first.end:
        what = (
            f"the region of table {b} ({two}) is nested in the region of table "
            f"{a} ({one})"
        )
    else:
        what = f"the regions of tables {a} ({one}) and {b} ({two}) overlap"
    return InputError(
        path,
        f"{what}; each region needs its own lines",
        line=lines.number(second.begin),
    )


def locate(text: str, tables: Sequence[Markers], path: str) -> list[Region]:
    """Every table's region in ``text``, checked to be disjoint; all errors at once."""
    lines = Lines(text)
    lines.look_for(m for markers in tables for m in (markers.begin, markers.end))
    regions: list[Region] = []
    errors: list[InputError] = []
    for markers in tables:
        try:
            regions.append(find_region(lines, markers, path))
        except InputError as exc:
            errors.append(exc)
    ordered = sorted(regions, key=lambda r: (r.begin, r.end))
    for first, second in zip(ordered, ordered[1:]):
        if second.begin <= first.end:
            errors.append(_clash(first, second, path, lines))
    if errors:
        raise InputErrors(errors)
    return regions


def splice(text: str, regions: Sequence[Region], generated: Mapping[str, str]) -> str:
    """``text`` with the inside of each region named in ``generated`` replaced.

    ``regions`` are disjoint (from ``locate``). Generated text uses LF; it is written
    with the line ending of its begin marker's line, and followed by one.
    """
    return splice_insides(text, regions, {k: v + "\n" for k, v in generated.items()})


def splice_insides(
    text: str, regions: Sequence[Region], insides: Mapping[str, str]
) -> str:
    """``text`` with the inside of each region named in ``insides`` replaced by its
    lines (each ending in LF, written with the ending of the begin marker's line;
    "" for none)."""
    lines = split_lines(text)
    parts: list[str] = []
    done = 0
    for region in sorted(regions, key=lambda r: r.begin):
        if region.table not in insides:
            continue
        newline = line_ending(lines[region.begin])
        parts += lines[done : region.begin + 1]
        parts.append(insides[region.table].replace("\n", newline))
        done = region.end
    parts += lines[done:]
    return "".join(parts)


def inside(lines: list[str], region: Region) -> str:
    """The lines strictly between the region's marker lines, joined."""
    return "".join(lines[region.begin + 1 : region.end])


def inside_lines(text: str, region: Region) -> str:
    """The lines strictly between the region's marker lines, each ending in LF."""
    between = split_lines(text)[region.begin + 1 : region.end]
    return "".join((line.splitlines() or [""])[0] + "\n" for line in between)


def replace_region(
    text: str,
    begin: str,
    end: str,
    generated: str,
    *,
    path: str = "<text>",
    comment: str | None = None,
) -> str:
    """Return ``text`` with the lines strictly between the marker lines replaced.

    ``generated`` uses LF line endings; it is written with the line ending of the begin
    marker's line, and followed by one. Every byte outside the region is kept.
    """
    markers = Markers("", begin, end, comment)
    region = find_region(Lines(text), markers, path)
    return splice(text, [region], {"": generated})
