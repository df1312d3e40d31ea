"""The hook among the tools it lives beside, installed as users install it (real
pre-commit, ``repo:`` a clone of this project, ``rev:`` a commit): a formatter hook
after it, and merge commits."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from support import REG, SCRIPT, install_published, published_config, status_line

pytestmark = pytest.mark.slow  # pre-commit builds the published hook's environment

MOJO = "kernels/tuning_configs.mojo"
BF16 = "kernels/tuning_table_sm100_bf16.yaml"
SNIPPET = "kernels/tuning_sm100.mojo.snippet"
SMALL = "python/tuning_small.yaml"
PY = "python/dispatch.py"
REGENERATE = "regenerate tuning tables"
CHECK = "check tuning tables are fresh"
RUFF_FORMAT = {
    "id": "ruff-format",
    "name": "ruff format",
    "entry": "ruff format --quiet",
    "language": "system",
    "types": ["python"],
}
FORMATTED_TABLE = (
    "    language: python\n"
    '    format: [ruff, format, --quiet, --stdin-filename, "{path}", "-"]\n'
)


def test_codegen_then_ruff_format_then_the_check_converges(
    codegen_repo: Any, pre_commit_home: Path, published: tuple[Path, str]
) -> None:
    """Before, every commit attempt failed the same way, forever: ruff reindented the
    region (8 spaces to 4, single quotes to double), the check called it stale and
    regenerating put it back."""
    codegen_repo.edit(REG, "    language: python\n", FORMATTED_TABLE)
    codegen_repo.edit(REG, '    indent: "    "\n', "")
    codegen_repo.edit(SMALL, "EXTRA: '\"wide\"'", "EXTRA: \"'wide'\"")
    codegen_repo.commit_all("the Python table formatted by ruff, a stale region")
    config = published_config(
        published,
        [{"id": "tuning-codegen"}, {"id": "tuning-codegen-check"}],
        local=[RUFF_FORMAT],
    )
    hooked = install_published(codegen_repo, pre_commit_home, config)
    codegen_repo.edit(SMALL, "M: 64", "M: 128")
    codegen_repo.git("add", SMALL)
    done = hooked.commit("retune")
    assert done.returncode != 0, done.stdout
    assert status_line(done.stdout, REGENERATE) == "Failed"
    assert f"regenerated {PY} (tables: small-py)\n" in done.stdout
    text = codegen_repo.path(PY).read_text()
    assert '    Config(m=128, fast=False, extra="wide"),\n' in text  # ruff's own style
    codegen_repo.git("add", PY)
    done = hooked.commit("retune")
    assert done.returncode == 0, done.stdout
    for name in (REGENERATE, CHECK, "ruff format"):
        assert status_line(done.stdout, name) == "Passed"


def _branches_that_merge_cleanly_into_a_stale_region(repo: Any) -> None:
    """Branch ``snippet`` rewrites a line of every entry of the sm100 tables; branch
    ``entry`` appends an entry to the bf16 table. Each is fresh; git merges them
    without a conflict (the changes are lines apart), and the appended entry keeps
    the old snippet's line: a stale region."""
    repo.git("checkout", "-q", "-b", "entry")
    text = repo.path(BF16).read_text()
    repo.path(BF16).write_text(
        text + "- <<: *defaults\n  M: 8192\n  N: 8192\n  K: 8192\n  MMA_M: 256\n"
        "  MMA_N: 256\n  CLUSTER_M: 2\n"
    )
    assert _regenerate(repo) == 0
    repo.commit_all("a new bf16 entry")
    repo.git("checkout", "-q", "main")
    repo.edit(SNIPPET, "# [@M]x[@N]x[@K], swap_ab", "# shape [@M]x[@N]x[@K], swap_ab")
    assert _regenerate(repo) == 0
    repo.commit_all("the snippet's comment line")


def _regenerate(repo: Any) -> int:
    return subprocess.run([SCRIPT], cwd=repo.root, capture_output=True).returncode


def test_a_clean_merge_into_a_stale_region_is_stopped(
    codegen_repo: Any, pre_commit_home: Path, published: tuple[Path, str]
) -> None:
    """The documented config installs the pre-merge-commit hook type too."""
    config = published_config(
        published,
        [{"id": "tuning-codegen-check"}],
        default_install_hook_types=["pre-commit", "pre-merge-commit"],
    )
    hooked = install_published(codegen_repo, pre_commit_home, config)
    _branches_that_merge_cleanly_into_a_stale_region(codegen_repo)
    start = hooked.head()
    done = hooked.run("git", "merge", "--no-ff", "-m", "merge", "entry")
    assert done.returncode != 0, done.stdout
    assert status_line(done.stdout, CHECK) == "Failed"
    assert "1 stale region in 1 file" in done.stdout
    assert hooked.head() == start  # the merge commit was not made
    assert "+            # shape 8192x8192x8192, swap_ab=False\n" in done.stdout


def test_without_the_merge_hook_type_the_stale_merge_lands(
    codegen_repo: Any, pre_commit_home: Path, published: tuple[Path, str]
) -> None:
    """What ``pre-commit install`` alone does (the pre-commit hook type only): why
    the documented config names pre-merge-commit."""
    config = published_config(published, [{"id": "tuning-codegen-check"}])
    hooked = install_published(codegen_repo, pre_commit_home, config)
    _branches_that_merge_cleanly_into_a_stale_region(codegen_repo)
    done = hooked.run("git", "merge", "--no-ff", "-m", "merge", "entry")
    assert done.returncode == 0, done.stdout
    done = hooked.run("tuning-codegen", "--check")
    assert done.returncode == 1 and "1 stale region in 1 file" in done.stdout
