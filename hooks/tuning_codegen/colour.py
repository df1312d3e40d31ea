"""Colour on a terminal, for both tools: whether to colour, and a coloured diff.

Standard library only (the hook imports it). ``--color auto`` colours a terminal
unless ``NO_COLOR`` is set to a non-empty value (https://no-color.org); ``always`` and
``never`` override both. The text handed to ``colour_diff`` must already be safe to
print (``tuning_codegen.errors.one_line`` on each line): the only escape sequences in
what it returns are its own.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import IO

CHOICES = ("auto", "always", "never")

RESET = "\x1b[0m"
BOLD = "\x1b[1m"
RED = "\x1b[31m"
GREEN = "\x1b[32m"
CYAN = "\x1b[36m"


def wants_colour(
    stream: IO[str], choice: str = "auto", environ: Mapping[str, str] = os.environ
) -> bool:
    """Whether output to ``stream`` is coloured for ``--color choice``."""
    if choice in ("always", "never"):
        return choice == "always"
    if environ.get("NO_COLOR"):
        return False
    return stream.isatty()


def _line_colour(line: str) -> str:
    if line.startswith(("--- ", "+++ ")):
        return BOLD
    if line.startswith("@@"):
        return CYAN
    if line.startswith("+"):
        return GREEN
    if line.startswith("-"):
        return RED
    return ""


def colour_diff(text: str) -> str:
    """A unified diff with its file headers bold, hunk headers cyan, added lines green
    and removed lines red; line endings kept as they are."""
    out = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        colour = _line_colour(body)
        out.append(f"{colour}{body}{RESET}{line[len(body) :]}" if colour else line)
    return "".join(out)
