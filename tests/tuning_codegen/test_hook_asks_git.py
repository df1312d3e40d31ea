"""The hook judges what git commits, not what the runner passes: the index against
HEAD, each parent of a merge, and a symbolic link on a registered path are changes,
whatever a runner filters (a top-level ``exclude:``, pre-commit's merge-conflict
files, a plain ``.git/hooks/pre-commit`` that passes nothing). ``--since`` sees a
retargeted link too. Real git and real pre-commit (``repo: local`` hooks with the
published hooks' fields); the same through a published clone is in
``test_hook_asks_git_published.py``."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from hook_scenarios import (
    EXCLUDED,
    NOTES,
    diverge_with_a_conflict_elsewhere,
    hand_edit_region_with_a_readme,
    link_a_manifest_folder,
    retarget,
)
from support import (
    SCRIPT,
    install,
    install_published,
    local_hook,
    project_hooks,
    run_codegen,
    status_line,
)

REGENERATE = project_hooks()["tuning-codegen"]["name"]
CHECK = project_hooks()["tuning-codegen-check"]["name"]
MOJO = "kernels/tuning_configs.mojo"


def codegen(repo: Any, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SCRIPT, *args], cwd=repo.root, capture_output=True, text=True, check=False
    )


def test_a_hand_edited_region_is_caught_though_the_runner_excludes_it(
    codegen_repo: Any, pre_commit_home: Path
) -> None:
    """Before, pre-commit passed README.md only, the hook touched no table, and the
    commit held a stale region."""
    config = {"exclude": EXCLUDED, "repos": [
        {"repo": "local", "hooks": [local_hook("tuning-codegen")]}
    ]}  # fmt: skip
    hooked = install_published(
        codegen_repo, pre_commit_home, yaml.safe_dump(config, sort_keys=False)
    )
    hand_edit_region_with_a_readme(codegen_repo)
    start = hooked.head()
    done = hooked.commit("a hand edit, and a README")
    assert done.returncode != 0, done.stdout
    assert status_line(done.stdout, REGENERATE) == "Failed"
    assert f"regenerated {MOJO} (tables: sm100-bf16)\n" in done.stdout
    assert "            N=2560,\n" in codegen_repo.mojo_target.read_text()
    assert hooked.head() == start


@pytest.mark.parametrize("names", [[], ["README.md"]], ids=["none", "readme"])
def test_the_verdict_is_the_commits_whatever_names_the_runner_passes(
    codegen_repo: Any, capsys: pytest.CaptureFixture[str], names: list[str]
) -> None:
    hand_edit_region_with_a_readme(codegen_repo)
    code, out, _ = run_codegen(["--hook", "--check", *names], capsys)
    assert code == 1
    assert "+            N=2560,\n" in out


@pytest.mark.parametrize("stale_on", ["main", "side"])
def test_a_merge_finished_by_git_commit_is_judged_against_each_parent(
    codegen_repo: Any, pre_commit_home: Path, stale_on: str
) -> None:
    """pre-commit passes the merge-conflict files only: before, the hook touched no
    table and the merge held the stale region of one side. The stale side is HEAD
    (``main``: seen against MERGE_HEAD) or the branch merged in (seen against
    HEAD)."""
    hooked = install(codegen_repo, pre_commit_home, "tuning-codegen-check")
    diverge_with_a_conflict_elsewhere(codegen_repo, stale_on)
    start = hooked.head()
    done = hooked.commit("merge")
    assert done.returncode != 0, done.stdout
    assert status_line(done.stdout, CHECK) == "Failed"
    assert "+            N=2688,\n" in done.stdout
    assert "1 stale region in 1 file" in done.stdout
    assert hooked.head() == start


def test_a_merge_in_a_linked_worktree_is_judged_against_each_parent(
    codegen_repo: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A linked worktree keeps its MERGE_HEAD in the folder its ``.git`` file
    names."""
    linked = tmp_path / "linked"
    codegen_repo.git("worktree", "add", "-q", "-b", "work", str(linked))
    worktree = type(codegen_repo)(linked)
    diverge_with_a_conflict_elsewhere(worktree, "work", base="work")
    monkeypatch.chdir(linked)
    code, out, _ = run_codegen(["--hook", "--check", NOTES], capsys)
    assert code == 1
    assert "+            N=2688,\n" in out


def test_a_merge_is_judged_by_a_plain_git_hook_too(codegen_repo: Any) -> None:
    """No runner, no names: git's own changes, against both parents."""
    hooks = codegen_repo.root / ".git" / "hooks"
    (hooks / "pre-commit").write_text(f"#!/bin/sh\nexec {SCRIPT} --hook --check\n")
    (hooks / "pre-commit").chmod(0o755)
    diverge_with_a_conflict_elsewhere(codegen_repo, "main")
    done = subprocess.run(
        ["git", "commit", "-q", "--no-edit"],
        cwd=codegen_repo.root, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "1 stale region in 1 file" in done.stderr


def test_a_retargeted_folder_link_is_a_change_of_the_tables_behind_it(
    codegen_repo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before, the link itself matched no registered file: the hook and --since
    passed while every clone's --check failed."""
    link_a_manifest_folder(codegen_repo)
    retarget(codegen_repo)
    assert run_codegen(["--check", "--since", "HEAD"], capsys)[0] == 1
    codegen_repo.git("add", "python/current")
    for names in ([], ["python/current"]):
        code, out, _ = run_codegen(["--hook", "--check", *names], capsys)
        assert code == 1
        assert '+    Config(m=128, fast=False, extra="wide"),\n' in out
    codegen_repo.git("commit", "-q", "--no-verify", "-m", "retarget")
    assert run_codegen(["--check", "--since", "HEAD~1"], capsys)[0] == 1
    assert run_codegen(["--check", "--since", "HEAD"], capsys)[0] == 0  # no change
    assert run_codegen(["--check"], capsys)[0] == 1  # as every clone says


def test_a_retargeted_link_commit_is_stopped_by_pre_commit(
    codegen_repo: Any, pre_commit_home: Path
) -> None:
    link_a_manifest_folder(codegen_repo)
    hooked = install(codegen_repo, pre_commit_home, "tuning-codegen")
    retarget(codegen_repo)
    codegen_repo.git("add", "python/current")
    done = hooked.commit("retarget")
    assert done.returncode != 0, done.stdout
    assert status_line(done.stdout, REGENERATE) == "Failed"
    assert "regenerated python/dispatch.py (tables: small-py)\n" in done.stdout
    codegen_repo.git("add", "python/dispatch.py")
    assert hooked.commit("retarget").returncode == 0
    assert codegen(codegen_repo, "--check").returncode == 0
