"""``--hook``: the hook judges the commit, and the commit is the index.

Whatever runs the hook (pre-commit, a plain ``.git/hooks/pre-commit``, lefthook,
``git commit -- PATH`` with its temporary index), the verdict is the same: the registry
and every file a table reads are taken **from the index** (their staged blobs), never
from the working tree, which may hold unstaged edits, a target marked assume-unchanged
or a name only marked ``git add -N``. Before anything is regenerated, a commit must
contain every file its registry names (the registry, and each table's manifest,
snippets and target):

- at stage 0 (a merge conflict is refused: resolve it and ``git add`` it); a
  skip-worktree entry of a sparse checkout counts, though its file is not on disk;
- with content (not only marked ``git add -N``);
- not inside a git submodule or another repository nested in this one, which a commit
  of this repository cannot contain;
- and every symbolic link on the way (the file itself, or a folder above it) in the
  commit too, pointing where the working tree's link points.

One ``git ls-files`` answers it (another git call only words an error), and outside a
git repository there is nothing to judge: the working tree is read. Every problem is
one line naming the path, what it is for, and what to do. The tables judged are
those the commit's changes touch, as git says them (``changed``), joined with the
names the runner passes (``touched``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from tuning_codegen.commit.changed import commit_changes
from tuning_codegen.commit.check import DIFF_DELETED, check_commit
from tuning_codegen.commit.git import git_output, names
from tuning_codegen.commit.index import (
    FEATURE,
    Entry,
    index_entries,
    read_blobs,
    read_staged,
)
from tuning_codegen.commit.names import (
    Listing,
    inside,
    list_registered,
    relative,
    stage_zero,
)
from tuning_codegen.commit.touched import tables_touched
from tuning_codegen.errors import InputError, InputErrors
from tuning_codegen.paths import REGISTRY_NAME, find_git_root, parents, short_path
from tuning_codegen.registry import (
    Registry,
    find_registry,
    load_registry,
    parse_registry,
)
from tuning_codegen.table import Table
from tuning_codegen.textio import decode_utf8


class Commit(NamedTuple):
    """What a hook run judges: the registry as the commit holds it, and the index
    entry of every registered file (by its name relative to ``root``)."""

    registry: Registry
    root: str  # "" outside a git repository: nothing to judge, the working tree
    entries: Mapping[str, Entry]
    absent: frozenset[str]  # registered paths outside a sparse checkout (as shown)

    def name(self, path: str) -> str:
        """The index name of the file a registered path reads."""
        return relative(self.registry.real_path(path), self.root)


def open_commit(config: str | None, cwd: str) -> Commit | None:
    """The registry the commit holds (``--config``, else the one found from ``cwd``
    up to the repository's root) with every registered file checked to be in the
    commit; None when there is no registry at all."""
    start = os.path.realpath(cwd)
    root = find_git_root(start)
    path = config if config is not None else _found_registry(start, root)
    if path is None:
        return None
    if root is None or not inside(os.path.realpath(path), root):
        return Commit(load_registry(path), "", {}, frozenset())
    registry, listing = _staged_registry(path, root)
    entries, absent = check_commit(registry, root, listing)
    return Commit(registry, root, entries, absent)


def _staged_registry(path: str, root: str) -> tuple[Registry, Listing]:
    """The registry as staged, and the listing of its paths. The working tree's copy
    is read first: when git says the index holds the same (the usual case), one
    ``ls-files`` is all it takes; else the staged text is read and listed again."""
    name = relative(os.path.realpath(path), root)
    try:
        registry: Registry | None = load_registry(path)
    except (InputError, InputErrors):
        registry = None  # broken in the working tree only, perhaps
    if registry is not None:
        listing = list_registered(registry, root)
        entry = stage_zero(listing.found.get(name, []))
        if entry is None or (
            name not in listing.modified and not entry.assume_unchanged
        ):
            return registry, listing  # the same text, or not in the index at all
    data = read_staged(root, name, path)
    if data is None:  # not in the index: the check says so, of the working tree's
        registry = registry or load_registry(path)
    else:
        registry = parse_registry(decode_utf8(data, path), path)
    return registry, list_registered(registry, root)


def _found_registry(start: str, root: str | None) -> str | None:
    """The registry on disk from ``start`` up; else one the index holds (deleted from
    the working tree only, the commit still has it)."""
    found = find_registry(start)
    if found is not None or root is None:
        return None if found is None else short_path(found)
    candidates = {}
    for folder in parents(start):
        candidates[relative(os.path.join(folder, REGISTRY_NAME), root)] = folder
        if folder == root:
            break
    held = index_entries(root, sorted(candidates))
    for name, folder in candidates.items():
        if name in held:
            return short_path(os.path.join(folder, REGISTRY_NAME))
    return None


def hook_tables(
    commit: Commit, tables: Iterable[Table], files: Sequence[str]
) -> list[Table]:
    """The tables a hook run handles: those of ``tables`` that the commit's changes
    touch (as git says them, ``changed.commit_changes``), or that ``files`` (the
    runner's names) touch; outside a git repository, ``files`` alone."""
    changed = {os.path.abspath(f) for f in files}
    root = commit.root
    if root:
        changed.update(os.path.join(root, name) for name in commit_changes(root))
    return tables_touched(
        commit.registry, tables, changed, root=root or commit.registry.root
    )


def refuse_deleted_registry(cwd: str) -> None:
    """No registry was found: one between ``cwd`` and the repository root that the
    index deletes is this commit's mistake."""
    start = os.path.realpath(cwd)
    root = find_git_root(start)
    if root is None:
        return
    out = git_output([*DIFF_DELETED], root, feature=FEATURE)
    deleted = {os.path.normpath(os.path.join(root, n)) for n in names(out)}
    for folder in parents(start):
        candidate = os.path.join(folder, REGISTRY_NAME)
        if candidate in deleted:
            raise InputError(
                short_path(candidate),
                "deleted or renamed in this commit, but the tuning-codegen hook still "
                "runs; restore it, or remove the hook from .pre-commit-config.yaml",
            )
        if folder == root:
            break


class IndexFiles:
    """The ``generate.Files`` of a hook run: every registered file as staged, read in
    one ``git cat-file`` (``prefetch``) and decoded as a file is."""

    def __init__(self, commit: Commit) -> None:
        self.commit = commit
        self._texts: dict[str, str] = {}

    def prefetch(self, tables: Iterable[Table]) -> None:
        paths = sorted({p for t in tables for p in t.inputs()})
        oids = {}
        for path in paths:
            entry = self.commit.entries.get(self.commit.name(path))
            if entry is not None:
                oids[entry.oid] = path
        blobs = read_blobs(self.commit.root, oids, oids)
        for path in paths:
            entry = self.commit.entries.get(self.commit.name(path))
            if entry is not None and path not in self._texts:
                self._texts[path] = decode_utf8(blobs[entry.oid], path)

    def text(self, path: str) -> str:
        if path not in self._texts:  # prefetch read every file a table names
            raise InputError(path, f"{FEATURE}: not a file of the commit")
        return self._texts[path]
