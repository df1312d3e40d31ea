"""The hooks of ``.pre-commit-hooks.yaml`` run by real ``pre-commit`` inside real ``git commit``.

Two ways in:
- ``pre-commit try-repo`` against this very repository, once per session: pre-commit
  clones it, pip-installs it into its own environment and runs both hooks as a user's
  repository would.
- Fast tests through a ``.pre-commit-config.yaml`` with ``repo: local`` hooks whose fields
  come from this repository's ``.pre-commit-hooks.yaml`` (id, name, entry's arguments,
  files, types, require_serial, pass_filenames), with ``language: system`` and the entry
  pointing at the ``tuning-codegen`` script of the running interpreter.

``PRE_COMMIT_HOME`` is a session-scoped temporary folder, so the user's cache is untouched.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support import PROJECT, env_for, install, project_hooks, status_line

MOJO = "kernels/tuning_configs.mojo"
PY = "python/dispatch.py"
BF16 = "kernels/tuning_table_sm100_bf16.yaml"


REGENERATE = project_hooks()["tuning-codegen"]["name"]
CHECK = project_hooks()["tuning-codegen-check"]["name"]


def bump_bf16(repo: Any) -> None:
    repo.edit(BF16, "N: 2560", "N: 2688")


def test_published_hooks_are_declared_as_the_issue_asks() -> None:
    hooks = project_hooks()
    assert list(hooks) == ["tuning-codegen", "tuning-codegen-check"]
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert hook["require_serial"] is True
        assert hook.get("pass_filenames", True) is True
        # pre-commit passes no deleted file: the hook must run anyway
        assert hook["always_run"] is True
        # commit time only: what is committed is the index
        assert hook["stages"] == ["pre-commit", "pre-merge-commit", "manual"]
        assert hook["minimum_pre_commit_version"] == "3.2.0"
    # no "--" at the end: pre-commit puts a user's args: after the entry, and they
    # must stay options (the hook tells file names apart itself)
    assert hooks["tuning-codegen"]["entry"] == "tuning-codegen --hook"
    assert hooks["tuning-codegen-check"]["entry"] == "tuning-codegen --hook --check"


def test_changed_manifest_fails_commit_regenerates_then_passes(
    codegen_repo: Any, pre_commit_home: Path
) -> None:
    hooked = install(codegen_repo, pre_commit_home, "tuning-codegen")
    start = hooked.head()
    bump_bf16(codegen_repo)
    codegen_repo.git("add", BF16)

    done = hooked.commit("retune bf16")
    assert done.returncode != 0, done.stdout
    assert status_line(done.stdout, REGENERATE) == "Failed"
    assert "- files were modified by this hook" in done.stdout
    assert f"regenerated {MOJO} (tables: sm100-bf16)\n" in done.stdout
    assert hooked.head() == start
    target = codegen_repo.mojo_target.read_text()
    assert "            N=2688,\n" in target and "N=2560" not in target

    codegen_repo.git("add", MOJO)
    done = hooked.commit("retune bf16")
    assert done.returncode == 0, done.stdout
    assert status_line(done.stdout, REGENERATE) == "Passed"
    assert hooked.head() != start
    assert codegen_repo.git("status", "--porcelain") == ""
    assert sorted(
        codegen_repo.git("show", "--name-only", "--format=", "HEAD").split()
    ) == sorted([BF16, MOJO])


def test_check_hook_fails_with_diff_and_writes_nothing(
    codegen_repo: Any, pre_commit_home: Path
) -> None:
    hooked = install(codegen_repo, pre_commit_home, "tuning-codegen-check")
    start = hooked.head()
    bump_bf16(codegen_repo)
    codegen_repo.git("add", BF16)
    before = codegen_repo.snapshot()

    done = hooked.commit("retune bf16")
    assert done.returncode != 0, done.stdout
    assert status_line(done.stdout, CHECK) == "Failed"
    assert "- exit code: 1" in done.stdout
    assert f"diff --git a/{MOJO} b/{MOJO}\n--- a/{MOJO}\n+++ b/{MOJO}\n" in done.stdout
    assert "-            N=2560,\n+            N=2688,\n" in done.stdout
    assert "1 stale region in 1 file; run tuning-codegen to regenerate\n" in done.stdout
    assert "files were modified" not in done.stdout
    assert codegen_repo.snapshot() == before
    assert hooked.head() == start

    # the CI recipe: run over every file, same verdict, still nothing written
    done = hooked.pre_commit("run", "--all-files", "tuning-codegen-check")
    assert done.returncode == 1 and "1 stale region in 1 file" in done.stdout
    assert codegen_repo.snapshot() == before


def test_commit_touching_no_registered_file_passes_and_writes_nothing(
    codegen_repo: Any, pre_commit_home: Path
) -> None:
    hooked = install(codegen_repo, pre_commit_home, "tuning-codegen")
    # a stale table already in history; a commit that does not touch it must not care
    codegen_repo.edit("python/tuning_small.yaml", "M: 64", "M: 128")
    codegen_repo.git("commit", "-q", "--no-verify", "-am", "small-py stale on purpose")
    codegen_repo.path("docs/notes.txt").write_text("Only notes change.\n")
    codegen_repo.git("add", "docs/notes.txt")
    before = codegen_repo.snapshot()

    done = hooked.commit("notes")
    assert done.returncode == 0, done.stdout
    assert status_line(done.stdout, REGENERATE) == "Passed"
    assert "regenerated" not in done.stdout
    assert codegen_repo.snapshot() == before


def test_snippet_change_regenerates_every_table_using_it(
    codegen_repo: Any, pre_commit_home: Path
) -> None:
    hooked = install(codegen_repo, pre_commit_home, "tuning-codegen")
    codegen_repo.edit(
        "kernels/tuning_sm100.mojo.snippet",
        "    M=[@M],\n",
        "    # sm100\n    M=[@M],\n",
    )
    codegen_repo.git("add", "kernels/tuning_sm100.mojo.snippet")
    untouched_sm90 = codegen_repo.mojo_target.read_text().split(
        "# BEGIN-TUNING-LIST-SM90-FP8"
    )[1]

    done = hooked.commit("annotate sm100 entries")
    assert done.returncode != 0, done.stdout
    assert f"regenerated {MOJO} (tables: sm100-bf16, sm100-ranged)\n" in done.stdout
    target = codegen_repo.mojo_target.read_text()
    # three bf16 entries, and the one ranged entry that uses the default snippet
    assert target.count("            # sm100\n") == 4
    assert target.split("# BEGIN-TUNING-LIST-SM90-FP8")[1] == untouched_sm90

    codegen_repo.git("add", MOJO)
    assert hooked.commit("annotate sm100 entries").returncode == 0


def test_registry_change_triggers_every_table(
    codegen_repo: Any, pre_commit_home: Path
) -> None:
    hooked = install(codegen_repo, pre_commit_home, "tuning-codegen")
    codegen_repo.edit("python/tuning_small.yaml", "M: 64", "M: 128")
    codegen_repo.edit("kernels/tuning_table_sm90_fp8.yaml", "BN: 112", "BN: 128")
    codegen_repo.git(
        "commit", "-q", "--no-verify", "-am", "two stale tables on purpose"
    )
    codegen_repo.registry.write_text(codegen_repo.registry.read_text() + "# reviewed\n")
    codegen_repo.git("add", ".tuning-codegen.yaml")

    done = hooked.commit("registry comment")
    assert done.returncode != 0, done.stdout
    assert (
        f"regenerated {MOJO} (tables: sm90-fp8)\nregenerated {PY} (tables: small-py)\n"
        in done.stdout
    )
    codegen_repo.git("add", MOJO, PY)
    done = hooked.commit("registry comment")
    assert done.returncode == 0, done.stdout


def test_bad_registry_fails_commit_and_leaves_files_untouched(
    codegen_repo: Any, pre_commit_home: Path
) -> None:
    hooked = install(codegen_repo, pre_commit_home, "tuning-codegen")
    start = hooked.head()
    bump_bf16(codegen_repo)
    registry = codegen_repo.registry
    registry.write_text(
        registry.read_text().replace(
            "    manifest: kernels/tuning_table_sm90",
            "    manfest: kernels/tuning_table_sm90",
        )
    )
    codegen_repo.git("add", BF16, ".tuning-codegen.yaml")
    before = codegen_repo.snapshot()

    done = hooked.commit("typo")
    assert done.returncode != 0, done.stdout
    assert status_line(done.stdout, REGENERATE) == "Failed"
    assert "- exit code: 2" in done.stdout
    assert (
        ".tuning-codegen.yaml:17: error: unknown key 'manfest' in table; did you mean 'manifest'?\n"
        in done.stdout
    )
    assert "Traceback" not in done.stdout
    assert codegen_repo.snapshot() == before
    assert hooked.head() == start


# --- pre-commit try-repo against this repository (slow: builds a Python environment once) ---


@pytest.fixture(scope="session")
def try_repo_run(
    tmp_path_factory: pytest.TempPathFactory,
    pre_commit_home: Path,
    new_codegen_repo: Callable[[Path], Any],
) -> tuple[Any, dict[str, bytes], str, int]:
    """One ``pre-commit try-repo PROJECT --all-files`` in a repository with a stale table."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        for name in [n for n in os.environ if n.startswith("GIT_")]:
            monkeypatch.delenv(name)
        repo = new_codegen_repo(tmp_path_factory.mktemp("try-repo") / "repo")
        bump_bf16(repo)
        repo.commit_all("stale bf16 table")
        before = repo.snapshot()
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pre_commit",
                "try-repo",
                str(PROJECT),
                "--all-files",
            ],
            cwd=repo.root,
            env=env_for(pre_commit_home),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            check=False,
        )
    return repo, before, done.stdout, done.returncode


@pytest.mark.slow  # a property run, or a real process under a limit
def test_try_repo_runs_both_published_hooks(
    try_repo_run: tuple[Any, dict[str, bytes], str, int],
) -> None:
    repo, before, output, code = try_repo_run
    assert code == 1, output
    assert status_line(output, REGENERATE) == "Failed"
    assert f"regenerated {MOJO} (tables: sm100-bf16)\n" in output
    # the check hook runs after the regenerate hook: it judges what is staged, and
    # the rewritten file is not staged yet
    assert status_line(output, CHECK) == "Failed"
    assert "1 stale region in 1 file; run tuning-codegen to regenerate\n" in output
    after = repo.snapshot()
    assert {k for k in after if after[k] != before.get(k)} == {MOJO}
    assert b"            N=2688,\n" in after[MOJO]
