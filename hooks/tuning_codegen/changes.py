"""Which files changed since a git revision (GitPython, imported only when asked).

Every failure of git or GitPython (no git executable, no repository, a bare one, a
revision missing from a shallow clone) is one clean error, never a traceback.
"""

from __future__ import annotations

import os
from typing import Any

from tuning_codegen.errors import InputError, one_line


def changed_since(ref: str, repo_dir: str) -> set[str]:
    """Absolute paths changed between ``ref`` and the working tree of the repository
    at ``repo_dir`` (the registry's, not the working directory's).

    Covers commits after ``ref``, staged and unstaged changes, and untracked files.
    """
    git = _import_git(repo_dir)
    try:
        repo = git.Repo(repo_dir)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise InputError(repo_dir, "--since needs a git repository") from None
    top = repo.working_tree_dir
    if top is None or repo.bare:
        raise InputError(repo_dir, "--since needs a working tree, not a bare one")
    try:
        commit = repo.commit(ref)
    except git.GitCommandNotFound:
        raise InputError(repo_dir, "--since: git is not installed") from None
    except Exception:  # GitPython's parser of the user's REF: BadName, IndexError...
        raise InputError(repo_dir, _unknown(ref, repo_dir)) from None
    try:
        names: set[str] = set()
        for change in commit.diff(None):
            names.update(p for p in (change.a_path, change.b_path) if p)
        names.update(repo.untracked_files)
    except (git.GitError, ValueError, OSError) as exc:
        why = one_line(str(exc)).strip() or type(exc).__name__
        raise InputError(repo_dir, f"--since: git failed: {why}") from None
    return {os.path.normpath(os.path.join(top, name)) for name in names}


def _import_git(repo_dir: str) -> Any:
    os.environ.setdefault("GIT_PYTHON_REFRESH", "quiet")  # no git: fail below, cleanly
    try:
        import git  # deferred: GitPython costs start-up time on every plain hook run
    except ImportError as exc:
        raise InputError(repo_dir, f"--since needs GitPython: {exc}") from None
    try:
        git.Git().version_info  # noqa: B018  (runs git once: is it there?)
    except (git.GitError, OSError):
        raise InputError(repo_dir, "--since: git is not installed") from None
    return git


def _unknown(ref: str, repo_dir: str) -> str:
    message = f"--since: unknown revision '{ref}'"
    if os.path.exists(os.path.join(repo_dir, ".git", "shallow")):
        message += " (this is a shallow clone: fetch the revision or deepen it)"
    return message
