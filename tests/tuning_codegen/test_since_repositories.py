"""``--since`` asks the repository that holds the registry, and every git
failure is one clean line with exit 2 (never a GitPython traceback).

Real repositories: a shallow clone missing REF, a bare repository, a registry named
with ``--config`` from inside another repository, a registry inside a submodule, and
a PATH without git.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support import SCRIPT
from support import run_codegen as run

BF16 = "kernels/tuning_table_sm100_bf16.yaml"
MOJO = "kernels/tuning_configs.mojo"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "protocol.file.allow=always", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def test_ref_missing_from_a_shallow_clone(
    codegen_repo: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for n in range(3):
        codegen_repo.path("docs/notes.txt").write_text(f"notes {n}\n")
        codegen_repo.commit_all(f"notes {n}")
    clone = tmp_path / "shallow"
    git(
        tmp_path,
        "clone",
        "-q",
        "--depth",
        "1",
        f"file://{codegen_repo.root}",
        str(clone),
    )
    monkeypatch.chdir(clone)
    assert run(["--check", "--since", "HEAD~2"], capsys) == (
        2,
        "",
        f"{clone}: error: --since: unknown revision 'HEAD~2' (this is a shallow "
        "clone: fetch the revision or deepen it)\n",
    )
    assert run(["--check", "--since", "HEAD"], capsys) == (0, "", "")


def test_registry_in_a_bare_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [n for n in os.environ if n.startswith("GIT_")]:
        monkeypatch.delenv(name)
    bare = tmp_path / "tables.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    (bare / ".tuning-codegen.yaml").write_text("tables: []\n")
    monkeypatch.chdir(bare)
    assert run(["--config", ".tuning-codegen.yaml", "--since", "HEAD"], capsys) == (
        2,
        "",
        f"{bare}: error: --since needs a working tree, not a bare one\n",
    )


def test_config_from_another_repository_asks_the_registry_s_repository(
    codegen_repo: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The working directory is another repository with no change at all."""
    codegen_repo.edit(BF16, "N: 2560", "N: 2688")
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    monkeypatch.chdir(other)
    registry = str(codegen_repo.registry)
    code, out, err = run(["--config", registry, "--check", "--since", "HEAD"], capsys)
    assert (code, err) == (1, "")
    assert out.startswith(f"diff --git a/{MOJO} b/{MOJO}\n")
    assert "+            N=2688,\n" in out


def test_registry_inside_a_submodule(
    codegen_repo: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The superproject has no change; the submodule's manifest changed."""
    upper = tmp_path / "upper"
    upper.mkdir()
    git(upper, "init", "-q")
    git(upper, "-c", "user.name=T", "-c", "user.email=t@example.invalid",
        "commit", "-q", "--allow-empty", "-m", "start")  # fmt: skip
    git(upper, "submodule", "add", "-q", f"file://{codegen_repo.root}", "tables")
    git(upper, "-c", "user.name=T", "-c", "user.email=t@example.invalid",
        "commit", "-q", "-m", "tables")  # fmt: skip
    sub = upper / "tables"
    manifest = sub / BF16
    manifest.write_text(manifest.read_text().replace("N: 2560", "N: 2688"))
    monkeypatch.chdir(upper)
    args = ["--config", "tables/.tuning-codegen.yaml", "--check", "--since", "HEAD"]
    code, out, err = run(args, capsys)
    assert (code, err) == (1, "")
    assert "+            N=2688,\n" in out
    monkeypatch.chdir(sub)  # found upwards from inside: stops at the submodule root
    assert run(["--check", "--since", "HEAD"], capsys)[0] == 1


def test_no_git_on_path(codegen_repo: Any, tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "GIT_PYTHON_REFRESH"}
    env["PATH"] = str(empty)
    assert shutil.which("git", path=str(empty)) is None
    done = subprocess.run(
        [SCRIPT, "--check", "--since", "HEAD"],
        cwd=codegen_repo.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"{codegen_repo.root}: error: --since: git is not installed\n"
