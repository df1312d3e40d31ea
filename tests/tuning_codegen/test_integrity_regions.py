"""The regions of one target never nest, overlap or share marker lines.

Detected when the registry's tables are planned, whichever of them are selected,
and reported with both tables, the target and the lines; nothing is written. Two
tables with one marker in one target are refused when the registry is read.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import PY, REG, make_stale, refused
from support import run_codegen as run

MOJO = "kernels/tuning_configs.mojo"


@pytest.fixture
def repo(codegen_repo: object) -> object:
    return make_stale(codegen_repo)


# --- regions of one target never share lines, nest or overlap ---------------

SM100 = ("# BEGIN-TUNING-LIST-SM100-BF16", "# END-TUNING-LIST-SM100-BF16")
SM90 = ("# BEGIN-TUNING-LIST-SM90-FP8", "# END-TUNING-LIST-SM90-FP8")


def move_line(repo: object, line: str, before: str) -> None:
    """Move the line holding ``line`` to just before the line holding ``before``."""
    path = Path.cwd() / MOJO
    lines = path.read_text().splitlines(keepends=True)
    (moved,) = [x for x in lines if line in x]
    lines.remove(moved)
    (at,) = [i for i, x in enumerate(lines) if before in x]
    lines.insert(at, moved)
    path.write_text("".join(lines))


def test_nested_regions_are_refused_even_for_one_table(
    repo: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """sm90's region moved inside sm100's; only sm90 is asked for, both are named."""
    move_line(repo, SM90[0], SM100[1])
    move_line(repo, SM90[1], SM100[1])
    before = repo.snapshot()  # type: ignore[attr-defined]
    for args in (["--table", "sm90-fp8"], ["--check"], []):
        code, out, err = run(args, capsys)
        assert (code, out) == (2, "")
        assert err == (
            f"{MOJO}:55: error: the region of table 'sm90-fp8' (lines 55-56) is "
            "nested in the region of table 'sm100-bf16' (lines 12-57); each region "
            "needs its own lines\n"
        )
    assert repo.snapshot() == before  # type: ignore[attr-defined]


def test_overlapping_regions_are_refused(
    repo: object, capsys: pytest.CaptureFixture[str]
) -> None:
    move_line(repo, SM90[0], SM100[1])
    refused(
        repo,
        capsys,
        f"{MOJO}:55: error: the regions of tables 'sm100-bf16' (lines 12-56) and "
        "'sm90-fp8' (lines 55-135) overlap; each region needs its own lines",
        f"{MOJO}:62: error: the region of table 'sm100-ranged' (lines 62-107) is "
        "nested in the region of table 'sm90-fp8' (lines 55-135); each region "
        "needs its own lines",
    )


def test_regions_sharing_marker_lines_are_refused(
    repo: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """sm90's markers written on sm100's marker lines: both regions are one."""
    path = Path.cwd() / MOJO
    text = path.read_text()
    for old in SM90:
        text = text.replace(old + "\n", "")
    text = text.replace(SM100[0], SM100[0] + " BEGIN-TUNING-LIST-SM90-FP8")
    text = text.replace(SM100[1], SM100[1] + " END-TUNING-LIST-SM90-FP8")
    path.write_text(text)
    assert run(["--table", "sm90-fp8"], capsys) == (
        2,
        "",
        f"{MOJO}:12: error: tables 'sm90-fp8' and 'sm100-bf16' use the same marker "
        "lines (lines 12-55); each region needs its own lines\n",
    )


def test_two_tables_with_one_marker_pair_are_refused(
    repo: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: each run rewrote the region with the other table, forever."""
    repo.edit(REG, "BEGIN-TUNING-LIST-SM90-FP8", "BEGIN-TUNING-LIST-SM100-BF16")  # type: ignore[attr-defined]
    repo.edit(REG, "END-TUNING-LIST-SM90-FP8", "END-TUNING-LIST-SM100-BF16")  # type: ignore[attr-defined]
    refused(
        repo,
        capsys,
        f"{REG}:16: error: tables 'sm100-bf16' (line 3) and 'sm90-fp8' both use "
        f"the marker 'BEGIN-TUNING-LIST-SM100-BF16' in {MOJO}; each table needs "
        "markers of its own",
        f"{REG}:16: error: tables 'sm100-bf16' (line 3) and 'sm90-fp8' both use "
        f"the marker 'END-TUNING-LIST-SM100-BF16' in {MOJO}; each table needs "
        "markers of its own",
    )


@pytest.mark.parametrize(
    ("target", "what"),
    [
        ("python/small.py.snippet", "the snippet of table 'small-py'"),
        ("kernels/tuning_table_sm90_fp8.yaml", "the manifest of table 'sm90-fp8'"),
        ("./.tuning-codegen.yaml", f"the registry {REG}"),
    ],
    ids=["own-snippet", "other-manifest", "registry"],
)
def test_a_target_that_is_also_an_input_is_refused(
    repo: object, capsys: pytest.CaptureFixture[str], target: str, what: str
) -> None:
    """Writing an input would change the next run's input: the file never settles."""
    repo.edit(REG, f"target: {PY}", f"target: {target}")  # type: ignore[attr-defined]
    shown = target.removeprefix("./")
    refused(
        repo,
        capsys,
        f"{REG}:22: error: table 'small-py': target '{shown}' is also {what}; "
        "a target must not be an input",
    )
