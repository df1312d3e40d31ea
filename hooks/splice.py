"""Replacing the text between a begin and an end marker line."""

from __future__ import annotations

from hooks.errors import CodegenError


def _marker_lines(lines: list[str], marker: str) -> list[int]:
    return [i for i, line in enumerate(lines) if marker in line]


def _find_marker(lines: list[str], marker: str, what: str, path: str) -> int:
    found = _marker_lines(lines, marker)
    if not found:
        raise CodegenError(path, f"{what} marker {marker!r} not found")
    if len(found) > 1:
        first, second = found[0] + 1, found[1] + 1
        raise CodegenError(
            path,
            f"{what} marker {marker!r} occurs {len(found)} times (lines {first} and {second}); it must occur once",
            line=second,
        )
    return found[0]


def split_lines(text: str) -> list[str]:
    """Lines with their endings; only LF ends a line (CR before it stays in the line)."""
    lines = text.split("\n")
    last = lines.pop()
    return [line + "\n" for line in lines] + ([last] if last else [])


def line_ending(line: str) -> str:
    return "\r\n" if line.endswith("\r\n") else "\n"


def replace_region(
    text: str, begin: str, end: str, generated: str, *, path: str = "<text>"
) -> str:
    """Return ``text`` with the lines strictly between the marker lines replaced.

    ``generated`` uses LF line endings; it is written with the line ending of the begin
    marker's line, and followed by one. Every byte outside the region is kept.
    """
    lines = split_lines(text)
    b = _find_marker(lines, begin, "begin", path)
    e = _find_marker(lines, end, "end", path)
    if e <= b:
        raise CodegenError(
            path,
            f"end marker {end!r} (line {e + 1}) must come after begin marker {begin!r} (line {b + 1})",
            line=e + 1,
        )
    newline = line_ending(lines[b])
    region = generated.replace("\n", newline) + newline
    return "".join(lines[: b + 1]) + region + "".join(lines[e:])
