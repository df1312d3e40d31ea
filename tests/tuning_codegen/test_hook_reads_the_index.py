"""The commit is judged from the index by any hook runner: a plain
``.git/hooks/pre-commit`` (as lefthook and husky install), ``git commit -- PATH``'s
temporary index, and working trees that lie about the index (partial staging,
assume-unchanged, ``git add -N``, an untracked symlinked folder, ``GIT_DIR`` and
``GIT_WORK_TREE`` set by the caller). Real git, no pre-commit stash to lean on."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support import REG, SCRIPT

BF16 = "kernels/tuning_table_sm100_bf16.yaml"
MOJO = "kernels/tuning_configs.mojo"


def plain_hook(repo: Any, *args: str, git_dir: Path | None = None) -> None:
    """``tuning-codegen ARGS`` as the repository's own pre-commit hook."""
    hooks = (git_dir or repo.root / ".git") / "hooks"
    hooks.mkdir(parents=True, exist_ok=True)
    hook = hooks / "pre-commit"
    hook.write_text(f"#!/bin/sh\nexec {SCRIPT} {' '.join(args)}\n")
    hook.chmod(0o755)


class Done:
    """``git commit``'s exit code, and what its hook printed (git sends a hook's
    stdout to its own stderr)."""

    def __init__(self, done: subprocess.CompletedProcess[str]) -> None:
        self.returncode = done.returncode
        self.out = done.stderr


def commit(repo: Any, *args: str, env: dict[str, str] | None = None) -> Done:
    return Done(
        subprocess.run(
            ["git", "commit", "-q", "-m", "change", *args],
            cwd=repo.root, capture_output=True, text=True, env=env,
        )
    )  # fmt: skip


def head(repo: Any) -> str:
    return str(repo.git("rev-parse", "HEAD")).strip()


def retune(repo: Any) -> None:
    repo.edit(BF16, "N: 2560", "N: 2688")


def test_a_regenerated_target_left_unstaged_fails_the_check(codegen_repo: Any) -> None:
    """Before, --hook --check read the working tree: it passed, and HEAD was stale."""
    plain_hook(codegen_repo, "--hook", "--check")
    retune(codegen_repo)
    assert subprocess.run([SCRIPT], cwd=codegen_repo.root).returncode == 0
    codegen_repo.git("add", BF16)  # the manifest, not the regenerated target
    start = head(codegen_repo)
    done = commit(codegen_repo)
    assert done.returncode == 1, done.out
    assert f"--- a/{MOJO}\n+++ b/{MOJO}\n" in done.out
    assert "1 stale region in 1 file" in done.out
    assert head(codegen_repo) == start
    codegen_repo.git("add", MOJO)
    assert commit(codegen_repo).returncode == 0


def test_regenerating_exits_1_until_the_target_is_staged(codegen_repo: Any) -> None:
    """Before, --hook in write mode exited 0 after rewriting: the commit went ahead
    without the rewritten file."""
    plain_hook(codegen_repo, "--hook")
    retune(codegen_repo)
    codegen_repo.git("add", BF16)
    start = head(codegen_repo)
    done = commit(codegen_repo)
    assert done.returncode == 1, done.out
    assert done.out == (
        f"regenerated {MOJO} (tables: sm100-bf16)\n"
        f"1 stale region in the commit; git add {MOJO} and commit again\n"
    )
    assert head(codegen_repo) == start
    assert "            N=2688,\n" in codegen_repo.mojo_target.read_text()
    done = commit(codegen_repo)  # still unstaged: nothing to write, still refused
    assert done.returncode == 1
    assert done.out == (
        f"{MOJO}: regenerated in the working tree but not staged (tables: "
        f"sm100-bf16)\n1 stale region in the commit; git add {MOJO} and commit again\n"
    )
    codegen_repo.git("add", MOJO)
    assert commit(codegen_repo).returncode == 0
    assert head(codegen_repo) != start


def test_partial_staging_regenerates_the_commit_and_keeps_unstaged_work(
    codegen_repo: Any,
) -> None:
    """A staged manifest hunk reaches the region; an unstaged one never does; the
    target's own unstaged edits outside the region stay as they are."""
    plain_hook(codegen_repo, "--hook")
    retune(codegen_repo)
    codegen_repo.git("add", BF16)
    codegen_repo.edit(BF16, "N: 4096", "N: 8192")  # unstaged: not in this commit
    target = codegen_repo.mojo_target
    edited = target.read_text().replace(
        "# edit the manifests, not the regions.", "# edit the manifests (unstaged).", 1
    )
    target.write_text(edited)
    assert commit(codegen_repo).returncode == 1
    text = target.read_text()
    assert "            N=2688,\n" in text  # the staged hunk
    assert "N=8192" not in text  # the unstaged one
    assert "# edit the manifests (unstaged).\n" in text  # kept
    staged = codegen_repo.git("show", f":{MOJO}")
    assert "# edit the manifests, not the regions." in staged  # nothing staged for us
    assert "N: 8192" in codegen_repo.path(BF16).read_text()


def test_unstaged_changes_that_break_a_region_are_refused(codegen_repo: Any) -> None:
    plain_hook(codegen_repo, "--hook")
    retune(codegen_repo)
    codegen_repo.git("add", BF16)
    target = codegen_repo.mojo_target
    target.write_text(target.read_text().replace("# END-TUNING-LIST-SM100-BF16\n", ""))
    before = codegen_repo.snapshot()
    done = commit(codegen_repo)
    assert done.returncode == 1, done.out
    assert done.out == (
        f"{MOJO}: error: cannot regenerate it in the working tree: its unstaged "
        "changes break the region (end marker 'END-TUNING-LIST-SM100-BF16' not "
        "found); stage or undo them\n"
    )
    assert codegen_repo.snapshot() == before


def test_commit_with_paths_is_judged_on_its_temporary_index(codegen_repo: Any) -> None:
    """``git commit -- PATH`` commits PATH as it is on disk through a temporary index
    (GIT_INDEX_FILE): the regenerated target must be among the paths."""
    plain_hook(codegen_repo, "--hook", "--check")
    retune(codegen_repo)
    assert subprocess.run([SCRIPT], cwd=codegen_repo.root).returncode == 0
    start = head(codegen_repo)
    done = commit(codegen_repo, "--", BF16)
    assert done.returncode == 1, done.out
    assert "1 stale region in 1 file" in done.out
    assert head(codegen_repo) == start
    assert commit(codegen_repo, "--", BF16, MOJO).returncode == 0


def test_an_assume_unchanged_target_is_judged_as_staged(codegen_repo: Any) -> None:
    plain_hook(codegen_repo, "--hook", "--check")
    retune(codegen_repo)
    assert subprocess.run([SCRIPT], cwd=codegen_repo.root).returncode == 0
    codegen_repo.git("update-index", "--assume-unchanged", MOJO)
    codegen_repo.git("add", BF16)
    done = commit(codegen_repo)
    assert done.returncode == 1, done.out
    assert "1 stale region in 1 file" in done.out


def test_a_manifest_only_marked_intent_to_add_is_refused(codegen_repo: Any) -> None:
    plain_hook(codegen_repo, "--hook")
    codegen_repo.registry.write_text(
        codegen_repo.registry.read_text().replace(
            "kernels/tuning_table_sm90_fp8.yaml", "kernels/new_fp8.yaml"
        )
    )
    codegen_repo.path("kernels/new_fp8.yaml").write_bytes(
        codegen_repo.path("kernels/tuning_table_sm90_fp8.yaml").read_bytes()
    )
    codegen_repo.git("add", REG)
    codegen_repo.git("add", "-N", "kernels/new_fp8.yaml")
    done = commit(codegen_repo)
    assert done.returncode == 1, done.out
    assert done.out == (
        "kernels/new_fp8.yaml: error: only marked with git add -N (intent to add), "
        f"but it is the manifest of table 'sm90-fp8' in {REG}, so the commit would "
        "not hold it: git add it\n"
    )


def test_a_path_through_an_untracked_symlinked_folder_is_refused(
    codegen_repo: Any,
) -> None:
    plain_hook(codegen_repo, "--hook", "--check")
    os.symlink("kernels", codegen_repo.path("linked"))
    codegen_repo.registry.write_text(
        codegen_repo.registry.read_text().replace(
            "manifest: kernels/tuning_table_sm100_bf16.yaml",
            "manifest: linked/tuning_table_sm100_bf16.yaml",
        )
    )
    codegen_repo.git("add", REG)
    done = commit(codegen_repo)
    assert done.returncode == 1, done.out
    assert done.out == (
        "linked/tuning_table_sm100_bf16.yaml: error: reached through the symbolic "
        "link 'linked', which is untracked, but it is the manifest of table "
        f"'sm100-bf16' in {REG}, so the commit would not hold the way to it: "
        "git add linked\n"
    )
    codegen_repo.git("add", "linked")
    assert commit(codegen_repo).returncode == 0


def test_a_link_changed_in_the_working_tree_only_is_refused(
    codegen_repo: Any,
) -> None:
    """The target is written where the working tree's link leads, the inputs are
    read where the commit's leads: the two must agree."""
    os.symlink("kernels", codegen_repo.path("linked"))
    codegen_repo.registry.write_text(
        codegen_repo.registry.read_text().replace(
            "manifest: kernels/tuning_table_sm100_bf16.yaml",
            "manifest: linked/tuning_table_sm100_bf16.yaml",
        )
    )
    codegen_repo.commit_all("a link")
    plain_hook(codegen_repo, "--hook", "--check")
    codegen_repo.path("linked").unlink()
    os.symlink("./kernels", codegen_repo.path("linked"))  # not staged
    retune(codegen_repo)
    codegen_repo.git("add", BF16)
    done = commit(codegen_repo)
    assert done.returncode == 1, done.out
    assert done.out == (
        "linked/tuning_table_sm100_bf16.yaml: error: the symbolic link 'linked' "
        "points to 'kernels' in the commit but to './kernels' in the working tree, "
        f"and it is the manifest of table 'sm100-bf16' in {REG}: git add it, or "
        "restore it\n"
    )


def test_a_separate_git_dir_named_by_the_caller_is_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, new_codegen_repo: Any
) -> None:
    """GIT_DIR and GIT_WORK_TREE set by the caller, no .git in the working tree:
    before, the hook found no repository and passed with nothing judged."""
    for name in [n for n in os.environ if n.startswith("GIT_")]:
        monkeypatch.delenv(name)
    repo = new_codegen_repo(tmp_path / "work")
    repo.commit_all("tables")
    git_dir = tmp_path / "store.git"
    os.rename(repo.root / ".git", git_dir)
    env = {**os.environ, "GIT_DIR": str(git_dir), "GIT_WORK_TREE": str(repo.root)}
    monkeypatch.setenv("GIT_DIR", str(git_dir))
    monkeypatch.setenv("GIT_WORK_TREE", str(repo.root))
    plain_hook(repo, "--hook", "--check", git_dir=git_dir)
    retune(repo)
    repo.git("add", BF16)
    start = repo.git("rev-parse", "HEAD")
    done = commit(repo, env=env)
    assert done.returncode == 1, done.out
    assert "1 stale region in 1 file" in done.out
    assert repo.git("rev-parse", "HEAD") == start
