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
one line naming the path, what it is for, and what to do.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from tuning_codegen.errors import InputError, InputErrors
from tuning_codegen.gitcmd import git_output, names
from tuning_codegen.paths import REGISTRY_NAME, find_git_root, parents, short_path
from tuning_codegen.registry import (
    Registry,
    find_registry,
    load_registry,
    parse_registry,
    tables_touching,
)
from tuning_codegen.staged import (
    EMPTY_BLOBS,
    FEATURE,
    GITLINK,
    SYMLINK,
    Entry,
    index_entries,
    intent_to_add,
    read_blobs,
    read_staged,
    staged_names,
)
from tuning_codegen.table import Table
from tuning_codegen.textio import decode_utf8

DIFF_DELETED = (
    "--literal-pathspecs", "diff", "--cached", "--name-only", "--no-renames", "-z",
    "--diff-filter=D",
)  # fmt: skip
MAX_LINKS = 40  # symbolic links followed on the way to one file, as the kernel does


class _Check(NamedTuple):
    """One path to find in the index: the registered path as the user reads it, its
    name relative to the repository root (of the file it reads, or of a symbolic
    link on its way: ``link``), and its role in the registry."""

    shown: str
    name: str
    role: str
    link: bool = False


class Commit(NamedTuple):
    """What a hook run judges: the registry as the commit holds it, and the index
    entry of every registered file (by its name relative to ``root``)."""

    registry: Registry
    root: str  # "" outside a git repository: nothing to judge, the working tree
    entries: Mapping[str, Entry]
    absent: frozenset[str]  # registered paths outside a sparse checkout (as shown)

    def name(self, path: str) -> str:
        """The index name of the file a registered path reads."""
        return _relative(self.registry.real_path(path), self.root)


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


def open_commit(config: str | None, cwd: str) -> Commit | None:
    """The registry the commit holds (``--config``, else the one found from ``cwd``
    up to the repository's root) with every registered file checked to be in the
    commit; None when there is no registry at all."""
    start = os.path.realpath(cwd)
    root = find_git_root(start)
    path = config if config is not None else _found_registry(start, root)
    if path is None:
        return None
    if root is None or not _inside(os.path.realpath(path), root):
        return Commit(load_registry(path), "", {}, frozenset())
    registry, listing = _staged_registry(path, root)
    entries, absent = check_commit(registry, root, listing)
    return Commit(registry, root, entries, absent)


class _Listing(NamedTuple):
    """One ``git ls-files --stage -v -m`` over a registry's paths: the checks, the
    entries, and the names whose working-tree file differs from the index."""

    checks: list[_Check]
    nested: dict[str, str]
    found: dict[str, list[Entry]]
    modified: set[str]


def _list(registry: Registry, root: str) -> _Listing:
    checks = _checks(registry, root)
    nested = _nested_repositories(root, checks)
    holders = sorted(set(nested.values()))
    found, modified = index_entries(
        root, [*_pathspecs(c.name for c in checks), *holders], modified=True
    )
    return _Listing(checks, nested, found, modified)


def _staged_registry(path: str, root: str) -> tuple[Registry, _Listing]:
    """The registry as staged, and the listing of its paths. The working tree's copy
    is read first: when git says the index holds the same (the usual case), one
    ``ls-files`` is all it takes; else the staged text is read and listed again."""
    name = _relative(os.path.realpath(path), root)
    try:
        registry: Registry | None = load_registry(path)
    except (InputError, InputErrors):
        registry = None  # broken in the working tree only, perhaps
    if registry is not None:
        listing = _list(registry, root)
        entry = _stage_zero(listing.found.get(name, []))
        if entry is None or (
            name not in listing.modified and not entry.assume_unchanged
        ):
            return registry, listing  # the same text, or not in the index at all
    data = read_staged(root, name, path)
    if data is None:  # not in the index: the check says so, of the working tree's
        registry = registry or load_registry(path)
    else:
        registry = parse_registry(decode_utf8(data, path), path)
    return registry, _list(registry, root)


def _found_registry(start: str, root: str | None) -> str | None:
    """The registry on disk from ``start`` up; else one the index holds (deleted from
    the working tree only, the commit still has it)."""
    found = find_registry(start)
    if found is not None or root is None:
        return None if found is None else short_path(found)
    candidates = {}
    for folder in parents(start):
        candidates[_relative(os.path.join(folder, REGISTRY_NAME), root)] = folder
        if folder == root:
            break
    held = index_entries(root, sorted(candidates))
    for name, folder in candidates.items():
        if name in held:
            return short_path(os.path.join(folder, REGISTRY_NAME))
    return None


def _stage_zero(entries: Sequence[Entry]) -> Entry | None:
    return next((e for e in entries if e.stage == 0), None)


def _relative(path: str, root: str) -> str:
    below = root.rstrip(os.sep) + os.sep
    name = path[len(below) :] if path.startswith(below) else path
    return name.replace(os.sep, "/")


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def hook_tables(
    commit: Commit, tables: Iterable[Table], files: Sequence[str]
) -> list[Table]:
    """The tables a hook run handles: those of ``tables`` that ``files`` touch, or,
    given no file names, those the staged changes touch (never none by default)."""
    if files or not commit.root:
        changed = {os.path.abspath(f) for f in files}
    else:
        root = commit.root
        changed = {os.path.join(root, name) for name in staged_names(root)}
    return tables_touching(commit.registry, tables, changed)


def check_commit(
    registry: Registry, root: str, listing: _Listing | None = None
) -> tuple[dict[str, Entry], frozenset[str]]:
    """Refuse a registered file the commit does not hold; each registered file's
    index entry, and the registered paths outside a sparse checkout."""
    checks, nested, found, _ = listing or _list(registry, root)
    errors = [
        _inside_repository(check, registry, nested[check.name], found)
        for check in checks
        if check.name in nested
    ]
    missing = [c for c in checks if c.name not in nested and c.name not in found]
    if missing:
        errors += _not_in_index(missing, registry, root)
    present = [c for c in checks if c.name not in nested and c.name in found]
    errors += _unusable(present, found, registry, root)
    if errors:
        raise InputErrors(errors)
    entries = {c.name: e for c in present if (e := _stage_zero(found[c.name]))}
    absent = frozenset(
        check.shown
        for check in present
        if entries[check.name].skip_worktree
        and not os.path.lexists(os.path.join(root, check.name))
    )
    return entries, absent


def _checks(registry: Registry, root: str) -> list[_Check]:
    """Each registered path by the name of the file it reads (symbolic links
    followed), and each symbolic link on the way by its own name."""
    checks = []
    links = _Links(root)
    for path, role in registered_paths(registry).items():
        real = registry.real_path(path)
        read = _relative(real, root)
        checks.append(_Check(path, read, role))
        if real == os.path.normpath(os.path.abspath(path)):
            continue  # resolved to itself: no symbolic link on the way
        for name in links.on_the_way(path):
            if name != read:
                checks.append(_Check(path, name, role, link=True))
    return checks


class _Links:
    """The symbolic links a path goes through below the root: the names the commit
    must hold as links too (each name looked at once per run)."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.is_link: dict[str, bool] = {}

    def on_the_way(self, path: str) -> list[str]:
        absolute = os.path.abspath(path)
        if not _inside(absolute, self.root):
            return []
        queue = _relative(absolute, self.root).split("/")
        current: str = self.root
        found: list[str] = []
        while queue:
            part = queue.pop(0)
            if part in ("", "."):
                continue
            if part == "..":
                current = os.path.dirname(current)
                if not _inside(current, self.root):
                    break
                continue
            here = os.path.join(current, part)
            if len(found) >= MAX_LINKS or not self._link(here):
                current = here
                continue
            found.append(_relative(here, self.root))
            pointed = os.path.normpath(os.path.join(current, os.readlink(here)))
            if not _inside(pointed, self.root):
                break  # the registry refuses a path resolving outside the repository
            current, queue = (
                self.root,
                [*_relative(pointed, self.root).split("/"), *queue],
            )
        return found

    def _link(self, path: str) -> bool:
        if path not in self.is_link:
            self.is_link[path] = os.path.islink(path)
        return self.is_link[path]


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
        holder = _holder(root, os.path.dirname(check.name), known)
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


def _inside_repository(
    check: _Check, registry: Registry, holder: str, found: Mapping[str, list[Entry]]
) -> InputError:
    entries = found.get(holder, [])
    kind = (
        "git submodule" if any(e.mode == GITLINK for e in entries) else "git repository"
    )
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
        elif on_disk and check.link:
            message = (
                f"reached through the symbolic link '{check.name}', which is "
                f"untracked, but it is {use}, so the commit would not hold the way to "
                f"it: git add {check.name}"
            )
        elif on_disk:
            message = f"untracked, but it is {use}, so the commit would not hold it: "
            message += "git add it"
        else:
            message = f"no such file, but it is {use}; create it and git add it, or "
            message += "change the registry"
        errors.append(InputError(check.shown, message))
    return errors


def _submodules_above(checked: Sequence[str], root: str) -> dict[str, list[Entry]]:
    """The submodules (gitlinks) of the index among the folders above ``checked``."""
    folders = {p for name in checked for p in parents(name)[1:] if p}
    if not folders:
        return {}
    found = index_entries(root, sorted(folders))
    return {
        name: entries
        for name, entries in found.items()
        if any(e.mode == GITLINK for e in entries)
    }


def _unusable(
    present: Sequence[_Check],
    found: Mapping[str, list[Entry]],
    registry: Registry,
    root: str,
) -> list[InputError]:
    """Entries the commit holds but cannot give: a merge conflict, a name only marked
    ``git add -N``, a symbolic link other than the working tree's."""
    errors = []
    empty = []
    links = []
    for check in present:
        entry = _stage_zero(found[check.name])
        use = f"{check.role} in {registry.path}"
        if entry is None:
            errors.append(
                InputError(
                    check.shown,
                    f"unmerged (a merge conflict), but it is {use}: resolve the "
                    "conflict and git add it",
                )
            )
        elif entry.oid in EMPTY_BLOBS:
            empty.append(check)
        elif entry.mode == SYMLINK:
            links.append((check, entry))
    marked = intent_to_add(root, sorted({c.name for c in empty}))
    errors += [
        InputError(
            check.shown,
            f"only marked with git add -N (intent to add), but it is "
            f"{check.role} in {registry.path}, so the commit would not hold it: "
            "git add it",
        )
        for check in empty
        if check.name in marked
    ]
    return errors + _links_differ(links, registry, root)


def _links_differ(
    links: Sequence[tuple[_Check, Entry]], registry: Registry, root: str
) -> list[InputError]:
    """A symbolic link the commit holds must point where the working tree's does:
    the working tree is where the target is written."""
    if not links:
        return []
    shown = {entry.oid: check.shown for check, entry in links}
    blobs = read_blobs(root, [entry.oid for _, entry in links], shown)
    errors = []
    for check, entry in links:
        try:
            here = os.readlink(os.path.join(root, check.name))
        except OSError:
            here = None
        staged = os.fsdecode(blobs[entry.oid])
        if here != staged:
            errors.append(
                InputError(
                    check.shown,
                    f"the symbolic link '{check.name}' points to {staged!r} in the "
                    f"commit but to {here!r} in the working tree, and it is "
                    f"{check.role} in {registry.path}: git add it, or restore it",
                )
            )
    return errors


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
