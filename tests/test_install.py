"""The base install is the hook's, not the analyzer's: `pip install .` into an empty
virtual environment brings only what hooks/ needs, tuning-codegen works there, and
kprofile says in one line how to add the analysis extra."""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]
HOOK_PACKAGES = {"kprofile", "pyyaml", "click"}
MAX_PACKAGES = 3
MAX_BYTES = 25 * 2**20


def _tracked_copy(target: Path) -> Path:
    """The committed tree (no venvs, no build folders) copied to ``target``."""
    names = subprocess.run(
        ["git", "ls-files", "-z"], cwd=PROJECT, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, names):
        source = PROJECT / name.decode()
        if source.is_file():
            (target / name.decode()).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name.decode())
    return target


def _packages(python: Path) -> set[str]:
    listed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=freeze"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return {line.split("==")[0].lower() for line in listed.splitlines() if line}


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


@pytest.mark.slow
def test_base_install_is_light_and_runs_the_hook(tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    before, size_before = _packages(python), _size(env_dir)
    source = _tracked_copy(tmp_path / "src")
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", str(source)],
        check=True, capture_output=True,
    )  # fmt: skip
    added = _packages(python) - before
    assert added <= HOOK_PACKAGES and len(added) <= MAX_PACKAGES, added
    assert _size(env_dir) - size_before <= MAX_BYTES
    _assert_top_level_packages(python, tmp_path)

    fixture = source / "fixtures" / "codegen"
    done = subprocess.run(
        [str(env_dir / "bin" / "tuning-codegen"), "--config", ".tuning-codegen.yaml", "--check", "--list"],
        cwd=fixture, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert [line.split()[-1] for line in done.stdout.splitlines()] == ["fresh"] * 3

    result = source / "fixtures" / "results" / "run1" / "M8_N7168_K2048.pkl"
    done = subprocess.run(
        [str(env_dir / "bin" / "kprofile"), str(result)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("kprofile: error: the analyzer needs pandas")
    assert done.stderr.endswith(f"install it with: pip install '{source}[analysis]'\n")


def _assert_top_level_packages(python: Path, cwd: Path) -> None:
    """The distribution installs ``tuning_codegen`` and ``kprofile``, never a top-level
    ``hooks`` (a name other distributions and hook repositories ship)."""
    code = (
        "import importlib.util as u; "
        "print([u.find_spec(n) is not None for n in ('tuning_codegen', 'kprofile', 'hooks')])"
    )
    done = subprocess.run(
        [str(python), "-c", code], cwd=cwd, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[True, True, False]"


def test_the_hook_package_imports_no_analysis_module() -> None:
    """What `tuning-codegen --check` imports in a full environment: no pandas, numpy,
    scipy or matplotlib (and no GitPython, which the project no longer uses)."""
    code = (
        "import sys; from tuning_codegen.cli import main; "
        "main(['--config', 'fixtures/codegen/.tuning-codegen.yaml', '--check']); "
        "print(' '.join(sorted(m.split('.')[0] for m in sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=PROJECT, capture_output=True, text=True,
        check=True,
    )  # fmt: skip
    loaded = set(done.stdout.split())
    assert not loaded & {"pandas", "numpy", "scipy", "matplotlib", "rich", "git"}
