"""Switching a repository from the reference tool: --import-bazel writes the registry
its BUILD rules describe, $BUILD_WORKING_DIRECTORY is honoured as the reference does,
and --format github annotates stale regions and errors on their lines. The commands
are the installed console script, run in a real git repository."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from support import BIN, PROJECT

from tuning_codegen.annotate import escape_data, escape_property

pytestmark = pytest.mark.slow  # the installed console script in a Bazel-style workspace

TOOL = str(BIN / "tuning-codegen")


def tool(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "BUILD_"))
    }
    return subprocess.run([TOOL, *args], cwd=cwd, env={**clean, **(env or {})},
                          capture_output=True, text=True, check=False)  # fmt: skip


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A Bazel-style workspace: the fixture tables under fixtures/codegen/ and the
    BUILD file that tests them with the reference binary, in a git repository."""
    root = tmp_path / "ws"
    shutil.copytree(PROJECT / "fixtures" / "codegen", root / "fixtures" / "codegen")
    (root / "fixtures" / "codegen" / ".tuning-codegen.yaml").unlink()
    shutil.copytree(PROJECT / "fixtures" / "bazel", root / "fixtures" / "bazel")
    subprocess.run(["git", "init", "-q", root], check=True)
    return root


def test_import_bazel_then_check_is_fresh(workspace: Path) -> None:
    done = tool("--import-bazel", "fixtures/bazel/BUILD.bazel", cwd=workspace)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith(
        "# Imported by tuning-codegen --import-bazel from:\n#   fixtures/bazel/BUILD.bazel\n"
    )
    (workspace / ".tuning-codegen.yaml").write_text(done.stdout)
    listed = tool("--check", "--list", cwd=workspace)
    assert listed.returncode == 0, listed.stderr
    assert [line.split()[0] for line in listed.stdout.splitlines()] == [
        "sm100_bf16", "sm100_ranged", "sm90_fp8"]  # fmt: skip
    assert all(line.endswith("fresh") for line in listed.stdout.splitlines())
    target = workspace / "fixtures" / "codegen" / "tuning_configs.mojo"
    target.write_text(target.read_text().replace("block_swizzle_size=0,", "x=1,", 1))
    assert tool("--check", cwd=workspace).returncode == 1  # the registry sees a change


@pytest.mark.parametrize(
    ("args", "flag"),
    [(["--check"], "--check"), (["--manifest", "m.yaml"], "manifest"),
     (["--table", "x"], "--table"), (["a.yaml"], "FILES")],
)  # fmt: skip
def test_import_bazel_stands_alone(workspace: Path, args: list[str], flag: str) -> None:
    done = tool("--import-bazel", "fixtures/bazel/BUILD.bazel", *args, cwd=workspace)
    assert (done.returncode, done.stdout) == (2, "")
    shown = flag if flag.startswith(("--", "FILES")) else f"--{flag}"
    assert done.stderr == (
        f"tuning-codegen: error: --import-bazel cannot be combined with {shown}\n"
    )


def test_import_bazel_errors_are_one_line(workspace: Path) -> None:
    build = workspace / "BUILD"
    build.write_text(
        'run_binary_test(name = "x_test", args = ARGS, binary = ":tuning_codegen")\n'
    )
    done = tool("--import-bazel", "BUILD", cwd=workspace)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(
        "BUILD:1: error: args of this codegen rule cannot be read"
    )
    assert done.stderr.count("\n") == 1
    assert (
        tool("--import-bazel", "missing", cwd=workspace).stderr
        == "missing: error: no such file\n"
    )


SINGLE = [
    "--check",
    "--manifest=fixtures/codegen/tuning_table_sm90_fp8.yaml",
    "--snippet=fixtures/codegen/tuning_sm90.mojo.snippet",
    "--target=fixtures/codegen/tuning_configs.mojo",
    "--begin-marker=BEGIN-TUNING-LIST-SM90-FP8",
    "--end-marker=END-TUNING-LIST-SM90-FP8",
    "--source-label=tuning_table_sm90_fp8.yaml",
]


def test_build_working_directory_resolves_the_reference_flags(
    workspace: Path, tmp_path: Path
) -> None:
    """bazel run starts the tool in its runfiles; paths are the user's."""
    elsewhere = tmp_path / "runfiles"
    elsewhere.mkdir()
    assert tool(*SINGLE, cwd=elsewhere).returncode == 2  # without it: not found
    done = tool(*SINGLE, cwd=elsewhere, env={"BUILD_WORKING_DIRECTORY": str(workspace)})
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    stale = [
        a.replace("sm90_fp8.yaml", "sm100_bf16.yaml")
        if a.startswith("--manifest")
        else a
        for a in SINGLE
    ]
    done = tool(*stale, cwd=elsewhere, env={"BUILD_WORKING_DIRECTORY": str(workspace)})
    assert done.returncode == 2  # the bf16 manifest's keys do not fit the sm90 snippet
    assert done.stderr.startswith("fixtures/codegen/tuning_table_sm100_bf16.yaml:")


def test_build_working_directory_finds_the_registry_there(
    workspace: Path, tmp_path: Path
) -> None:
    imported = tool("--import-bazel", "fixtures/bazel/BUILD.bazel", cwd=workspace)
    (workspace / ".tuning-codegen.yaml").write_text(imported.stdout)
    elsewhere = tmp_path / "runfiles"
    elsewhere.mkdir()
    env = {"BUILD_WORKING_DIRECTORY": str(workspace / "fixtures")}
    done = tool("--check", "--list", cwd=elsewhere, env=env)
    assert done.returncode == 0, done.stderr
    assert "codegen/tuning_configs.mojo" in done.stdout  # shown from where the user is
    bad = tool(
        "--check", cwd=elsewhere, env={"BUILD_WORKING_DIRECTORY": str(tmp_path / "no")}
    )
    assert bad.returncode == 2 and "BUILD_WORKING_DIRECTORY: cannot enter" in bad.stderr


# ------------------------------------------------------------------ --format github


def _registry(workspace: Path) -> Path:
    imported = tool("--import-bazel", "fixtures/bazel/BUILD.bazel", cwd=workspace)
    (workspace / ".tuning-codegen.yaml").write_text(imported.stdout)
    return workspace / "fixtures" / "codegen"


def test_github_annotates_each_stale_region_on_its_first_changed_line(
    workspace: Path,
) -> None:
    folder = _registry(workspace)
    for name, old, new in (
        (
            "tuning_table_sm100_bf16.yaml",
            "BLOCK_SWIZZLE_SIZE: 0",
            "BLOCK_SWIZZLE_SIZE: 4",
        ),
        ("tuning_table_sm90_fp8.yaml", "K: 7168", "K: 7000"),
    ):
        path = folder / name
        assert old in path.read_text()
        path.write_text(path.read_text().replace(old, new, 1))
    done = tool("--check", "--format", "github", cwd=workspace)
    assert done.returncode == 1 and done.stderr == ""
    commands = [line for line in done.stdout.splitlines() if line.startswith("::")]
    target = (folder / "tuning_configs.mojo").read_text().splitlines()
    assert len(commands) == 2
    for command, value in zip(commands, ("block_swizzle_size=0", "K=7168")):
        head, _, message = command.partition("::")[2].partition("::")
        fields = dict(
            part.split("=", 1) for part in head.removeprefix("error ").split(",")
        )
        assert fields["file"] == "fixtures/codegen/tuning_configs.mojo"
        assert fields["title"] == "stale tuning table"
        assert value in target[int(fields["line"]) - 1]  # the line that changes
        assert "is stale" in message
    assert "diff --git a/fixtures/codegen/tuning_configs.mojo" in done.stdout
    assert done.stdout.rstrip().endswith("run tuning-codegen to regenerate")


def test_github_fresh_prints_nothing_and_text_stays_the_default(
    workspace: Path,
) -> None:
    _registry(workspace)
    done = tool("--check", "--format", "github", cwd=workspace)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    (workspace / "fixtures/codegen/tuning_table_sm90_fp8.yaml").write_text(
        "params: 1\n"
    )
    plain = tool("--check", cwd=workspace)
    assert plain.returncode == 2 and "::error" not in plain.stdout + plain.stderr


def test_github_annotates_errors_and_keeps_exit_2(workspace: Path) -> None:
    _registry(workspace)
    manifest = workspace / "fixtures/codegen/tuning_table_sm90_fp8.yaml"
    manifest.write_text(manifest.read_text() + "params: []\n")  # key written twice
    done = tool("--check", "--format", "github", cwd=workspace)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    path, number, _ = line.split(":", 2)
    assert done.stdout.startswith(
        f"::error file={path},line={number},title=tuning-codegen error::"
    )


def test_escaping_keeps_one_command_per_line() -> None:
    assert escape_data("50% a\r\nb") == "50%25 a%0D%0Ab"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_an_error_about_no_file_is_annotated_without_one(workspace: Path) -> None:
    """The repository itself (no registry found) has no file to point at: no
    ``file=.`` annotation, which GitHub would pin to nothing."""
    done = tool("--check", "--format", "github", cwd=workspace)
    assert done.returncode == 2
    assert done.stdout == (
        "::error title=tuning-codegen error::no .tuning-codegen.yaml found here or in "
        "a parent folder up to the git root; create one, pass --config, or use the "
        "single-table flags (see --help)\n"
    )
