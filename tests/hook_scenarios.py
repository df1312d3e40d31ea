"""Scenarios of commits whose runner's file list is not the commit, shared by the
hook's tests (``tests/tuning_codegen/test_hook_asks_git*.py``): each leaves a
``codegen_repo`` (``tests/tuning_codegen/conftest.py``) in the state to commit."""

from __future__ import annotations

import os
import subprocess
from typing import Any

from support import REG

MOJO = "kernels/tuning_configs.mojo"
BF16 = "kernels/tuning_table_sm100_bf16.yaml"
NOTES = "docs/notes.txt"
EXCLUDED = "^kernels/"  # generated code, as many configs leave it to the generator


def hand_edit_region_with_a_readme(repo: Any) -> None:
    """A region edited by hand, staged with README.md: a runner that excludes
    kernels/ passes README.md alone."""
    repo.edit(MOJO, "            N=2560,\n", "            N=2561,\n")
    repo.path("README.md").write_text("Notes.\n")
    repo.git("add", MOJO, "README.md")


def diverge_with_a_conflict_elsewhere(
    repo: Any, stale_on: str, base: str = "main"
) -> None:
    """Two branches, ``base`` and ``side``, that both change docs/notes.txt (a
    conflict no table reads); the branch ``stale_on`` also retunes a manifest
    without regenerating (committed past the hook). ``git merge side`` stops on the
    conflict, which is resolved and staged: the merge is left for ``git commit``."""
    repo.git("checkout", "-q", "-b", "side")
    for branch in ("side", base):
        repo.git("checkout", "-q", branch)
        repo.path(NOTES).write_text(f"Notes of {branch}.\n")
        if branch == stale_on:
            repo.edit(BF16, "N: 2560", "N: 2688")
        repo.commit_all(f"notes of {branch}")
    merge = subprocess.run(
        ["git", "merge", "--no-ff", "-m", "merge", "side"],
        cwd=repo.root, capture_output=True, text=True, check=False,
    )  # fmt: skip
    conflict = f"CONFLICT (content): Merge conflict in {NOTES}"
    assert merge.returncode == 1 and conflict in merge.stdout, merge.stdout
    repo.path(NOTES).write_text("Notes of both.\n")
    repo.git("add", NOTES)


LINKED = "python/current/tuning_small.yaml"


def link_a_manifest_folder(repo: Any) -> None:
    """``python/current -> v1`` a tracked folder link on the manifest's path;
    ``v2`` holds a retuned manifest that no table reads yet. Every region fresh."""
    small = repo.path("python/tuning_small.yaml").read_text()
    for version, text in (("v1", small), ("v2", small.replace("M: 64", "M: 128"))):
        repo.path(f"python/{version}").mkdir()
        repo.path(f"python/{version}/tuning_small.yaml").write_text(text)
    repo.path("python/tuning_small.yaml").unlink()
    os.symlink("v1", repo.path("python/current"))
    repo.edit(REG, "manifest: python/tuning_small.yaml", f"manifest: {LINKED}")
    repo.commit_all("the manifest behind a folder link")


def retarget(repo: Any) -> None:
    repo.path("python/current").unlink()
    os.symlink("v2", repo.path("python/current"))
