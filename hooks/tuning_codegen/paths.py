"""Where things are: the repository root, the registry, and which paths may be used.

The repository root is the nearest folder (upwards) holding ``.git`` (a folder, or a
file in a worktree or submodule). The registry is searched for from the working
directory up to that root and never above it; outside a repository it must be named
with ``--config``. A registered path must resolve (symlinks followed) inside the
repository and outside its ``.git`` folder.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tuning_codegen.errors import InputError

REGISTRY_NAME = ".tuning-codegen.yaml"


def find_git_root(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def find_registry(start: Path) -> Path | None:
    """The registry in ``start`` or a parent folder up to the repository root.

    None when there is none up to the root; an error outside a repository, where no
    folder is ours to search (a registry planted in a shared parent folder must never
    be applied).
    """
    start = start.resolve()
    root = find_git_root(start)
    if root is None:
        raise InputError(
            str(start),
            f"not inside a git repository, so no {REGISTRY_NAME} is searched for: "
            "pass --config PATH, or use the single-table flags (see --help)",
        )
    for folder in (start, *start.parents):
        candidate = folder / REGISTRY_NAME
        if candidate.is_file():
            if _parts_below(os.path.realpath(candidate), str(root)) is None:
                raise InputError(
                    str(candidate),
                    f"resolves outside the repository ({root}); a registry found by "
                    "searching must be the repository's own (or pass --config)",
                )
            return candidate
        if folder == root:
            break
    return None


def short_path(path: str) -> str:
    """``path`` relative to the working directory when below it, for messages."""
    rel = os.path.relpath(path)
    return path if rel == ".." or rel.startswith(".." + os.sep) else rel


class RealPaths:
    """``os.path.realpath`` that resolves each folder once: a registry names hundreds
    of files in a few folders. Make one per run; a cache kept longer could miss a
    folder replaced by a symlink meanwhile."""

    def __init__(self) -> None:
        self._folders: dict[str, str] = {}

    def __call__(self, path: str) -> str:
        absolute = os.path.abspath(path)
        folder, name = os.path.split(absolute)
        try:
            if not name or stat.S_ISLNK(os.lstat(absolute).st_mode):
                return os.path.realpath(absolute)
        except OSError:  # missing: realpath keeps the name as it is too
            pass
        real_folder = self._folders.get(folder)
        if real_folder is None:
            real_folder = self._folders[folder] = os.path.realpath(folder)
        return os.path.join(real_folder, name)


def _parts_below(path: str, root: str) -> list[str] | None:
    """The components of ``path`` below ``root`` (both absolute, normalized)."""
    if path == root:
        return []
    prefix = root.rstrip(os.sep) + os.sep
    return path[len(prefix) :].split(os.sep) if path.startswith(prefix) else None


def inside_git_folder(path: str, root: str) -> bool:
    """Whether ``path`` (below ``root``) has a component named ``.git``, any case."""
    parts = _parts_below(path, root) or []
    return any(part.casefold() == ".git" for part in parts)


def placement_problem(given: str, root: str, real: str | None = None) -> str | None:
    """Why the registered path ``given`` (absolute, normalized; ``real`` resolved)
    may not be used."""
    real = os.path.realpath(given) if real is None else real
    if _parts_below(real, root) is None:
        return f"resolves outside the repository ({root})"
    if inside_git_folder(given, root) or inside_git_folder(real, root):
        return "is inside the repository's .git folder"
    return None
