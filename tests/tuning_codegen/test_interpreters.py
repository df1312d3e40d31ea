"""The hook (the base install) runs on Python 3.10 to 3.13, and both
commands answer ``--version``.

For each interpreter the machine has under ``~/.pyenv/versions``: a virtual
environment with the project's base install (built once per session), ``tuning-codegen
--check`` on the fixture registry, and a real ``git commit`` through real pre-commit
with the hook running from that environment. And pre-commit itself building the
hook's environment with ``language_version: python3.10``, as a pre-commit running on
Ubuntu 22.04's Python would (``requires-python`` used to refuse it).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import BIN, PROJECT, env_for, local_hook, project_hooks, status_line

pytestmark = pytest.mark.slow  # builds the hook under every Python here

PYENV = Path.home() / ".pyenv" / "versions"
WANTED = ("3.10", "3.11", "3.12", "3.13")
REGENERATE = project_hooks()["tuning-codegen"]["name"]
BF16 = "kernels/tuning_table_sm100_bf16.yaml"
MOJO = "kernels/tuning_configs.mojo"
FIXTURE = PROJECT / "fixtures" / "codegen"


def interpreters() -> dict[str, Path]:
    """``3.10`` -> its python, for each wanted minor version found."""
    found = {}
    for minor in WANTED:
        for folder in sorted(PYENV.glob(f"{minor}.*")):
            python = folder / "bin" / f"python{minor}"
            if python.exists():
                found[minor] = python
    return found


def tracked_copy(target: Path) -> Path:
    """The project's tracked files as they are now, in ``target``."""
    names = subprocess.run(
        ["git", "ls-files", "-z"], cwd=PROJECT, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, names):
        source = PROJECT / os.fsdecode(name)
        if source.is_file():
            (target / os.fsdecode(name)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / os.fsdecode(name))
    return target


@pytest.fixture(scope="session")
def project_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tracked_copy(tmp_path_factory.mktemp("project"))


@pytest.fixture(scope="session")
def hook_environments(
    tmp_path_factory: pytest.TempPathFactory, project_copy: Path
) -> dict[str, Path]:
    """One virtual environment per interpreter, with the base install (no extras)."""
    built = {}
    for minor, python in interpreters().items():
        folder = tmp_path_factory.mktemp(f"venv-{minor}")
        subprocess.run([str(python), "-m", "venv", str(folder)], check=True)
        subprocess.run(
            [str(folder / "bin" / "python"), "-m", "pip", "install", "-q",
             str(project_copy)],
            check=True, capture_output=True,
        )  # fmt: skip
        built[minor] = folder
    return built


def config_for(script: Path) -> str:
    hook = local_hook("tuning-codegen")
    hook["entry"] = f"{script} --hook --"
    return yaml.safe_dump({"repos": [{"repo": "local", "hooks": [hook]}]})


def commit_through_pre_commit(repo: Any, config: str, env: dict[str, str]) -> None:
    """A stale table committed: the hook rewrites the target, the second try passes."""
    repo.path(".pre-commit-config.yaml").write_text(config)
    repo.commit_all("tables and hook")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            list(args), cwd=repo.root, env=env, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )  # fmt: skip

    assert run(sys.executable, "-m", "pre_commit", "install").returncode == 0
    repo.edit(BF16, "N: 2560", "N: 2688")
    repo.git("add", BF16)
    done = run("git", "commit", "-m", "retune")
    assert status_line(done.stdout, REGENERATE) == "Failed", done.stdout
    assert f"regenerated {MOJO} (tables: sm100-bf16)\n" in done.stdout
    repo.git("add", MOJO)
    done = run("git", "commit", "-m", "retune")
    assert done.returncode == 0, done.stdout


NEEDS_BOTH = pytest.mark.skipif(
    not {"3.10", "3.13"} <= set(interpreters()),
    reason="no Python 3.10 and 3.13 under ~/.pyenv/versions on this machine",
)


@pytest.mark.slow
@NEEDS_BOTH
def test_the_hook_runs_under_every_python_here(
    hook_environments: dict[str, Path],
    git_repo: Path,
    tmp_path: Path,
    pre_commit_home: Path,
    new_codegen_repo: Callable[[Path], Any],
) -> None:
    ran = []
    for minor, folder in hook_environments.items():
        script = folder / "bin" / "tuning-codegen"
        done = subprocess.run(
            [str(script), "--config", ".tuning-codegen.yaml", "--check", "--list"],
            cwd=FIXTURE, capture_output=True, text=True,
        )  # fmt: skip
        assert done.returncode == 0, (minor, done.stderr)
        assert [line.split()[-1] for line in done.stdout.splitlines()] == ["fresh"] * 3
        python = folder / "bin" / "python"
        version = subprocess.run(
            [str(python), "-c", "import sys; print(sys.version.split()[0])"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        assert version.startswith(minor + ".")
        repo = new_codegen_repo(tmp_path / f"repo-{minor}")
        commit_through_pre_commit(repo, config_for(script), env_for(pre_commit_home))
        ran.append(version)
    print(f"\nthe hook ran under Python {', '.join(ran)}", file=sys.__stderr__)
    assert len(ran) == len(interpreters()) and {"3.10", "3.13"} <= set(
        hook_environments
    ), ran


@pytest.mark.slow
@NEEDS_BOTH
def test_pre_commit_builds_the_hook_with_python_3_10(
    project_copy: Path,
    git_repo: Path,
    tmp_path: Path,
    new_codegen_repo: Callable[[Path], Any],
) -> None:
    python = interpreters()["3.10"]
    hook_repo = tmp_path / "hook-repo"
    shutil.copytree(project_copy, hook_repo)
    for args in (["init", "-q"], ["add", "--all"],
                 ["-c", "user.name=T", "-c", "user.email=t@example.invalid",
                  "commit", "-q", "-m", "the hooks"]):  # fmt: skip
        subprocess.run(["git", *args], cwd=hook_repo, check=True, capture_output=True)
    rev = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=hook_repo, capture_output=True, text=True
    ).stdout.strip()
    hook = {"id": "tuning-codegen", "language_version": "python3.10"}
    config = {"repos": [{"repo": str(hook_repo), "rev": rev, "hooks": [hook]}]}
    home = tmp_path / "pre-commit-home"
    env = env_for(home)
    env["PATH"] = f"{python.parent}{os.pathsep}{env['PATH']}"
    repo = new_codegen_repo(tmp_path / "repo")
    commit_through_pre_commit(repo, yaml.safe_dump(config), env)
    (built,) = home.glob("repo*/py_env-python3.10/bin/python")
    done = subprocess.run([str(built), "--version"], capture_output=True, text=True)
    assert done.stdout.startswith("Python 3.10."), done.stdout


@pytest.mark.parametrize("script", ["tuning-codegen", "kprofile"])
def test_both_commands_answer_version(script: str) -> None:
    done = subprocess.run(
        [str(BIN / script), "--version"], capture_output=True, text=True, timeout=120
    )
    version = importlib.metadata.version("kprofile")
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        f"{script}, version {version}\n",
        "",
    )


NEEDS_3_10 = pytest.mark.skipif(
    not {"3.10", "3.11"} <= set(interpreters()),
    reason="no Python 3.10 and 3.11 under ~/.pyenv/versions on this machine",
)


def _would_install(python: Path, requirement: str) -> set[str]:
    """The distributions pip would install for ``requirement`` under ``python``, asked
    with ``--dry-run --report`` (nothing is installed)."""
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "--dry-run", "--quiet", "--ignore-installed",
         "--report", "-", requirement],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    return {item["metadata"]["name"].lower() for item in report["install"]}


@NEEDS_3_10
def test_the_analysis_extra_installs_nothing_where_the_analyzer_cannot_run(
    project_copy: Path,
) -> None:
    """On Python 3.10 (the hook's oldest) ``pip install '.[analysis]'`` adds nothing
    kprofile would then refuse; on 3.11 the same command brings the stack."""
    stack = {"pandas", "numpy", "scipy", "rich", "matplotlib"}
    found = interpreters()
    on_3_10 = _would_install(found["3.10"], f"{project_copy}[analysis]")
    on_3_11 = _would_install(found["3.11"], f"{project_copy}[analysis]")
    assert on_3_10 & stack == set(), on_3_10
    assert stack <= on_3_11, on_3_11
