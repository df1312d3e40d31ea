"""The formatter's configuration is an input of every table that uses ``format:``:
a commit that changes only ``.clang-format``, ``ruff.toml`` or a ``pyproject.toml``
changes the regions, and the hook and ``--since`` look at those tables again (before,
both passed while ``--check`` failed). The files are the ones each formatter looks
for (``formatinputs``), checked here against the real ``ruff`` and ``clang-format``,
and by name for the rest."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from support import BIN, REG, run_codegen

from tuning_codegen.cli import main
from tuning_codegen.formatinputs import format_inputs

REGISTRY = """\
tables:
  - name: py
    manifest: m.yaml
    snippet: py.snippet
    target: src/t.py
    begin_marker: BEGIN-PY
    end_marker: END-PY
    language: python
    format: [ruff, format, --quiet, --stdin-filename, "{path}", "-"]
  - name: cc
    manifest: m.yaml
    snippet: cc.snippet
    target: src/t.cc
    begin_marker: BEGIN-CC
    end_marker: END-CC
    language: cpp
    format: [clang-format, "--assume-filename={path}"]
"""
FILES = {
    REG: REGISTRY,
    "m.yaml": "params:\n- {M: 128, N: 2112, NAME: wide}\n",
    "py.snippet": "Config(m=[@M], n=[@N], name='[@NAME]')\n",
    "cc.snippet": "Cfg{[@M], [@N]}\n",
    "src/t.py": "CONFIGS = [\n    # BEGIN-PY\n    # END-PY\n]\n",
    "src/t.cc": "const Cfg configs[] = {\n    // BEGIN-CC\n    // END-CC\n};\n",
    "docs/notes.txt": "Notes.\n",
}
# Each configuration, and a line it puts into the region of its table.
SINGLE_QUOTES = "+    Config(m=128, n=2112, name='wide'),\n"
CONFIGS = {
    "ruff.toml": ('[format]\nquote-style = "single"\n', SINGLE_QUOTES),
    "src/pyproject.toml": (
        '[tool.ruff.format]\nquote-style = "single"\n',
        SINGLE_QUOTES,
    ),
    ".clang-format": (
        "BasedOnStyle: LLVM\nCpp11BracedListStyle: false\n",
        "+  Cfg{ 128, 2112 },\n",
    ),
}


@pytest.fixture
def formatted(git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Both tables regenerated (fresh) and committed; ruff and clang-format on PATH."""
    monkeypatch.setenv("PATH", os.pathsep.join([str(BIN), os.environ["PATH"]]))
    for name, text in FILES.items():
        (git_repo / name).parent.mkdir(parents=True, exist_ok=True)
        (git_repo / name).write_text(text)
    assert main([]) == 0
    git(git_repo, "add", "--all")
    git(git_repo, "commit", "-q", "--no-verify", "-m", "formatted tables")
    return git_repo


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


@pytest.mark.parametrize("config", list(CONFIGS))
def test_a_commit_changing_only_the_formatters_configuration_is_judged(
    formatted: Path, capsys: pytest.CaptureFixture[str], config: str
) -> None:
    text, line = CONFIGS[config]
    (formatted / config).write_text(text)
    assert run_codegen(["--check", "--since", "HEAD"], capsys)[0] == 1
    git(formatted, "add", config)
    for names in ([], [config], ["docs/notes.txt"]):
        code, out, _ = run_codegen(["--hook", "--check", *names], capsys)
        assert code == 1, names
        assert line in out
    git(formatted, "commit", "-q", "--no-verify", "-m", "the formatter's settings")
    code, out, _ = run_codegen(["--check", "--since", "HEAD~1"], capsys)
    assert code == 1 and line in out
    assert out.count("stale region") == 1  # the other formatter's table is fresh
    assert run_codegen(["--check"], capsys)[0] == 1


def test_a_configuration_no_formatter_reads_touches_nothing(
    formatted: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (formatted / "docs" / ".clang-format").write_text("ColumnLimit: 10\n")
    (formatted / "docs" / "ruff.toml").write_text("line-length = 10\n")
    git(formatted, "add", "docs")
    assert run_codegen(["--hook", "--check"], capsys) == (0, "", "")
    assert run_codegen(["--check", "--since", "HEAD"], capsys) == (0, "", "")


ROOT = "/repo"
UP = ["/repo/a/b", "/repo/a", "/repo"]


@pytest.mark.parametrize(
    ("argv", "names"),
    [
        (["clang-format", "--assume-filename={path}"],
         [".clang-format", "_clang-format", ".clang-format-ignore"]),
        (["clang-format-18", "-i", "{file}"],
         [".clang-format", "_clang-format", ".clang-format-ignore"]),
        (["ruff", "format", "-"], ["ruff.toml", ".ruff.toml", "pyproject.toml"]),
        (["mojo", "format", "-q", "-"], ["pyproject.toml"]),
        (["mblack", "-"], ["pyproject.toml"]),
        (["black", "-q", "-"], ["pyproject.toml"]),
        (["mojo", "run", "fmt.mojo"], []),
        (["yapf"], []),
    ],
)  # fmt: skip
def test_each_formatter_reads_its_own_files_up_to_the_root(
    argv: list[str], names: list[str]
) -> None:
    expected = [f"{folder}/{name}" for folder in UP for name in names]
    assert format_inputs(argv, "/repo/a/b", ROOT) == expected


def test_a_file_the_command_names_is_an_input(tmp_path: Path) -> None:
    """The way to name the configuration of a formatter not listed, or one a
    configuration pulls in (ruff's ``extend``)."""
    (tmp_path / "tools").mkdir()
    for name in ("ruff.toml", "clang.yaml", "yapf.cfg"):
        (tmp_path / "tools" / name).write_text("")
    root = str(tmp_path)
    argv = ["ruff", "format", "--config", "tools/ruff.toml", "-"]
    assert format_inputs(argv, root, root)[-1:] == [f"{root}/tools/ruff.toml"]
    argv = ["clang-format", "--style=file:tools/clang.yaml", "--assume-filename={path}"]
    assert format_inputs(argv, root, root)[-1:] == [f"{root}/tools/clang.yaml"]
    argv = ["yapf", "--style=tools/yapf.cfg", "../outside.cfg", "{file}"]
    assert format_inputs(argv, root, root) == [f"{root}/tools/yapf.cfg"]


# --- the hook formats with the configuration the commit holds, or refuses ---------

WHY = "reads it to format the region of table '{}', so the verdict would not be the commit's"
UNTRACKED = (
    "{path}: error: not in the commit (untracked, or ignored by git), but {program} "
    f"{WHY}: git add it (git add -f if ignored), or move it out of the repository\n"
)
DIFFERS = (
    "{path}: error: staged with other content than the working tree's, but {program} "
    f"{WHY}: git add it, or stash the difference (git stash --keep-index)\n"
)
MISSING = (
    "{path}: error: staged, but not in the working tree, but {program} "
    f"{WHY}: restore it (git checkout -- PATH), or stage its removal (git rm)\n"
)
OWNER = {"ruff.toml": ("ruff", "py"), "src/pyproject.toml": ("ruff", "py"),
         ".clang-format": ("clang-format", "cc")}  # fmt: skip


def refusal(template: str, config: str) -> str:
    program, table = OWNER[config]
    return template.replace("{}", table).format(path=config, program=program)


def hook_refuses(root: Path, capsys: pytest.CaptureFixture[str], err: str) -> None:
    """``--hook --check`` and ``--hook`` both exit 2 with ``err``; nothing written."""
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    for args in (["--hook", "--check"], ["--hook"]):
        assert run_codegen(args, capsys) == (2, "", err), args
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


def retune_with(
    root: Path, capsys: pytest.CaptureFixture[str], config: str, text: str
) -> None:
    """``config`` written with ``text``, the manifest retuned, the targets
    regenerated with that configuration in the working tree and staged with the
    manifest (the configuration itself left alone)."""
    (root / config).write_text(text)
    (root / "m.yaml").write_text("params:\n- {M: 256, N: 2112, NAME: wide}\n")
    assert run_codegen([], capsys)[0] == 0
    git(root, "add", "m.yaml", "src/t.py", "src/t.cc")


@pytest.mark.parametrize("config", list(CONFIGS))
def test_an_untracked_configuration_is_refused(
    formatted: Path, capsys: pytest.CaptureFixture[str], config: str
) -> None:
    """Before, the commit passed while a clone's --check of it failed."""
    retune_with(formatted, capsys, config, CONFIGS[config][0])
    hook_refuses(formatted, capsys, refusal(UNTRACKED, config))
    git(formatted, "add", config)
    assert run_codegen(["--hook", "--check"], capsys) == (0, "", "")


def test_an_ignored_configuration_is_refused_as_untracked(
    formatted: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (formatted / ".gitignore").write_text("ruff.toml\n")
    git(formatted, "add", ".gitignore")
    retune_with(formatted, capsys, "ruff.toml", CONFIGS["ruff.toml"][0])
    hook_refuses(formatted, capsys, refusal(UNTRACKED, "ruff.toml"))


@pytest.mark.parametrize("config", list(CONFIGS))
def test_a_configuration_staged_with_other_content_is_refused(
    formatted: Path, capsys: pytest.CaptureFixture[str], config: str
) -> None:
    """Staged with one content, the working tree's copy put back: before, the hook
    formatted with the working tree's and passed a region stale under the
    staged one."""
    (formatted / config).write_text(CONFIGS[config][0])
    git(formatted, "add", config)
    (formatted / config).write_text("# as it was\n")
    hook_refuses(formatted, capsys, refusal(DIFFERS, config))
    (formatted / config).unlink()
    hook_refuses(formatted, capsys, refusal(MISSING, config))
    git(formatted, "checkout", "--", config)
    code, out, _ = run_codegen(["--hook", "--check"], capsys)
    assert code == 1 and CONFIGS[config][1] in out


def test_a_commit_touching_no_formatted_table_ignores_its_configuration(
    formatted: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (formatted / "ruff.toml").write_text(CONFIGS["ruff.toml"][0])  # untracked
    (formatted / "docs/notes.txt").write_text("Other notes.\n")
    git(formatted, "add", "docs/notes.txt")
    assert run_codegen(["--hook", "--check"], capsys) == (0, "", "")
    assert run_codegen(["--check"], capsys)[0] == 1  # the working tree's verdict


def test_a_configuration_outside_the_sparse_checkout_is_refused(
    formatted: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = "src/pyproject.toml"
    (formatted / config).write_text(CONFIGS[config][0])
    git(formatted, "add", config)
    git(formatted, "commit", "-q", "--no-verify", "-m", "ruff's settings")
    git(formatted, "sparse-checkout", "set", "--no-cone", "/*", f"!/{config}")
    assert not (formatted / config).exists()
    (formatted / "m.yaml").write_text("params:\n- {M: 256, N: 2112, NAME: wide}\n")
    git(formatted, "add", "m.yaml")
    program, table = OWNER[config]
    hook_refuses(
        formatted,
        capsys,
        f"{config}: error: staged, but outside the sparse checkout, but {program} "
        f"{WHY.replace('{}', table)}: add it to the checkout (git sparse-checkout add)\n",
    )
