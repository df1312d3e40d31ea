"""Whether the commit holds every file a registry names, and why not, path by path.

One ``git ls-files --stage -v -m`` lists the index entries of every registered path
(the file it reads, and each symbolic link on the way) and whether the working tree's
copy differs; only a problem costs another git call, to word it. Every problem is one
line naming the path, what it is for in the registry, and what to do.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from tuning_codegen.commit.git import git_output, names
from tuning_codegen.commit.index import (
    EMPTY_BLOBS,
    FEATURE,
    GITLINK,
    SYMLINK,
    Entry,
    index_entries,
    intent_to_add,
    read_blobs,
)
from tuning_codegen.commit.names import (
    Check,
    Listing,
    list_registered,
    stage_zero,
)
from tuning_codegen.errors import InputError, InputErrors
from tuning_codegen.paths import parents
from tuning_codegen.registry import Registry

DIFF_DELETED = (
    "--literal-pathspecs", "diff", "--cached", "--name-only", "--no-renames", "-z",
    "--diff-filter=D",
)  # fmt: skip


def check_commit(
    registry: Registry, root: str, listing: Listing | None = None
) -> tuple[dict[str, Entry], frozenset[str]]:
    """Refuse a registered file the commit does not hold; each registered file's
    index entry, and the registered paths outside a sparse checkout."""
    checks, nested, found, _ = listing or list_registered(registry, root)
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
    entries = {c.name: e for c in present if (e := stage_zero(found[c.name]))}
    absent = frozenset(
        check.shown
        for check in present
        if entries[check.name].skip_worktree
        and not os.path.lexists(os.path.join(root, check.name))
    )
    return entries, absent


def _inside_repository(
    check: Check, registry: Registry, holder: str, found: Mapping[str, list[Entry]]
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
    missing: Sequence[Check], registry: Registry, root: str
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
    present: Sequence[Check],
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
        entry = stage_zero(found[check.name])
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
    links: Sequence[tuple[Check, Entry]], registry: Registry, root: str
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
