"""A hook's ``args:`` as pre-commit users write them, through real pre-commit installed
from a clone of this project with ``repo:`` and ``rev:`` (never ``repo: local``).

pre-commit runs ``entry + args + file names``: the args must stay options, and the
file names (of files that exist, each once) must never become options, whatever they
are called. One environment is built per session (``published`` in conftest).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import REG, install_published, published_config, status_line

pytestmark = pytest.mark.slow  # pre-commit builds the published hook's environment

BF16 = "kernels/tuning_table_sm100_bf16.yaml"
MOJO = "kernels/tuning_configs.mojo"
REGENERATE = "regenerate tuning tables"
CHECK = "check tuning tables are fresh"


def hooked_with(
    codegen_repo: Any,
    pre_commit_home: Path,
    published: tuple[Path, str],
    hook: str,
    args: list[str],
) -> Any:
    config = published_config(published, [{"id": hook, "args": args}])
    return install_published(codegen_repo, pre_commit_home, config)


def stage_stale_bf16(repo: Any) -> None:
    repo.edit(BF16, "N: 2560", "N: 2688")
    repo.git("add", BF16)


def test_check_in_args_checks_and_writes_nothing(
    codegen_repo: Any, pre_commit_home: Path, published: tuple[Path, str]
) -> None:
    """Before, args: [--check] landed after the entry's '--' as a file name, and the
    hook rewrote the target: the opposite of what was asked."""
    hooked = hooked_with(
        codegen_repo, pre_commit_home, published, "tuning-codegen", ["--check"]
    )
    stage_stale_bf16(codegen_repo)
    before = codegen_repo.snapshot()
    done = hooked.commit("retune")
    assert done.returncode != 0, done.stdout
    assert status_line(done.stdout, REGENERATE) == "Failed"
    assert f"--- a/{MOJO}\n+++ b/{MOJO}\n" in done.stdout
    assert "-            N=2560,\n+            N=2688,\n" in done.stdout
    assert "1 stale region in 1 file; run tuning-codegen to regenerate\n" in done.stdout
    assert "regenerated" not in done.stdout
    assert codegen_repo.snapshot() == before


def test_format_github_in_args_annotates(
    codegen_repo: Any, pre_commit_home: Path, published: tuple[Path, str]
) -> None:
    hooked = hooked_with(
        codegen_repo,
        pre_commit_home,
        published,
        "tuning-codegen-check",
        ["--format", "github"],
    )
    stage_stale_bf16(codegen_repo)
    done = hooked.commit("retune")
    assert done.returncode != 0, done.stdout
    lines = codegen_repo.mojo_target.read_text().splitlines()
    line = next(i for i, text in enumerate(lines) if "2560" in text)  # the first
    assert (
        f"::error file={MOJO},line={line + 1},title=stale tuning table::the region of "
        "table 'sm100-bf16' is stale"
    ) in done.stdout


def test_config_in_args_names_the_registry(
    codegen_repo: Any, pre_commit_home: Path, published: tuple[Path, str]
) -> None:
    """A registry kept elsewhere than the root, named once in the config."""
    text = codegen_repo.registry.read_text()
    codegen_repo.path("tools").mkdir()
    codegen_repo.path("tools/tables.yaml").write_text(
        text.replace(": kernels/", ": ../kernels/").replace(": python/", ": ../python/")
    )
    codegen_repo.git("rm", "-q", REG)
    codegen_repo.commit_all("registry in tools/")
    hooked = hooked_with(
        codegen_repo,
        pre_commit_home,
        published,
        "tuning-codegen",
        ["--config", "tools/tables.yaml"],
    )
    stage_stale_bf16(codegen_repo)
    done = hooked.commit("retune")
    assert done.returncode != 0, done.stdout
    assert f"regenerated {MOJO} (tables: sm100-bf16)\n" in done.stdout
    assert "            N=2688,\n" in codegen_repo.mojo_target.read_text()
    codegen_repo.git("add", MOJO)
    done = hooked.commit("retune")
    assert done.returncode == 0, done.stdout


def test_quiet_in_args_says_one_line(
    codegen_repo: Any, pre_commit_home: Path, published: tuple[Path, str]
) -> None:
    hooked = hooked_with(
        codegen_repo, pre_commit_home, published, "tuning-codegen", ["-q"]
    )
    stage_stale_bf16(codegen_repo)
    done = hooked.commit("retune")
    assert done.returncode != 0, done.stdout
    assert "regenerated" not in done.stdout
    assert f"1 stale region in the commit; git add {MOJO} and commit again\n" in (
        done.stdout
    )
    assert "            N=2688,\n" in codegen_repo.mojo_target.read_text()


@pytest.mark.parametrize(
    ("unknown", "message"),
    [
        ("--chek", "No such option '--chek'. (Did you mean one of: '--check', "),
        ("-x", "No such option '-x'."),
        ("--format=yaml", "Invalid value for '--format': 'yaml' is not one of"),
    ],
)
def test_an_unknown_option_in_args_fails_naming_it(
    codegen_repo: Any,
    pre_commit_home: Path,
    published: tuple[Path, str],
    unknown: str,
    message: str,
) -> None:
    hooked = hooked_with(
        codegen_repo, pre_commit_home, published, "tuning-codegen", [unknown]
    )
    codegen_repo.path("docs/notes.txt").write_text("notes\n")
    codegen_repo.git("add", "docs/notes.txt")
    done = hooked.commit("notes")
    assert done.returncode != 0, done.stdout
    assert "- exit code: 2" in done.stdout
    assert f"\ntuning-codegen: error: {message}" in done.stdout


DASHED = ("-h", "--help", "--check", "--format", "-q")


@pytest.mark.parametrize("args", [[], ["--check"], ["-q", "--format", "text"]])
def test_staged_files_named_like_options_stay_file_names(
    codegen_repo: Any,
    pre_commit_home: Path,
    published: tuple[Path, str],
    args: list[str],
) -> None:
    """A file named -h never prints the help (the commit would pass unjudged), one
    named --check never turns regenerating into checking, and the user's own
    --check still counts though a file has its name."""
    hooked = hooked_with(
        codegen_repo, pre_commit_home, published, "tuning-codegen", args
    )
    for name in DASHED:
        codegen_repo.path(name).write_text(f"a file named {name}\n")
    codegen_repo.git("add", "--", *DASHED)
    stage_stale_bf16(codegen_repo)
    done = hooked.commit("dashed names and a stale table")
    assert done.returncode != 0, done.stdout
    assert "Usage:" not in done.stdout and "No such option" not in done.stdout
    checking = "--check" in args
    target = codegen_repo.mojo_target.read_text()
    assert ("            N=2688,\n" in target) is not checking
    if checking:
        assert "1 stale region in 1 file; run tuning-codegen" in done.stdout
    elif "-q" not in args:
        assert f"regenerated {MOJO} (tables: sm100-bf16)\n" in done.stdout
