"""Unified diffs of whole files, exact about missing final newlines."""

from __future__ import annotations

import difflib


def _diff_lines(text: str) -> list[str]:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


def unified_diff(old: str, new: str, fromfile: str, tofile: str) -> str:
    return "".join(
        difflib.unified_diff(_diff_lines(old), _diff_lines(new), fromfile, tofile)
    )
