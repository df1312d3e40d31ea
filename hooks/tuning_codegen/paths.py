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

from tuning_codegen.commit.git import run_git
from tuning_codegen.errors import InputError

REGISTRY_NAME = ".tuning-codegen.yaml"


def parents(start: str) -> list[str]:
    """``start`` (absolute) and each folder above it, up to the file system's root."""
    folders = [start]
    while (up := os.path.dirname(folders[-1])) != folders[-1]:
        folders.append(up)
    return folders


def find_git_root(start: str) -> str | None:
    """The top of the working tree holding ``start`` (absolute): the nearest folder
    upwards that holds ``.git``; where the caller set ``GIT_DIR`` or ``GIT_WORK_TREE``
    (a repository whose ``.git`` lives elsewhere), the folder git itself names."""
    for folder in parents(start):
        dot_git = os.path.join(folder, ".git")
        if os.path.exists(dot_git):
            if _matches_environment(dot_git):
                return folder
            break
    else:
        if not _environment_names_a_repository():
            return None
    return _top_from_git(start)


def _environment_names_a_repository() -> bool:
    return bool(os.environ.get("GIT_DIR") or os.environ.get("GIT_WORK_TREE"))


def _matches_environment(dot_git: str) -> bool:
    """Whether the ``.git`` found is the repository the environment names (no
    ``GIT_WORK_TREE``, and ``GIT_DIR`` unset or that very folder, or the folder a
    worktree's ``.git`` file points to), so that git need not be asked."""
    if os.environ.get("GIT_WORK_TREE"):
        return False
    named = os.environ.get("GIT_DIR")
    if not named:
        return True
    pointed = git_folder_of(dot_git)
    return pointed is not None and os.path.realpath(pointed) == os.path.realpath(named)


def git_folder_of(dot_git: str) -> str | None:
    """The git folder a ``.git`` stands for: itself when a folder, else the folder
    its ``gitdir:`` line names (a worktree's, a submodule's); None if unreadable."""
    if os.path.isdir(dot_git):
        return dot_git
    try:
        with open(dot_git, encoding="utf-8", errors="replace") as handle:
            line = handle.read(4096).strip()
    except OSError:
        return None
    pointed = line.removeprefix("gitdir:").strip()
    return os.path.normpath(os.path.join(os.path.dirname(dot_git), pointed))


def _top_from_git(start: str) -> str | None:
    """``git rev-parse --show-toplevel`` run from ``start``; None outside a working
    tree (or without git)."""
    try:
        result = run_git(["rev-parse", "--show-toplevel"], start, feature="git")
    except InputError:
        return None
    top = os.fsdecode(result.out.rstrip(b"\n"))
    return top if result.code == 0 and top else None


def find_registry(start: str) -> str | None:
    """The registry in ``start`` or a parent folder up to the repository root.

    None when there is none up to the root; an error outside a repository, where no
    folder is ours to search (a registry planted in a shared parent folder must never
    be applied).
    """
    start = os.path.realpath(start)
    root = find_git_root(start)
    if root is None:
        raise InputError(
            start,
            f"not inside a git repository, so no {REGISTRY_NAME} is searched for: "
            "pass --config PATH, or use the single-table flags (see --help)",
        )
    for folder in parents(start):
        candidate = os.path.join(folder, REGISTRY_NAME)
        if os.path.isfile(candidate):
            if _parts_below(os.path.realpath(candidate), root) is None:
                raise InputError(
                    candidate,
                    f"resolves outside the repository ({root}); a registry found by "
                    "searching must be the repository's own (or pass --config)",
                )
            return candidate
        if folder == root:
            break
    return None


def short_path(path: str, cwd: str | None = None) -> str:
    """``path`` relative to the working directory (``cwd``: already asked) when
    below it, for messages."""
    below = (cwd or os.getcwd()).rstrip(os.sep) + os.sep
    if path.startswith(below) and os.path.normpath(path) == path:
        return path[len(below) :]  # what relpath says, for a fraction of its cost
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
        try:
            if absolute.endswith(os.sep) or stat.S_ISLNK(os.lstat(absolute).st_mode):
                return os.path.realpath(absolute)
        except OSError:  # missing: realpath keeps the name as it is too
            pass
        return self.folder_resolved(absolute)

    def folder_resolved(self, path: str) -> str:
        """``path`` with its folder resolved and its last component kept, a link
        or not: the name of the link itself."""
        folder, name = os.path.split(os.path.abspath(path))
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
    if ".git" not in path.casefold():
        return False  # the usual case, without splitting the path
    parts = _parts_below(path, root) or []
    return any(part.casefold() == ".git" for part in parts)


def placement_problem(given: str, root: str, real: str | None = None) -> str | None:
    """Why the registered path ``given`` (absolute, normalized; ``real`` resolved)
    may not be used."""
    real = os.path.realpath(given) if real is None else real
    if real != root and not real.startswith(root.rstrip(os.sep) + os.sep):
        return f"resolves outside the repository ({root})"
    if inside_git_folder(given, root) or inside_git_folder(real, root):
        return "is inside the repository's .git folder"
    return None
