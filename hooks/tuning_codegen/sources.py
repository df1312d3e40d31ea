"""Where a run reads its inputs and targets, and which tables share a target.

``Files`` is the one question the planner asks (``text(path)``): the working tree
answers it here (each file read once per run), the index in
``commit.snapshot.IndexFiles``.
Tables writing one file, however its path is spelled (symlinks, hard links, the
spellings of a case-insensitive file system), are grouped by that file's identity.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Protocol

from tuning_codegen.table import Table
from tuning_codegen.textio import read_text


class Files(Protocol):
    """Where the inputs and targets are read: the working tree, or the index."""

    def text(self, path: str) -> str: ...


class WorkingTree:
    """The working tree's files, each read once per run, however many tables share
    it."""

    def __init__(self) -> None:
        self._texts: dict[str, str] = {}

    def text(self, path: str) -> str:
        if path not in self._texts:
            self._texts[path] = read_text(path)
        return self._texts[path]


def file_identity(path: str) -> str:
    """One key per file, however it is named: device and inode (so symlinks, hard
    links and the spellings of a case-insensitive file system agree), else the
    real path of a file that does not exist."""
    try:
        info = os.stat(path)
    except OSError:
        return os.path.realpath(path)
    return f"{info.st_dev}:{info.st_ino}"


def group_by_target(tables: Iterable[Table]) -> dict[str, list[Table]]:
    """Tables by the file they write."""
    groups: dict[str, list[Table]] = {}
    for table in tables:
        groups.setdefault(file_identity(table.target), []).append(table)
    return groups


def other_tables_by_target(
    tables: Sequence[Table], siblings: Sequence[Table]
) -> dict[str, list[Table]]:
    """The tables of ``siblings`` that are not among ``tables`` (table names are
    unique), by the file they write."""
    chosen = {t.name for t in tables}
    return group_by_target(t for t in siblings if t.name not in chosen)
