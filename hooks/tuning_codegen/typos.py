"""Typo warnings: a key an entry writes that no placeholder of its snippet uses, close
to a placeholder the entry does not set itself.

``CLUSTR: 2`` under ``<<: *defaults`` renders the default ``CLUSTER`` silently: the
typo is a key of the entry's own (not merged), used by no placeholder, within one or
two edits (insert, delete, substitute, swap two neighbours) or a change of case of a
placeholder that the entry leaves to a merge key or not set at all. Short names need
to be closer: two edits from 6 letters on, one from 2 (``BKK: 64`` for the tile's
``BK``, which the defaults would render silently), and a one-letter name or key only
by case (``m`` for ``M``; ``K`` is not ``BK`` left out). Keys no placeholder uses but
close to none (``name``, ``dtype``, ``AUTOTUNING_MODE``, ``TUNE_GRID_DIM_X`` in real
tables) stay silent.

The cost stays near-linear in the snippet: its names are gathered once (``Names``),
and a snippet of more than ``SEARCHED`` distinct placeholders (no real table has a
hundred) is only looked at for keys that differ from a name in case.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence

from tuning_codegen.manifest import Entry
from tuning_codegen.snippet import split_placeholders

CONTROL_KEYS = frozenset({"_template"})
SEARCHED = 5000  # distinct placeholders up to which close names are searched
SHOWN_MISSING = 20  # missing names a message lists


class Names:
    """A snippet's distinct placeholder names, gathered once."""

    def __init__(self, snippet: str) -> None:
        self.used = frozenset(split_placeholders(snippet)[1])
        self.ordered = tuple(sorted(self.used))
        self.by_lower: dict[str, str] = {}
        for name in self.ordered:
            self.by_lower.setdefault(name.lower(), name)
        self._found: dict[tuple[str, frozenset[str]], str | None] = {}

    def close_to(self, key: str, own: Mapping[str, int]) -> str | None:
        """The name ``key`` is most likely a typo of, among those ``own`` (the keys
        the entry sets itself) leaves unset (worked out once per key and set of
        names set: the entries of a table mostly share theirs)."""
        if len(self.ordered) > SEARCHED:  # many names: case only
            name = self.by_lower.get(key.lower())
            return None if name is None or name in own or name == key else name
        taken = frozenset(name for name in own if name in self.used)
        if (key, taken) not in self._found:
            unset = tuple(name for name in self.ordered if name not in taken)
            self._found[key, taken] = close_name(key, unset)
        return self._found[key, taken]


@functools.lru_cache(maxsize=16)
def snippet_names(snippet: str) -> Names:
    return Names(snippet)


@functools.lru_cache(maxsize=4096)
def close_name(key: str, names: tuple[str, ...]) -> str | None:
    """The name of ``names`` (sorted) ``key`` is most likely a typo of, if any."""
    best: tuple[int, str] | None = None
    for name in names:
        distance = _distance(key.lower(), name.lower(), _allowed(key, name))
        if distance is not None and (best is None or distance < best[0]):
            best = (distance, name)
    return None if best is None else best[1]


def _allowed(key: str, name: str) -> int:
    """Edits a key may be from ``name`` and still be its typo."""
    if len(key) < 2:
        return 0
    return 2 if len(name) >= 6 else 1 if len(name) >= 2 else 0


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
    names = snippet_names(snippet)
    unused = [k for k in entry.own if k not in names.used and k not in CONTROL_KEYS]
    found = []
    for key in unused:
        name = names.close_to(key, entry.own)
        if name is not None:
            found.append((key, name, entry.own[key]))
    return found


def listed(missing: Sequence[str]) -> str:
    """Missing names as a message lists them: the first ``SHOWN_MISSING``, and how
    many more."""
    if len(missing) <= SHOWN_MISSING:
        return ", ".join(missing)
    more = len(missing) - SHOWN_MISSING
    return f"{', '.join(missing[:SHOWN_MISSING])} and {more} more"


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
