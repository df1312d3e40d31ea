"""A ``format:`` program is found on PATH's absolute entries outside the repository
only: an empty entry, ``.``, a relative entry or a folder of the repository would
run a program a pull request ships, on every ``--check`` in CI. git itself is never
taken from the current folder either. Each fake program writes a marker file when
it runs: the marker must stay absent."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support import REG, SCRIPT

PROGRAM = "mojofmt-x"
FAKE = '#!/bin/sh\ntouch "$MARKER"\nexec cat\n'  # a formatter that changes nothing
FORMAT = f'    language: python\n    format: [{PROGRAM}, "-"]\n'


def put_program(folder: Path, name: str = PROGRAM) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(FAKE)
    (folder / name).chmod(0o755)


def codegen(repo: Any, path: str, marker: Path, *args: str) -> Any:
    env = {**os.environ, "PATH": path, "MARKER": str(marker)}
    return subprocess.run(
        [SCRIPT, *args], cwd=repo.root, env=env, capture_output=True, text=True,
        check=False,
    )  # fmt: skip


def refusal(shown: str, entry: str) -> str:
    return (
        f"python/dispatch.py: error: the formatter '{PROGRAM}' is not installed (PATH "
        f"finds it only at '{shown}' in the repository (through the entry "
        f"'{entry}'), and nothing in the repository is run); it is the 'format' of "
        f"table 'small-py' in {REG}\n"
    )


@pytest.mark.parametrize(
    ("where", "entry", "shown"),
    [
        (".", ".", PROGRAM),
        (".", "", PROGRAM),
        ("bin", "bin", f"bin/{PROGRAM}"),
        ("bin", "{root}/bin", f"bin/{PROGRAM}"),
        ("bin", "{outside_link}", f"bin/{PROGRAM}"),
    ],
    ids=["dot", "empty", "relative", "inside", "link-into-the-repository"],
)
def test_a_formatter_the_repository_ships_never_runs(
    codegen_repo: Any, tmp_path: Path, where: str, entry: str, shown: str
) -> None:
    codegen_repo.edit(REG, "    language: python\n", FORMAT)
    put_program(codegen_repo.root / where)
    os.symlink(codegen_repo.root / "bin", tmp_path / "linked-bin")
    entry = entry.format(root=codegen_repo.root, outside_link=tmp_path / "linked-bin")
    marker = tmp_path / "ran"
    before = codegen_repo.snapshot()
    path = os.pathsep.join([entry, os.environ["PATH"]])
    for args in (["--check"], []):
        done = codegen(codegen_repo, path, marker, *args)
        assert (done.returncode, done.stdout) == (2, ""), done.stderr
        assert done.stderr == refusal(shown, entry)
    assert not marker.exists()
    assert codegen_repo.snapshot() == before


def test_a_relative_entry_is_never_searched_even_leading_outside(
    codegen_repo: Any, tmp_path: Path
) -> None:
    """``../tools`` names a folder outside the repository only from its root: a
    relative entry means whatever folder the tool is run in."""
    codegen_repo.edit(REG, "    language: python\n", FORMAT)
    put_program(tmp_path / "tools")
    marker = tmp_path / "ran"
    done = codegen(codegen_repo, f"../tools:{os.environ['PATH']}", marker, "--check")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"python/dispatch.py: error: the formatter '{PROGRAM}' is not installed (PATH "
        "finds it only through the relative entry '../tools', which names whatever "
        "folder the tool runs in, and is not searched); it is the 'format' of table "
        f"'small-py' in {REG}\n"
    )
    assert not marker.exists()


def test_a_formatter_installed_outside_the_repository_runs(
    codegen_repo: Any, tmp_path: Path
) -> None:
    """The control: the same program in a folder of its own, named absolutely."""
    codegen_repo.edit(REG, "    language: python\n", FORMAT)
    put_program(tmp_path / "tools")
    marker = tmp_path / "ran"
    path = os.pathsep.join(["", ".", str(tmp_path / "tools"), os.environ["PATH"]])
    done = codegen(codegen_repo, path, marker, "--check")
    assert (done.returncode, done.stderr) == (0, "")
    assert marker.exists()


def test_a_formatter_found_nowhere_is_one_line(
    codegen_repo: Any, tmp_path: Path
) -> None:
    codegen_repo.edit(REG, "    language: python\n", FORMAT)
    done = codegen(codegen_repo, os.environ["PATH"], tmp_path / "ran", "--check")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"python/dispatch.py: error: the formatter '{PROGRAM}' is not installed (not "
        f"found on PATH); it is the 'format' of table 'small-py' in {REG}\n"
    )


def test_git_is_never_taken_from_the_current_folder(
    codegen_repo: Any, tmp_path: Path
) -> None:
    """A ``git`` the repository ships, ahead of the real one through ``.``: the
    hook and --since still ask the real git."""
    put_program(codegen_repo.root, "git")
    codegen_repo.git("add", "git")
    marker = tmp_path / "ran"
    path = os.pathsep.join([".", "", os.environ["PATH"]])
    for args in (["--hook", "--check"], ["--check", "--since", "HEAD"]):
        done = codegen(codegen_repo, path, marker, *args)
        assert (done.returncode, done.stderr) == (0, ""), args
    assert not marker.exists()
