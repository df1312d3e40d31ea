"""What git commits is judged, installed as users install the hook: real pre-commit,
``repo:`` a clone of this project, ``rev:`` its commit. A top-level ``exclude:``, a
merge finished by ``git commit`` (pre-commit passes the conflict's files only), a
retargeted folder link, a change of the formatter's configuration, and a PATH that
would run the repository's own formatter."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hook_scenarios import (
    EXCLUDED,
    diverge_with_a_conflict_elsewhere,
    hand_edit_region_with_a_readme,
    link_a_manifest_folder,
    retarget,
)
from support import (
    REG,
    SCRIPT,
    install_published,
    published_config,
    status_line,
)

pytestmark = pytest.mark.slow  # pre-commit builds the published hook's environment

MOJO = "kernels/tuning_configs.mojo"
PY = "python/dispatch.py"
REGENERATE = "regenerate tuning tables"
CHECK = "check tuning tables are fresh"


def hooked_with(
    repo: Any, home: Path, published: tuple[Path, str], hook: str, **top: Any
) -> Any:
    config = published_config(published, [{"id": hook}], **top)
    return install_published(repo, home, config)


def test_an_excluded_hand_edit_riding_with_a_readme_is_regenerated(
    codegen_repo: Any, pre_commit_home: Path, published: tuple[Path, str]
) -> None:
    hooked = hooked_with(
        codegen_repo, pre_commit_home, published, "tuning-codegen", exclude=EXCLUDED
    )
    hand_edit_region_with_a_readme(codegen_repo)
    start = hooked.head()
    done = hooked.commit("a hand edit, and a README")
    assert done.returncode != 0, done.stdout
    assert status_line(done.stdout, REGENERATE) == "Failed"
    assert "- files were modified by this hook" in done.stdout
    assert f"regenerated {MOJO} (tables: sm100-bf16)\n" in done.stdout
    assert hooked.head() == start
    codegen_repo.git("add", MOJO)
    assert hooked.commit("a README").returncode == 0


def test_a_merge_with_a_conflict_elsewhere_finished_by_git_commit_is_judged(
    codegen_repo: Any, pre_commit_home: Path, published: tuple[Path, str]
) -> None:
    hooked = hooked_with(
        codegen_repo,
        pre_commit_home,
        published,
        "tuning-codegen-check",
        default_install_hook_types=["pre-commit", "pre-merge-commit"],
    )
    diverge_with_a_conflict_elsewhere(codegen_repo, "main")
    start = hooked.head()
    done = hooked.commit("merge")
    assert "Checking merge-conflict files only." in done.stdout
    assert done.returncode != 0, done.stdout
    assert status_line(done.stdout, CHECK) == "Failed"
    assert "+            N=2688,\n" in done.stdout
    assert hooked.head() == start


def test_a_retargeted_folder_link_fails_as_a_clones_check_does(
    codegen_repo: Any,
    pre_commit_home: Path,
    published: tuple[Path, str],
    tmp_path: Path,
) -> None:
    link_a_manifest_folder(codegen_repo)
    hooked = hooked_with(codegen_repo, pre_commit_home, published, "tuning-codegen")
    retarget(codegen_repo)
    codegen_repo.git("add", "python/current")
    done = hooked.commit("retarget")
    assert done.returncode != 0, done.stdout
    assert "- exit code: 1" in done.stdout
    assert f"regenerated {PY} (tables: small-py)\n" in done.stdout
    codegen_repo.git("checkout", "--", PY)
    codegen_repo.git("commit", "-q", "--no-verify", "-m", "retarget, past the hook")
    since = hooked.run("tuning-codegen", "--check", "--since", "HEAD~1")
    assert since.returncode == 1, since.stdout
    codegen_repo.git("clone", "-q", str(codegen_repo.root), str(tmp_path / "clone"))
    clone = subprocess.run(
        ["tuning-codegen", "--check"], cwd=tmp_path / "clone", env=hooked.env,
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert clone.returncode == 1, clone.stdout
    assert clone.stdout == since.stdout


RUFF_TABLE = (
    "    language: python\n"
    '    format: [ruff, format, --quiet, --stdin-filename, "{path}", "-"]\n'
)


def test_a_commit_of_the_formatters_configuration_alone_is_judged(
    codegen_repo: Any, pre_commit_home: Path, published: tuple[Path, str]
) -> None:
    codegen_repo.edit(REG, "    language: python\n", RUFF_TABLE)
    codegen_repo.edit(REG, '    indent: "    "\n', "")
    codegen_repo.commit_all("the Python table formatted by ruff")
    hooked = hooked_with(
        codegen_repo, pre_commit_home, published, "tuning-codegen-check"
    )
    codegen_repo.path("ruff.toml").write_text('[format]\nquote-style = "single"\n')
    codegen_repo.git("add", "ruff.toml")
    done = hooked.commit("single quotes")
    assert done.returncode != 0, done.stdout
    assert status_line(done.stdout, CHECK) == "Failed"
    assert "+    Config(m=64, fast=False, extra='wide'),\n" in done.stdout


def test_an_untracked_formatter_configuration_is_refused_under_pre_commit(
    codegen_repo: Any, pre_commit_home: Path, published: tuple[Path, str]
) -> None:
    """pre-commit stashes unstaged edits, never untracked files: before, a region
    regenerated with an untracked ruff.toml was committed, and a clone's --check of
    the commit failed."""
    codegen_repo.edit(REG, "    language: python\n", RUFF_TABLE)
    codegen_repo.edit(REG, '    indent: "    "\n', "")
    codegen_repo.commit_all("the Python table formatted by ruff")
    hooked = hooked_with(
        codegen_repo, pre_commit_home, published, "tuning-codegen-check"
    )
    codegen_repo.path("ruff.toml").write_text('[format]\nquote-style = "single"\n')
    codegen_repo.edit("python/tuning_small.yaml", "M: 64", "M: 128")
    assert hooked.run(SCRIPT).returncode == 0
    codegen_repo.git("add", "python/tuning_small.yaml", PY)
    start = hooked.head()
    done = hooked.commit("retuned")
    assert done.returncode != 0, done.stdout
    assert hooked.head() == start
    assert status_line(done.stdout, CHECK) == "Failed"
    assert (
        "ruff.toml: error: not in the commit (untracked, or ignored by git), but ruff "
        "reads it to format the region of table 'small-py', so the verdict would not "
        "be the commit's: git add it (git add -f if ignored), or move it out of the "
        "repository\n"
    ) in done.stdout


def test_a_formatter_the_repository_ships_never_runs_from_the_hook(
    codegen_repo: Any,
    pre_commit_home: Path,
    published: tuple[Path, str],
    tmp_path: Path,
) -> None:
    """PATH with ``.`` and an empty entry, and ``./mojofmt-x`` in the repository:
    the commit fails in one line, and the program never ran."""
    codegen_repo.edit(
        REG, "    language: python\n", "    language: python\n    format: [mojofmt-x]\n"
    )
    program = codegen_repo.path("mojofmt-x")
    program.write_text('#!/bin/sh\ntouch "$MARKER"\nexec cat\n')
    program.chmod(0o755)
    codegen_repo.commit_all("a formatter of its own")
    hooked = hooked_with(codegen_repo, pre_commit_home, published, "tuning-codegen")
    marker = tmp_path / "ran"
    hooked.env["PATH"] = os.pathsep.join([".", hooked.env["PATH"], ""])
    hooked.env["MARKER"] = str(marker)
    codegen_repo.edit("python/tuning_small.yaml", "M: 64", "M: 128")
    codegen_repo.git("add", "python/tuning_small.yaml")
    done = hooked.commit("retune")
    assert done.returncode != 0, done.stdout
    assert "- exit code: 2" in done.stdout
    assert (
        f"{PY}: error: the formatter 'mojofmt-x' is not installed (PATH finds it only "
        "at 'mojofmt-x' in the repository (through the entry '.'), and nothing in the "
        "repository is run); it is the 'format' of table 'small-py' in "
        f"{REG}\n"
    ) in done.stdout
    assert not marker.exists()
