"""``--hook``: the checks the published pre-commit hooks add.

pre-commit passes a hook the files a commit adds or modifies, never the ones it
deletes, and with ``always_run: true`` runs the hook even when no file matches. So in
hook mode every registered path (the registry, and each table's manifest, snippets and
target) must exist in the working tree, which pre-commit has made what is committed by
stashing unstaged changes, and must not be deleted from the index (``git rm --cached``:
one ``git diff --cached`` subprocess). Otherwise the commit fails with one line per
path, before anything is regenerated.
"""

from __future__ import annotations

import os
from pathlib import Path

from tuning_codegen.errors import InputError, InputErrors
from tuning_codegen.paths import REGISTRY_NAME, find_git_root
from tuning_codegen.registry import Registry

GIT_DELETED = ["git", "diff", "--cached", "--name-only", "--no-renames", "-z"]


def deleted_in_index(root: str) -> set[str]:
    """Absolute paths the index deletes compared with HEAD (none outside git)."""
    if not os.path.lexists(os.path.join(root, ".git")):
        return set()
    import subprocess  # only hook mode pays for it

    try:
        done = subprocess.run(
            [*GIT_DELETED, "--diff-filter=D"], cwd=root, capture_output=True
        )
    except OSError as exc:
        raise InputError(root, f"--hook: cannot run git: {exc.strerror}") from None
    if done.returncode != 0:
        why = os.fsdecode(done.stderr).strip().splitlines() or ["failed"]
        raise InputError(root, f"--hook: git diff --cached: {why[0]}")
    real_root = os.path.realpath(root)
    names = (os.fsdecode(n) for n in done.stdout.split(b"\0") if n)
    return {os.path.normpath(os.path.join(real_root, name)) for name in names}


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


def check_nothing_deleted(registry: Registry) -> None:
    deleted = deleted_in_index(registry.root)
    errors = []
    for path, role in registered_paths(registry).items():
        try:
            os.stat(path)
        except OSError:
            what = "deleted or renamed"
        else:
            spellings = {os.path.abspath(path), registry.real_path(path)}
            if not spellings & deleted:
                continue
            what = "removed from the index"
        errors.append(
            InputError(
                path,
                f"{what} in this commit, but it is {role} in {registry.path}; "
                "restore it, or change the registry in the same commit",
            )
        )
    if errors:
        raise InputErrors(errors)


def deleted_registry(cwd: Path) -> str | None:
    """A registry between ``cwd`` and the repository root that the index deletes."""
    start = cwd.resolve()
    root = find_git_root(start)
    if root is None:
        return None
    deleted = deleted_in_index(str(root))
    for folder in (start, *start.parents):
        candidate = str(folder / REGISTRY_NAME)
        if candidate in deleted:
            return candidate
        if folder == root:
            break
    return None
