"""``--since REF`` against real git repositories: commits, index, work tree, untracked files.

Every scenario starts from the four-table repository of ``conftest.py`` in which the
Python table ``small-py`` was committed stale *before* REF. Nothing the scenario does
touches it, so ``--since`` must leave it alone: it is neither reported by ``--check`` nor
rewritten by a regenerate run, although a plain ``--check`` still finds it stale.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support import PY
from support import run_codegen as run

MOJO = "kernels/tuning_configs.mojo"
BF16 = "kernels/tuning_table_sm100_bf16.yaml"
RANGED_SNIPPET = "kernels/tuning_ranged.mojo.snippet"
DIFF_HEAD = f"diff --git a/{MOJO} b/{MOJO}\n--- a/{MOJO}\n+++ b/{MOJO}\n"
ONE_STALE = "1 stale region in 1 file; run tuning-codegen to regenerate\n"
BF16_CHANGE = "-            N=2560,\n+            N=2688,\n"
RANGED_CHANGE = "+            # ranged twice\n"


def bump_bf16(repo: Any, rel: str = BF16) -> None:
    repo.edit(rel, "N: 2560", "N: 2688")


def committed(repo: Any) -> str:
    repo.git("tag", "ref")
    bump_bf16(repo)
    repo.git("commit", "-q", "-am", "retune bf16")
    return "ref"


def two_commits_back(repo: Any) -> str:
    bump_bf16(repo)
    repo.git("commit", "-q", "-am", "retune bf16")
    repo.path("docs/notes.txt").write_text("later\n")
    repo.git("commit", "-q", "-am", "notes")
    return "HEAD~2"


def staged(repo: Any) -> str:
    bump_bf16(repo)
    repo.git("add", BF16)
    return "HEAD"


def unstaged(repo: Any) -> str:
    bump_bf16(repo)
    return "HEAD"


def untracked_snippet(repo: Any) -> str:
    """A snippet git has never seen at REF (removed from the index, so untracked now)."""
    repo.git("rm", "-q", "--cached", RANGED_SNIPPET)
    repo.git("commit", "-q", "-m", "snippet not yet committed")
    repo.edit(
        RANGED_SNIPPET, "    # ranged entry", "    # ranged twice\n    # ranged entry"
    )
    assert RANGED_SNIPPET in repo.git("status", "--porcelain", "--untracked-files=all")
    return "HEAD"


def renamed_into_place(repo: Any) -> str:
    """The registered manifest arrives by a rename (git reports old and new path)."""
    repo.git("mv", BF16, "kernels/bf16_draft.yaml")
    repo.git("commit", "-q", "-m", "draft")
    repo.git("tag", "ref")
    bump_bf16(repo, "kernels/bf16_draft.yaml")
    repo.git("mv", "kernels/bf16_draft.yaml", BF16)
    repo.git("commit", "-q", "-am", "promote draft")
    assert repo.git("diff", "--name-status", "-M", "ref", "HEAD").startswith("R")
    return "ref"


def unicode_path(repo: Any) -> str:
    """A manifest whose path has a space and non-ASCII letters (git quotes such paths)."""
    new = "kernels/bf16 tablé ü.yaml"
    repo.git("mv", BF16, new)
    reg = repo.registry.read_text()
    repo.registry.write_text(
        reg.replace(
            f"manifest: {BF16}",
            f'manifest: "{new}"\n    source_label: tuning_table_sm100_bf16.yaml',
        )
    )
    repo.git("commit", "-q", "-am", "unicode name")
    bump_bf16(repo, new)
    return "HEAD"


SCENARIOS: list[tuple[str, Callable[[Any], str], str, str]] = [
    ("committed-after-ref", committed, "sm100-bf16", BF16_CHANGE),
    ("several-commits-after-ref", two_commits_back, "sm100-bf16", BF16_CHANGE),
    ("staged", staged, "sm100-bf16", BF16_CHANGE),
    ("unstaged", unstaged, "sm100-bf16", BF16_CHANGE),
    ("untracked-snippet", untracked_snippet, "sm100-ranged", RANGED_CHANGE),
    ("renamed-into-place", renamed_into_place, "sm100-bf16", BF16_CHANGE),
    ("unicode-path", unicode_path, "sm100-bf16", BF16_CHANGE),
]


@pytest.fixture
def repo(codegen_repo: Any) -> Any:
    """The layout with small-py made stale and committed: the decoy no change touches."""
    codegen_repo.edit("python/tuning_small.yaml", "M: 64", "M: 128")
    codegen_repo.git("commit", "-q", "-am", "small-py stale on purpose")
    return codegen_repo


def assert_decoy_still_stale(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--check", "--table", "small-py"], capsys)
    assert code == 1
    assert out.startswith(f"diff --git a/{PY} b/{PY}\n")


@pytest.mark.parametrize(
    ("prepare", "table", "change"),
    [s[1:] for s in SCENARIOS],
    ids=[s[0] for s in SCENARIOS],
)
def test_check_since_reports_only_affected_tables(
    repo: Any,
    capsys: pytest.CaptureFixture[str],
    prepare: Callable[[Any], str],
    table: str,
    change: str,
) -> None:
    ref = prepare(repo)
    before = repo.snapshot()
    code, out, err = run(["--check", "--since", ref], capsys)
    assert (code, err) == (1, "")
    assert out.startswith(DIFF_HEAD)
    assert change in out
    assert out.endswith(ONE_STALE)
    assert PY not in out
    assert repo.snapshot() == before
    assert_decoy_still_stale(capsys)


@pytest.mark.parametrize(
    ("prepare", "table", "change"),
    [s[1:] for s in SCENARIOS],
    ids=[s[0] for s in SCENARIOS],
)
def test_regenerate_since_rewrites_only_affected_tables(
    repo: Any,
    capsys: pytest.CaptureFixture[str],
    prepare: Callable[[Any], str],
    table: str,
    change: str,
) -> None:
    ref = prepare(repo)
    before = repo.snapshot()
    assert run(["--since", ref], capsys) == (
        0,
        f"regenerated {MOJO} (tables: {table})\n",
        "",
    )
    after = repo.snapshot()
    assert {k for k in after if after[k] != before.get(k)} == {MOJO}
    assert run(["--check", "--table", table], capsys) == (0, "", "")
    assert_decoy_still_stale(capsys)
    # a second run finds nothing left to do among the changed files
    assert run(["--since", ref], capsys) == (0, "", "")


def test_nothing_registered_changed(
    repo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.git("tag", "ref")
    repo.path("docs/notes.txt").write_text("committed change\n")
    repo.git("commit", "-q", "-am", "notes")
    repo.path("docs/new.txt").write_text("untracked\n")
    repo.path("docs/staged.txt").write_text("staged\n")
    repo.git("add", "docs/staged.txt")
    before = repo.snapshot()
    assert run(["--check", "--since", "ref"], capsys) == (0, "", "")
    assert run(["--since", "ref"], capsys) == (0, "", "")
    assert repo.snapshot() == before
    assert_decoy_still_stale(capsys)


def test_since_head_with_clean_tree_is_a_no_op(
    repo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    before = repo.snapshot()
    assert run(["--since", "HEAD"], capsys) == (0, "", "")
    assert repo.snapshot() == before


def test_registry_changed_means_every_table(
    repo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.git("tag", "ref")
    repo.registry.write_text(repo.registry.read_text() + "# one more comment\n")
    code, out, err = run(["--check", "--since", "ref"], capsys)
    assert (code, err) == (1, "")
    assert out.startswith(f"diff --git a/{PY} b/{PY}\n")
    assert (
        "-    Config(m=64, fast=False" in out and "+    Config(m=128, fast=False" in out
    )
    assert out.endswith(ONE_STALE)
    assert run(["--since", "ref"], capsys) == (
        0,
        f"regenerated {PY} (tables: small-py)\n",
        "",
    )


def test_renamed_away_is_still_a_change(
    repo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """A registered manifest moved away: the table is selected and its error reported."""
    repo.git("mv", BF16, "kernels/moved.yaml")
    before = repo.snapshot()
    assert run(["--check", "--since", "HEAD"], capsys) == (
        2,
        "",
        f"{BF16}: error: no such file\n",
    )
    assert repo.snapshot() == before


def test_since_combined_with_table(
    repo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """--table narrows the tables --since selects: both conditions must hold."""
    bump_bf16(repo)
    assert run(["--check", "--since", "HEAD", "--table", "sm90-fp8"], capsys) == (
        0,
        "",
        "",
    )
    code, out, _ = run(["--check", "--since", "HEAD", "--table", "sm100-bf16"], capsys)
    assert code == 1 and BF16_CHANGE in out


def test_since_from_a_subfolder(
    repo: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The registry is found upwards; paths in the output are relative to the working directory."""
    bump_bf16(repo)
    monkeypatch.chdir(repo.path("kernels"))
    code, out, err = run(["--check", "--since", "HEAD"], capsys)
    assert (code, err) == (1, "")
    assert out.startswith(DIFF_HEAD) and out.endswith(ONE_STALE)
    assert run(["--since", "HEAD"], capsys) == (
        0,
        "regenerated tuning_configs.mojo (tables: sm100-bf16)\n",
        "",
    )


@pytest.mark.parametrize(
    "ref",
    [
        "nope",
        "HEAD~5",
        "0123456789abcdef0123456789abcdef01234567",
        "@{-1}",  # GitPython raised IndexError: a traceback once
        "HEAD:kernels",
        "--output=written-by-git",
        "",
    ],
)
def test_unknown_ref(repo: Any, capsys: pytest.CaptureFixture[str], ref: str) -> None:
    bump_bf16(repo)
    before = repo.snapshot()
    assert run(["--since", ref], capsys) == (
        2,
        "",
        f"{Path.cwd()}: error: --since: unknown revision '{ref}'\n",
    )
    assert repo.snapshot() == before


def test_since_in_a_repository_without_commits(
    git_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (git_repo / ".tuning-codegen.yaml").write_text("tables: []\n")
    assert run(["--since", "HEAD"], capsys) == (
        2,
        "",
        f"{git_repo}: error: --since: unknown revision 'HEAD'\n",
    )


def test_since_outside_a_git_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in [n for n in os.environ if n.startswith("GIT_")]:
        monkeypatch.delenv(name)
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / ".tuning-codegen.yaml").write_text("tables: []\n")
    monkeypatch.chdir(folder)
    assert run(["--config", ".tuning-codegen.yaml", "--since", "HEAD"], capsys) == (
        2,
        "",
        f"{folder}: error: --since needs a git repository\n",
    )
