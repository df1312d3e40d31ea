"""Shared fixtures for the tests that use real git (and real pre-commit).

``git_repo``: an empty repository in ``tmp_path`` with every ``GIT_*`` variable of the
environment removed, so a test run from inside a hook of the outer repository can never
read or write that repository.

``codegen_repo``: ``git_repo`` laid out with a registry of four tables (three Mojo tables
sharing ``kernels/tuning_configs.mojo``, copied from ``fixtures/codegen/``, and one Python
table with its own target), every region fresh, everything committed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from support import publish

PROJECT = Path(__file__).resolve().parents[2]
FIXTURES = PROJECT / "fixtures" / "codegen"

MOJO_FILES = (
    "tuning_configs.mojo",
    "tuning_sm100.mojo.snippet",
    "tuning_ranged.mojo.snippet",
    "tuning_sm90.mojo.snippet",
    "tuning_table_sm100_bf16.yaml",
    "tuning_table_sm100_ranged.yaml",
    "tuning_table_sm90_fp8.yaml",
)

REGISTRY = """\
# Four tables: three share kernels/tuning_configs.mojo, one has its own target.
tables:
  - name: sm100-bf16
    manifest: kernels/tuning_table_sm100_bf16.yaml
    snippet: kernels/tuning_sm100.mojo.snippet
    target: kernels/tuning_configs.mojo
    begin_marker: BEGIN-TUNING-LIST-SM100-BF16
    end_marker: END-TUNING-LIST-SM100-BF16
  - name: sm100-ranged
    manifest: kernels/tuning_table_sm100_ranged.yaml
    snippet: kernels/tuning_sm100.mojo.snippet
    snippet_variants: {ranged: kernels/tuning_ranged.mojo.snippet}
    target: kernels/tuning_configs.mojo
    begin_marker: BEGIN-TUNING-LIST-SM100-RANGED
    end_marker: END-TUNING-LIST-SM100-RANGED
  - name: sm90-fp8
    manifest: kernels/tuning_table_sm90_fp8.yaml
    snippet: kernels/tuning_sm90.mojo.snippet
    target: kernels/tuning_configs.mojo
    begin_marker: BEGIN-TUNING-LIST-SM90-FP8
    end_marker: END-TUNING-LIST-SM90-FP8
  - name: small-py
    manifest: python/tuning_small.yaml
    snippet: python/small.py.snippet
    target: python/dispatch.py
    begin_marker: BEGIN-SMALL
    end_marker: END-SMALL
    indent: "    "
    language: python
"""

SMALL_MANIFEST = """\
params:
- M: 1
  FAST: true
  EXTRA: null
- M: 64
  FAST: false
  EXTRA: '"wide"'
"""

SMALL_SNIPPET = "Config(m=[@M], fast=[@FAST], extra=[@EXTRA])\n"

# Written out by hand: what the Python table renders to.
SMALL_TARGET = """\
CONFIGS = [
    # BEGIN-SMALL
    # Automatically generated from [tuning_small.yaml]
    # index: [0]
    Config(m=1, fast=True, extra=None),
    # Automatically generated from [tuning_small.yaml]
    # index: [1]
    Config(m=64, fast=False, extra="wide"),
    # END-SMALL
]
"""

OTHER_FILE = "docs/notes.txt"


def clean_git_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Drop every GIT_* variable (GIT_DIR, GIT_INDEX_FILE, ... leak in from hooks)."""
    for name in list(os.environ):
        if name.startswith("GIT_"):
            monkeypatch.delenv(name)


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    )
    return done.stdout


def git_init(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Test User")
    git(path, "config", "user.email", "test@example.invalid")
    git(path, "config", "commit.gpgsign", "false")
    git(path, "config", "core.autocrlf", "false")


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (outside .git) with its bytes."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


@dataclass(frozen=True)
class CodegenRepo:
    root: Path

    @property
    def registry(self) -> Path:
        return self.root / ".tuning-codegen.yaml"

    @property
    def mojo_target(self) -> Path:
        return self.root / "kernels" / "tuning_configs.mojo"

    @property
    def py_target(self) -> Path:
        return self.root / "python" / "dispatch.py"

    def path(self, rel: str) -> Path:
        return self.root / rel

    def git(self, *args: str) -> str:
        return git(self.root, *args)

    def commit_all(self, message: str) -> None:
        self.git("add", "--all")
        self.git("commit", "-q", "--no-verify", "-m", message)

    def edit(self, rel: str, old: str, new: str) -> None:
        """Replace ``old`` (which must occur exactly once) in a file."""
        path = self.root / rel
        text = path.read_bytes().decode("utf-8")
        assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {rel}"
        path.write_bytes(text.replace(old, new).encode("utf-8"))

    def snapshot(self) -> dict[str, bytes]:
        return snapshot(self.root)


def lay_out(root: Path) -> CodegenRepo:
    """Write the four-table layout into ``root`` (no git operations)."""
    (root / "kernels").mkdir(parents=True, exist_ok=True)
    for name in MOJO_FILES:
        shutil.copyfile(FIXTURES / name, root / "kernels" / name)
    (root / "python").mkdir(exist_ok=True)
    (root / "python" / "tuning_small.yaml").write_text(SMALL_MANIFEST)
    (root / "python" / "small.py.snippet").write_text(SMALL_SNIPPET)
    (root / "python" / "dispatch.py").write_text(SMALL_TARGET)
    (root / "docs").mkdir(exist_ok=True)
    (root / OTHER_FILE).write_text("Notes that no table reads.\n")
    (root / ".tuning-codegen.yaml").write_text(REGISTRY)
    return CodegenRepo(root)


@pytest.fixture
def git_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    clean_git_env(monkeypatch)
    repo = tmp_path / "repo"
    git_init(repo)
    monkeypatch.chdir(repo)
    yield repo


@pytest.fixture
def codegen_repo(git_repo: Path) -> CodegenRepo:
    repo = lay_out(git_repo)
    repo.commit_all("tables")
    return repo


@pytest.fixture(scope="session")
def new_codegen_repo() -> Callable[[Path], CodegenRepo]:
    """``git init`` plus the layout, nothing committed: for session-scoped fixtures, which
    cannot use ``git_repo``. The caller removes GIT_* variables first."""

    def make(root: Path) -> CodegenRepo:
        git_init(root)
        return lay_out(root)

    return make


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """PRE_COMMIT_HOME for every pre-commit run: the user's cache stays untouched."""
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture(scope="session")
def published(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """This project as a user's ``repo:`` and ``rev:`` name it: a clone of its files
    with one commit. pre-commit builds the hook's environment from it once per
    session (``pre_commit_home`` keeps it)."""
    return publish(tmp_path_factory.mktemp("published"))
