"""The one error the pickle decoder raises: the file is refused, nothing in it ran."""

from __future__ import annotations

_MAX_SHOWN = 80


class RefusedPickle(Exception):
    """The file is not a kbench result this program will load; nothing in it was run."""


def shown(text: object) -> str:
    """``text`` quoted for a message, cut short: names in a hostile file can be huge."""
    value = text if isinstance(text, str) else type(text).__name__
    if len(value) > _MAX_SHOWN:
        value = value[:_MAX_SHOWN] + "..."
    return repr(value)
