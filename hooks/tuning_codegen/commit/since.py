"""Which files changed since a git revision (``--since REF``), as git itself says.

git resolves REF (so ``HEAD~2``, ``origin/main``, ``HEAD@{yesterday}`` and any other
revision syntax mean what they mean to git) and lists the names NUL-terminated
(``-z``), so a name holding a newline or bytes of another encoding is read whole. Every
failure (no git, no repository, a bare one, a revision missing from a shallow clone, a
range given for a revision) is one clean error.
"""

from __future__ import annotations

import os

from tuning_codegen.commit.git import git_output, names, run_git
from tuning_codegen.errors import InputError

FEATURE = "--since"


def changed_since(ref: str, repo_dir: str) -> set[str]:
    """Absolute paths changed between ``ref`` and the working tree of the repository
    at ``repo_dir`` (the registry's, not the working directory's).

    Covers commits after ``ref``, staged and unstaged changes, and untracked files.
    """
    if ".." in ref:
        raise InputError(
            repo_dir,
            f"{FEATURE} takes one revision, not a range A..B (got '{ref}'); for the "
            "changes of a branch, give where it starts: --since origin/main",
        )
    top = _working_tree(repo_dir)
    commit = _resolve(ref, repo_dir, top)
    tracked = ["diff", "-z", "--name-only", "--no-renames", "--no-ext-diff", commit]
    untracked = ["ls-files", "-z", "--others", "--exclude-standard"]
    found = names(git_output([*tracked, "--"], top, feature=FEATURE))
    found += names(git_output(untracked, top, feature=FEATURE))
    return {os.path.normpath(os.path.join(top, name)) for name in found}


def _working_tree(repo_dir: str) -> str:
    """The top folder of the working tree holding ``repo_dir``."""
    result = run_git(["rev-parse", "--show-toplevel"], repo_dir, feature=FEATURE)
    if result.code == 0:
        return os.fsdecode(result.out.rstrip(b"\n"))
    bare = run_git(["rev-parse", "--is-bare-repository"], repo_dir, feature=FEATURE)
    if bare.code == 0 and bare.out.strip() == b"true":
        raise InputError(repo_dir, f"{FEATURE} needs a working tree, not a bare one")
    raise InputError(repo_dir, f"{FEATURE} needs a git repository")


def _resolve(ref: str, repo_dir: str, top: str) -> str:
    """The commit ``ref`` names, as git resolves it."""
    if ref and not ref.startswith("-"):  # never an option of git's
        spec = f"{ref}^{{commit}}"
        verify = ["rev-parse", "--verify", "--quiet", spec]
        result = run_git(verify, top, feature=FEATURE)
        if result.code == 0:
            return os.fsdecode(result.out.strip())
    message = f"{FEATURE}: unknown revision '{ref}'"
    shallow = run_git(["rev-parse", "--is-shallow-repository"], top, feature=FEATURE)
    if shallow.code == 0 and shallow.out.strip() == b"true":
        message += " (this is a shallow clone: fetch the revision or deepen it)"
    raise InputError(repo_dir, message)
