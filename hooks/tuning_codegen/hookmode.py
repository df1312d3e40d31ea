"""``--hook``: the hook judges the commit, not the working tree.

pre-commit passes a hook the files a commit adds or modifies, never the ones it
deletes, and with ``always_run: true`` runs the hook even when no file matches. A
commit must contain every file its registry names (the registry, and each table's
manifest, snippets and target), so before anything is regenerated each of them must be
**in the index**, which is what the commit will hold, not only on disk:

- tracked, at stage 0 or as a merge conflict's stages (git itself refuses to commit
  those); a skip-worktree entry of a sparse checkout counts, though its file is not on
  disk, until a table the commit touches needs to read it;
- not inside a git submodule or another repository nested in this one, which a commit
  of this repository cannot contain (the hook would rewrite a target there and commit
  the stale state).

One ``git ls-files`` per run answers it (a second git call only words an error), and
outside a git repository there is nothing to judge. Every problem is one line naming
the path, what it is for, and what to do.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from tuning_codegen.errors import InputError, InputErrors
from tuning_codegen.gitcmd import git_output, names
from tuning_codegen.paths import (
    REGISTRY_NAME,
    RealPaths,
    find_git_root,
    parents,
    short_path,
)
from tuning_codegen.registry import Registry, tables_touching
from tuning_codegen.table import Table

FEATURE = "--hook"
LS_FILES = ("--literal-pathspecs", "ls-files", "-z", "--stage", "-t", "--")
DIFF_DELETED = (
    "--literal-pathspecs", "diff", "--cached", "--name-only", "--no-renames", "-z",
    "--diff-filter=D",
)  # fmt: skip
GITLINK = "160000"
SKIP_WORKTREE = "S"


class Entry(NamedTuple):
    """A path's entry in the index (``git ls-files --stage -t``)."""

    tag: str  # H: cached, S: skip-worktree, M: unmerged, ...
    mode: str  # 100644, 120000 (a symbolic link), 160000 (a submodule), ...


class _Check(NamedTuple):
    """One path to find in the index: the registered path as the user reads it, its
    spelling relative to the repository root, and its role in the registry."""

    shown: str
    name: str
    role: str


def registered_paths(registry: Registry) -> dict[str, str]:
    """Each registered path -> what it is, for messages (the first use wins)."""
    uses = {registry.path: "the registry of the tuning-codegen hook"}
    for table in registry.tables:
        named = [
            ("manifest", table.manifest),
            ("snippet", table.snippet),
            *((f"snippet variant '{k}'", v) for k, v in table.snippet_variants.items()),
            ("target", table.target),
        ]
        for role, path in named:
            uses.setdefault(path, f"the {role} of table '{table.name}'")
    return uses


def hook_tables(
    registry: Registry, tables: Iterable[Table], files: Sequence[str]
) -> list[Table]:
    """The tables a hook run handles, those of ``tables`` that ``files`` touch, once
    every registered file is known to be in the commit."""
    absent = check_commit(registry)
    touched = tables_touching(registry, tables, {os.path.abspath(f) for f in files})
    _refuse_sparse(touched, absent)
    return touched


def check_commit(registry: Registry) -> set[str]:
    """Refuse a registered file the commit does not contain; the registered paths
    that are skip-worktree entries absent from disk (a sparse checkout's)."""
    root = registry.root
    if not os.path.lexists(os.path.join(root, ".git")):
        return set()
    checks = _checks(registry, os.path.realpath(root))
    nested = _nested_repositories(root, checks)
    holders = sorted(set(nested.values()))
    entries = _index_entries(root, [*_pathspecs(c.name for c in checks), *holders])
    errors = [
        _inside_repository(check, registry, nested[check.name], entries)
        for check in checks
        if check.name in nested
    ]
    missing = [c for c in checks if c.name not in nested and c.name not in entries]
    if missing:
        errors += _not_in_index(missing, registry, root)
    if errors:
        raise InputErrors(errors)
    return {
        check.shown
        for check in checks
        if entries[check.name].tag == SKIP_WORKTREE
        and not os.path.lexists(os.path.join(root, check.name))
    }


def _checks(registry: Registry, root: str) -> list[_Check]:
    """Each registered path, by the name of the file it reads (symbolic links
    followed) and, when it is a link itself, by the link's own name too."""
    checks = []
    folders = RealPaths()
    below = root.rstrip(os.sep) + os.sep
    for path, role in registered_paths(registry).items():
        link = folders.folder_resolved(path)
        for spelling in sorted({link, registry.real_path(path)}):
            name = spelling[len(below) :] if spelling.startswith(below) else spelling
            checks.append(_Check(path, name.replace(os.sep, "/"), role))
    return checks


def _pathspecs(checked: Iterable[str]) -> list[str]:
    """Few pathspecs that cover ``checked``: each folder holding one (git's cost grows
    with the number of pathspecs times the size of the index), and the names at the
    top, whose folder would be the whole repository."""
    folders = {os.path.dirname(name) or name for name in checked}
    return sorted(
        folder
        for folder in folders
        if not any(up in folders for up in parents(folder)[1:] if up)
    )


def _nested_repositories(root: str, checks: Sequence[_Check]) -> dict[str, str]:
    """Checked name -> the folder (relative to ``root``) of the submodule or nested
    repository holding it, for the names inside one."""
    known: dict[str, str | None] = {}
    nested = {}
    for check in checks:
        folder = os.path.dirname(check.name)
        holder = _holder(root, folder, known)
        if holder is not None:
            nested[check.name] = holder
    return nested


def _holder(root: str, folder: str, known: dict[str, str | None]) -> str | None:
    """The outermost folder from ``folder`` up to (not including) ``root`` that holds
    a ``.git`` of its own; ``known`` caches the answer per folder."""
    if not folder:
        return None
    if folder not in known:
        outer = _holder(root, os.path.dirname(folder), known)
        own = os.path.lexists(os.path.join(root, folder, ".git"))
        known[folder] = outer or (folder if own else None)
    return known[folder]


def _index_entries(root: str, checked: Sequence[str]) -> dict[str, Entry]:
    """Each of ``checked`` the index holds (every stage of a conflict is one)."""
    out = git_output([*LS_FILES, *checked], root, feature=FEATURE)
    entries = {}
    for record in out.split(b"\0"):
        head, tab, name = record.partition(b"\t")
        fields = head.split(b" ")
        if tab and len(fields) == 4:
            tag, mode = fields[0].decode(), fields[1].decode()
            entries[os.fsdecode(name)] = Entry(tag, mode)
    return entries


def _inside_repository(
    check: _Check, registry: Registry, holder: str, entries: dict[str, Entry]
) -> InputError:
    entry = entries.get(holder)
    kind = "git submodule" if entry and entry.mode == GITLINK else "git repository"
    return InputError(
        check.shown,
        f"inside the {kind} '{holder}', but it is {check.role} in {registry.path}: "
        "a commit of this repository cannot contain it; keep the table's files in "
        "this repository",
    )


def _not_in_index(
    missing: Sequence[_Check], registry: Registry, root: str
) -> list[InputError]:
    """Why each path is not in the index, and what to do about it."""
    deleted = set(names(git_output([*DIFF_DELETED], root, feature=FEATURE)))
    gitlinks = _submodules_above([c.name for c in missing], root)
    errors = []
    for check in missing:
        holder = next((g for g in gitlinks if check.name.startswith(g + "/")), None)
        if holder is not None:  # a submodule not checked out: no .git on disk
            errors.append(_inside_repository(check, registry, holder, gitlinks))
            continue
        on_disk = os.path.lexists(os.path.join(root, check.name))
        use = f"{check.role} in {registry.path}"
        if check.name in deleted:
            what = "removed from the index" if on_disk else "deleted or renamed"
            message = (
                f"{what} in this commit, but it is {use}; restore it, or change the "
                "registry in the same commit"
            )
        elif on_disk:
            message = f"untracked, but it is {use}, so the commit would not hold it: "
            message += "git add it"
        else:
            message = f"no such file, but it is {use}; create it and git add it, or "
            message += "change the registry"
        errors.append(InputError(check.shown, message))
    return errors


def _submodules_above(checked: Sequence[str], root: str) -> dict[str, Entry]:
    """The submodules (gitlinks) of the index among the folders above ``checked``."""
    folders = {p for name in checked for p in parents(name)[1:] if p}
    if not folders:
        return {}
    entries = _index_entries(root, sorted(folders))
    return {name: e for name, e in entries.items() if e.mode == GITLINK}


def _refuse_sparse(tables: Sequence[Table], absent: set[str]) -> None:
    """A table the commit touches reads or writes files: they must be on disk."""
    errors = [
        InputError(
            path,
            f"outside the sparse checkout, but table '{table.name}' needs it to "
            "regenerate; add its folder with git sparse-checkout add",
        )
        for table in tables
        for path in table.inputs()
        if path in absent
    ]
    if errors:
        raise InputErrors(errors)


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
