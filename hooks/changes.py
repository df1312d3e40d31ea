"""Which files changed since a git revision (GitPython, imported only when asked)."""

from __future__ import annotations

import os

from hooks.errors import CodegenError


def changed_since(ref: str, repo_dir: str) -> set[str]:
    """Absolute paths changed between ``ref`` and the working tree.

    Covers commits after ``ref``, staged and unstaged changes, and untracked files.
    """
    import git  # deferred: GitPython costs start-up time on every plain hook run

    try:
        repo = git.Repo(repo_dir, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise CodegenError(repo_dir, "--since needs a git repository") from None
    try:
        commit = repo.commit(ref)
    except (git.BadName, ValueError, git.GitCommandError):
        raise CodegenError(repo_dir, f"--since: unknown revision '{ref}'") from None
    top = repo.working_tree_dir
    assert top is not None
    names: set[str] = set()
    for change in commit.diff(None):
        names.update(p for p in (change.a_path, change.b_path) if p)
    names.update(repo.untracked_files)
    return {os.path.normpath(os.path.join(top, name)) for name in names}
