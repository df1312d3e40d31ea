"""A formatter's configuration as the commit holds it, or a refusal naming the file.

A table with ``format:`` makes its region what the formatter leaves of it, and the
formatter reads its configuration (``.clang-format``, ``ruff.toml``,
``pyproject.toml``: ``formatinputs``) from the working tree, whatever git has staged.
So a hook run judges the commit only if the working tree's copy of each of those
files is the commit's: for every table the run judges, each configuration file must
be in the index and on disk with the same content, or in neither. Else the run is
refused, one line per file saying what to do, before anything is formatted or
written:

- on disk but not in the index (untracked, or ignored by git: the formatter reads
  an ignored file all the same, and a clone has none of it): stage it, or move it
  away;
- in the index but not on disk: restore it, or stage its removal (outside a sparse
  checkout: add it to the checkout);
- in both, different (an unstaged edit, a name only marked ``git add -N``): stage it,
  or stash the difference (``git stash --keep-index``).

pre-commit stashes unstaged edits before its hooks run, never untracked files; a
plain ``.git/hooks/pre-commit`` stashes nothing. One ``git ls-files -m`` answers it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from tuning_codegen.commit.index import Entry, index_entries
from tuning_codegen.commit.names import relative, stage_zero
from tuning_codegen.commit.snapshot import Commit
from tuning_codegen.errors import InputError, InputErrors
from tuning_codegen.formatinputs import format_inputs
from tuning_codegen.paths import short_path
from tuning_codegen.table import Table


def refuse_configuration_not_committed(commit: Commit, tables: Iterable[Table]) -> None:
    """Refuse a formatter configuration file of ``tables`` whose working-tree copy
    is not what the commit holds (see the module's docstring)."""
    root = commit.root
    if not root:
        return  # outside a git repository: no commit to judge
    uses = _configuration_files(commit, tables)
    if not uses:
        return
    found, modified = index_entries(root, sorted(uses), modified=True)
    errors = []
    for name, use in sorted(uses.items()):
        problem = _problem(name, found.get(name, []), name in modified, root)
        if problem is not None:
            shown = short_path(os.path.join(root, name))
            message = f"{problem}, but {use}: {_WHAT_TO_DO[problem]}"
            errors.append(InputError(shown, message))
    if errors:
        raise InputErrors(errors)


def _configuration_files(commit: Commit, tables: Iterable[Table]) -> dict[str, str]:
    """Each configuration file (its index name) -> what it is, for messages."""
    uses: dict[str, str] = {}
    for table in tables:
        if table.formatter is None:
            continue
        argv = table.formatter.argv
        folder = os.path.dirname(commit.registry.real_path(table.target))
        for path in format_inputs(argv, folder, commit.root):
            uses.setdefault(
                relative(path, commit.root),
                f"{argv[0]} reads it to format the region of table '{table.name}', so "
                "the verdict would not be the commit's",
            )
    return uses


UNTRACKED = "not in the commit (untracked, or ignored by git)"
MISSING = "staged, but not in the working tree"
SPARSE = "staged, but outside the sparse checkout"
DIFFERS = "staged with other content than the working tree's"
_WHAT_TO_DO = {
    UNTRACKED: "git add it (git add -f if ignored), or move it out of the repository",
    MISSING: "restore it (git checkout -- PATH), or stage its removal (git rm)",
    SPARSE: "add it to the checkout (git sparse-checkout add)",
    DIFFERS: "git add it, or stash the difference (git stash --keep-index)",
}


def _problem(name: str, entries: list[Entry], modified: bool, root: str) -> str | None:
    on_disk = os.path.lexists(os.path.join(root, name))
    if not entries:
        return UNTRACKED if on_disk else None
    if not on_disk:
        entry = stage_zero(entries)
        return SPARSE if entry is not None and entry.skip_worktree else MISSING
    return DIFFERS if modified else None
