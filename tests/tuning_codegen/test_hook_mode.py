"""A commit deleting or renaming a registered file fails, through real pre-commit.

pre-commit passes a hook only the files a commit adds or modifies; the published hooks
run with ``always_run: true`` and ``--hook``, which checks that every registered path
(registry, manifests, snippets, variants, targets) is still there and not removed
from the index. Unstaged deletions are stashed away by pre-commit, so they pass.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from support import REG, install, project_hooks, status_line

from tuning_codegen.cli import main

pytestmark = pytest.mark.slow  # commits through real pre-commit, one per case

REGENERATE = project_hooks()["tuning-codegen"]["name"]
CHECK = project_hooks()["tuning-codegen-check"]["name"]
BF16 = "kernels/tuning_table_sm100_bf16.yaml"
RANGED = "kernels/tuning_ranged.mojo.snippet"
SMALL_TABLE = """\
  - name: small-py
    manifest: python/tuning_small.yaml
    snippet: python/small.py.snippet
    target: python/dispatch.py
    begin_marker: BEGIN-SMALL
    end_marker: END-SMALL
    indent: "    "
    language: python
"""


def failed(hooked: Any, name: str, *lines: str) -> None:
    """The commit fails with exit 2 and exactly these error lines; nothing moved."""
    start = hooked.head()
    before = hooked.repo.snapshot()
    done = hooked.commit("change")
    assert done.returncode != 0, done.stdout
    assert status_line(done.stdout, name) == "Failed"
    assert "- exit code: 2" in done.stdout
    body = done.stdout.split("- exit code: 2\n\n", 1)[1]
    assert body == "".join(line + "\n" for line in lines) + "\n"
    assert hooked.head() == start
    assert hooked.repo.snapshot() == before


@pytest.mark.parametrize("hook", ["tuning-codegen", "tuning-codegen-check"])
def test_deleting_a_registered_manifest_fails_the_commit(
    codegen_repo: Any, pre_commit_home: Path, hook: str
) -> None:
    hooked = install(codegen_repo, pre_commit_home, hook)
    codegen_repo.git("rm", "-q", BF16)
    failed(
        hooked,
        REGENERATE if hook == "tuning-codegen" else CHECK,
        f"{BF16}: error: deleted or renamed in this commit, but it is the manifest "
        f"of table 'sm100-bf16' in {REG}; restore it, or change the registry in "
        "the same commit",
    )


def test_renaming_a_snippet_variant_fails_the_commit(
    codegen_repo: Any, pre_commit_home: Path
) -> None:
    hooked = install(codegen_repo, pre_commit_home, "tuning-codegen")
    codegen_repo.git("mv", RANGED, "kernels/ranged.mojo.snippet")
    failed(
        hooked,
        REGENERATE,
        f"{RANGED}: error: deleted or renamed in this commit, but it is the snippet "
        f"variant 'ranged' of table 'sm100-ranged' in {REG}; restore it, or change "
        "the registry in the same commit",
    )


def test_removing_a_target_from_the_index_only_fails_the_commit(
    codegen_repo: Any, pre_commit_home: Path
) -> None:
    """``git rm --cached``: the file stays on disk, but the commit deletes it."""
    hooked = install(codegen_repo, pre_commit_home, "tuning-codegen")
    codegen_repo.git("rm", "-q", "--cached", "python/dispatch.py")
    failed(
        hooked,
        REGENERATE,
        "python/dispatch.py: error: removed from the index in this commit, but it "
        f"is the target of table 'small-py' in {REG}; restore it, or change the "
        "registry in the same commit",
    )


def test_deleting_the_registry_fails_the_commit(
    codegen_repo: Any, pre_commit_home: Path
) -> None:
    hooked = install(codegen_repo, pre_commit_home, "tuning-codegen")
    codegen_repo.git("rm", "-q", REG)
    failed(
        hooked,
        REGENERATE,
        f"{REG}: error: deleted or renamed in this commit, but the tuning-codegen "
        "hook still runs; restore it, or remove the hook from .pre-commit-config.yaml",
    )
    codegen_repo.git("reset", "-q", "HEAD", REG)
    codegen_repo.git("checkout", "--", REG)
    codegen_repo.git("rm", "-q", "--cached", REG)  # deleted from the index only
    failed(
        hooked,
        REGENERATE,
        f"{REG}: error: removed from the index in this commit, but it is the "
        f"registry of the tuning-codegen hook in {REG}; restore it, or change the "
        "registry in the same commit",
    )


def test_deleting_a_table_with_its_files_passes(
    codegen_repo: Any, pre_commit_home: Path
) -> None:
    hooked = install(codegen_repo, pre_commit_home, "tuning-codegen")
    codegen_repo.edit(REG, SMALL_TABLE, "")
    for rel in ("python/tuning_small.yaml", "python/small.py.snippet"):
        codegen_repo.git("rm", "-q", rel)
    codegen_repo.git("add", REG)
    done = hooked.commit("drop small-py")
    assert done.returncode == 0, done.stdout
    assert status_line(done.stdout, REGENERATE) == "Passed"


def test_an_unstaged_deletion_is_not_part_of_the_commit(
    codegen_repo: Any, pre_commit_home: Path
) -> None:
    """pre-commit stashes unstaged changes, so the hook sees the file; it passes."""
    hooked = install(codegen_repo, pre_commit_home, "tuning-codegen")
    os.unlink(codegen_repo.path(BF16))
    codegen_repo.path("docs/notes.txt").write_text("notes only\n")
    codegen_repo.git("add", "docs/notes.txt")
    done = hooked.commit("notes")
    assert done.returncode == 0, done.stdout
    assert not codegen_repo.path(BF16).exists()  # pre-commit put the deletion back


def test_hook_mode_judges_the_staged_changes_and_only_them(
    codegen_repo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """The hook asks git what is staged, whatever file names it is given (a plain
    git hook passes none, a runner may leave some out). An unstaged edit is not part
    of the commit, whatever the file names say."""
    codegen_repo.edit(BF16, "N: 2560", "N: 2688")
    before = codegen_repo.snapshot()
    assert main(["--hook"]) == 0
    assert main(["--hook", "--check", "docs/notes.txt"]) == 0
    assert main(["--hook", "--check", BF16]) == 0  # the commit holds the old BF16
    assert capsys.readouterr() == ("", "")
    assert codegen_repo.snapshot() == before
    codegen_repo.git("add", BF16)
    assert main(["--hook", "--check"]) == 1  # no names: what is staged
    assert "1 stale region in 1 file" in capsys.readouterr().out
    assert main(["--hook", "--check", "docs/notes.txt"]) == 1  # names: joined to it
    assert "1 stale region in 1 file" in capsys.readouterr().out
    assert main(["--hook", "--since", "HEAD"]) == 2
    assert capsys.readouterr().err.endswith(
        "tuning-codegen: error: --hook cannot be combined with --since or --list\n"
    )
