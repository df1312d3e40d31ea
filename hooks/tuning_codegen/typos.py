"""Typo warnings: a key an entry writes that no placeholder of its snippet uses, close
to a placeholder the entry does not set itself.

``CLUSTR: 2`` under ``<<: *defaults`` renders the default ``CLUSTER`` silently: the
typo is a key of the entry's own (not merged), used by no placeholder, within one or
two edits (insert, delete, substitute, swap two neighbours) or a change of case of a
placeholder that the entry leaves to a merge key or not set at all. Short names need
to be closer (``BM`` is not a typo of ``BN``): two edits from 6 letters on, one from
3, otherwise case only. Keys no placeholder uses but close to none (``name``,
``dtype``, ``AUTOTUNING_MODE``, ``TUNE_GRID_DIM_X`` in real tables) stay silent.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from tuning_codegen.manifest import Entry
from tuning_codegen.snippet import split_placeholders

CONTROL_KEYS = frozenset({"_template"})


@functools.lru_cache(maxsize=4096)
def close_name(key: str, names: tuple[str, ...]) -> str | None:
    """The name of ``names`` (sorted) ``key`` is most likely a typo of, if any."""
    best: tuple[int, str] | None = None
    for name in names:
        distance = _distance(key.lower(), name.lower(), _allowed(name))
        if distance is not None and (best is None or distance < best[0]):
            best = (distance, name)
    return None if best is None else best[1]


def _allowed(name: str) -> int:
    return 2 if len(name) >= 6 else 1 if len(name) >= 3 else 0


def _distance(a: str, b: str, limit: int) -> int | None:
    """Edits from ``a`` to ``b`` (optimal string alignment) if at most ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return None
    before: list[int] = []
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        earlier, before, row = before, row, [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            row[j] = min(before[j] + 1, row[j - 1] + 1, before[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], earlier[j - 2] + 1)
        if min(row) > limit:
            return None
    return row[-1] if row[-1] <= limit else None


def typos(entry: Entry, snippet: str) -> list[tuple[str, str, int]]:
    """``(key, placeholder, line of the key)`` for each likely typo in ``entry``."""
    used = set(split_placeholders(snippet)[1])
    unused = [k for k in entry.own if k not in used and k not in CONTROL_KEYS]
    if not unused:
        return []
    unset = tuple(sorted(name for name in used if name not in entry.own))
    found = []
    for key in unused:
        name = close_name(key, unset)
        if name is not None:
            found.append((key, name, entry.own[key]))
    return found


def typo_message(key: str, name: str) -> str:
    return f"key '{key}' is used by no placeholder; did you mean '{name}'?"


def missing_hint(found: Iterable[tuple[str, str, int]], missing: Iterable[str]) -> str:
    """What to add to "Missing snippet parameters: ..." when a key looks like one."""
    wanted = set(missing)
    return "".join(
        f"; key '{key}' (line {line}) is used by no placeholder: did you mean '{name}'?"
        for key, name, line in found
        if name in wanted
    )
