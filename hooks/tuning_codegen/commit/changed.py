"""What the commit changes, as git says it, whatever the hook runner passes.

A runner's file list is not the commit: pre-commit leaves out what a top-level
``exclude:`` matches and, finishing a merge, passes only the files of the conflict; a
plain ``.git/hooks/pre-commit`` passes nothing at all. So the names a hook run judges
are git's: the index against HEAD (every staged path before the first commit), and
during a merge (``MERGE_HEAD`` in the git folder) against each parent too, so a file
that came whole from one side is a change of the merge. The runner's names are
joined to them, never put in their place.
"""

from __future__ import annotations

import os
import re

from tuning_codegen.commit.index import staged_names
from tuning_codegen.errors import InputError
from tuning_codegen.paths import git_folder_of
from tuning_codegen.textio import read_bytes

MERGE_HEAD = "MERGE_HEAD"
_OID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?\Z")


def commit_changes(root: str) -> set[str]:
    """The paths (relative to ``root``) the commit being made changes: from HEAD,
    and from each other parent of a merge."""
    changed = set(staged_names(root))
    for parent in merge_parents(root):
        changed.update(staged_names(root, parent))
    return changed


def merge_parents(root: str) -> list[str]:
    """The commits a merge in progress joins to HEAD (``MERGE_HEAD``: one per line,
    several for an octopus merge); none outside a merge."""
    try:
        data = read_bytes(os.path.join(git_folder(root), MERGE_HEAD))
    except InputError:  # no merge (or no file git would read as one)
        return []
    lines = data.decode("ascii", "replace").split()
    return [line for line in lines if _OID.match(line)]


def git_folder(root: str) -> str:
    """The git folder of the working tree at ``root``, found as git finds it:
    ``GIT_DIR`` when the caller set it, else ``.git`` (a folder, or the file of a
    worktree or submodule naming its folder with ``gitdir:``)."""
    named = os.environ.get("GIT_DIR")
    if named:
        return os.path.abspath(named)
    dot_git = os.path.join(root, ".git")
    return git_folder_of(dot_git) or dot_git
