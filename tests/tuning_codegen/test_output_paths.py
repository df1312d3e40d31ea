"""What the output formats print.

- every path printed (diff headers, ``regenerated PATH``, ``--list``, errors, workflow
  commands) is quoted as git quotes it when it holds a control character, so a path
  holding ``\\n::warning ...`` cannot put a workflow command into a CI log;
- a file name that is not UTF-8 round-trips and nothing exits 3 after a write;
- ``--since`` reads git's ``-z`` output: a changed path holding a newline is found;
- ``--format json``: one document with the tables, their status, paths, diffs and
  errors with path and line.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support import PY, REG, SCRIPT, SMALL, SNIPPET, make_stale
from support import run_codegen as run

NASTY = "python/a\n::warning title=pwned::x.py"
QUOTED = '"python/a\\n::warning title=pwned::x.py"'
MOJO = "kernels/tuning_configs.mojo"


def nasty_target(repo: Any) -> None:
    """The small-py target renamed to a path holding a newline and a workflow
    command, and made stale."""
    os.rename(repo.path(PY), repo.path(NASTY))
    repo.edit(
        REG,
        "target: python/dispatch.py",
        'target: "python/a\\n::warning title=pwned::x.py"',
    )
    repo.edit(SMALL, "M: 64", "M: 128")


def test_a_path_cannot_start_a_workflow_command(
    codegen_repo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    nasty_target(codegen_repo)
    code, out, err = run(["--check", "--format", "github"], capsys)
    assert (code, err) == (1, "")
    for line in out.splitlines():
        assert not line.startswith("::") or line.startswith("::error file="), line
    assert out.startswith(
        '::error file="python/a\\n%3A%3Awarning title=pwned%3A%3Ax.py",line=8,'
        "title=stale tuning table::the region of table 'small-py' is stale"
    )
    assert f"\ndiff --git a/{QUOTED[1:]} b/{QUOTED[1:]}\n" not in out
    assert f'\ndiff --git "a/{QUOTED[1:]} "b/{QUOTED[1:]}\n' in out
    assert f'\n--- "a/{QUOTED[1:]}\n+++ "b/{QUOTED[1:]}\n' in out

    code, out, _ = run(["--list"], capsys)
    assert f"small-py      {QUOTED}  stale\n" in out
    assert run([], capsys) == (0, f"regenerated {QUOTED} (tables: small-py)\n", "")


def test_an_error_about_such_a_path_is_one_quoted_line(
    codegen_repo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    nasty_target(codegen_repo)
    os.unlink(codegen_repo.path(NASTY))
    code, out, err = run(["--check", "--format", "github"], capsys)
    assert code == 2
    assert err == f"{QUOTED}: error: no such file\n"
    assert out == (
        '::error file="python/a\\n%3A%3Awarning title=pwned%3A%3Ax.py",'
        "title=tuning-codegen error::no such file\n"
    )


def _single(target: bytes, *extra: str) -> list[bytes | str]:
    return [
        SCRIPT, "--manifest", SMALL, "--snippet", SNIPPET, "--target", target,
        "--begin-marker", "BEGIN-SMALL", "--end-marker", "END-SMALL",
        "--language", "python", "--indent", "    ", *extra,
    ]  # fmt: skip


def test_a_target_name_that_is_not_utf8_round_trips(codegen_repo: Any) -> None:
    """Before: the file was written, then printing its name exited 3."""
    name = b"python/\xff\xfe.py"
    stale = codegen_repo.path(PY).read_bytes().replace(b"m=64", b"m=32")
    Path(os.fsdecode(name)).write_bytes(stale)
    env = {**os.environ, "LC_ALL": "C.UTF-8"}
    done = subprocess.run(_single(name), capture_output=True, env=env, timeout=120)
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout == (
        b'regenerated "python/\\377\\376.py" (tables: "\\377\\376.py")\n'
    )
    assert Path(os.fsdecode(name)).read_bytes() == codegen_repo.path(PY).read_bytes()
    done = subprocess.run(
        _single(name, "--check", "--format", "json"),
        capture_output=True, env=env, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (table,) = json.loads(done.stdout)["tables"]
    assert table["target"] == os.fsdecode(name) and table["status"] == "fresh"


def test_a_manifest_name_that_is_not_utf8_needs_a_source_label(
    codegen_repo: Any,
) -> None:
    manifest = b"python/\xff.yaml"
    os.rename(codegen_repo.path(SMALL), os.fsdecode(manifest))
    args = _single(PY.encode())
    args[args.index("--manifest") + 1] = manifest
    done = subprocess.run(args, capture_output=True, timeout=120)
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr == (
        b"--source-label: error: 'source_label' contains a byte that is not UTF-8 "
        b"(0xff)\n"
    )


def test_since_finds_a_changed_path_holding_a_newline(
    codegen_repo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    moved = "python/small\ntable.yaml"
    codegen_repo.git("mv", SMALL, moved)
    codegen_repo.edit(
        REG,
        "manifest: python/tuning_small.yaml",
        'manifest: "python/small\\ntable.yaml"\n    source_label: tuning_small.yaml',
    )
    codegen_repo.commit_all("a manifest name holding a newline")
    assert run(["--check", "--since", "HEAD"], capsys) == (0, "", "")
    codegen_repo.edit(moved, "M: 64", "M: 128")
    code, out, err = run(["--check", "--since", "HEAD"], capsys)
    assert (code, err) == (1, "")
    assert out.startswith(f"diff --git a/{PY} b/{PY}\n")


def test_json_check_is_one_document(
    codegen_repo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    make_stale(codegen_repo)
    code, out, err = run(["--check", "--format", "json"], capsys)
    assert (code, err) == (1, "")
    document = json.loads(out)
    assert (document["format"], document["version"]) == ("tuning-codegen-report", 1)
    assert (document["exit_code"], document["errors"]) == (1, [])
    assert {t["name"]: t["status"] for t in document["tables"]} == {
        "sm100-bf16": "stale",
        "sm100-ranged": "fresh",
        "sm90-fp8": "fresh",
        "small-py": "stale",
    }
    stale = {t["name"]: t for t in document["tables"] if t["status"] == "stale"}
    assert (stale["small-py"]["target"], stale["small-py"]["line"]) == (PY, 8)
    assert [f["path"] for f in document["files"]] == [MOJO, PY]
    text = run(["--check"], capsys)[1]
    assert "".join(f["diff"] for f in document["files"]) in text
    assert document["files"][1]["tables"] == ["small-py"]


def test_json_regenerate_list_and_errors(
    codegen_repo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    make_stale(codegen_repo)
    code, out, _ = run(["--list", "--check", "--format", "json"], capsys)
    listed = json.loads(out)
    assert code == 1 and listed["exit_code"] == 1
    assert [t["status"] for t in listed["tables"]] == [
        "stale",
        "fresh",
        "fresh",
        "stale",
    ]

    code, out, err = run(["--format", "json"], capsys)
    assert (code, err) == (0, "")
    written = json.loads(out)
    assert [f["status"] for f in written["files"]] == ["regenerated"] * 2
    assert "diff" not in written["files"][0]
    assert {t["status"] for t in written["tables"]} == {"regenerated", "fresh"}

    codegen_repo.edit(SMALL, "M: 128", "M: [1, 2]")
    code, out, err = run(["--check", "--format", "json"], capsys)
    assert code == 2
    document = json.loads(out)
    assert document["exit_code"] == 2 and document["tables"] == []
    (error,) = document["errors"]
    assert (error["path"], error["line"]) == (SMALL, 5)
    assert err == f"{SMALL}:{error['line']}: error: {error['message']}\n"


def test_json_hook_run_with_nothing_to_do_is_still_a_document(
    codegen_repo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["--hook", "--format", "json", "--", "docs/notes.txt"], capsys)
    assert (code, err) == (0, "")
    assert json.loads(out)["tables"] == []
