"""Which lines of a log GitHub Actions would obey as workflow commands: an oracle
written from the runner's parser (``ActionCommand.TryParseV2`` and ``TryParse``),
not from the code under test.

- The log is read line by line as .NET's ``ReadLine`` reads it: CR, LF and CRLF end a
  line.
- ``::name props::data``: the line, its leading white space trimmed (.NET's
  ``Char.IsWhiteSpace``), starts with ``::`` and holds another ``::`` after it.
- ``##[name props]data``: ``##[`` anywhere in the line, a ``]`` after it.

Every name counts here (the runner obeys only the names it registered, and a
``::stop-commands::TOKEN`` registers TOKEN): stricter than GitHub.
"""

from __future__ import annotations

import re

# .NET's Char.IsWhiteSpace: String.TrimStart() removes these.
DOTNET_WHITE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_LINES = re.compile(r"\r\n|\r|\n")

# Command forms to plant in inputs: the ones GitHub documents and the tricks around them.
FORMS = (
    "::warning::planted",
    "::error file=x.py,line=1::planted",
    "::notice title=t::planted",
    "::set-output name=x::planted",
    "::add-mask::planted",
    "::stop-commands::planted",
    "::group::planted",
    "  ::debug::planted",
    "\t::warning::planted",
    "\u00a0::warning::planted",
    "##[warning]planted",
    "x ##[error]planted",
    "##[set-output name=x;]planted",
    "##[group]planted",
)


def log_lines(text: str) -> list[str]:
    return _LINES.split(text)


def commands_in(text: str) -> list[tuple[str, str]]:
    """``(name, line)`` for every line of ``text`` the runner would take for a
    command."""
    found = []
    for line in log_lines(text):
        trimmed = line.lstrip(DOTNET_WHITE)
        if trimmed.startswith("::"):
            end = trimmed.find("::", 2)
            if end > 2:
                found.append((trimmed[2:end].split(" ", 1)[0], line))
                continue
        at = line.find("##[")
        if at >= 0:
            close = line.find("]", at)
            if close > at + 3:
                found.append((line[at + 3 : close].split(" ", 1)[0], line))
    return found
