"""Registry mode through ``main``: table selection, shared targets, --list, output lines."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tuning_codegen.cli import main

FIXTURES = Path(__file__).parents[2] / "fixtures" / "codegen"

EXTRA_TABLE = """\
  - name: cpp-table
    manifest: cpp/table.yaml
    snippet: cpp/entry.cpp.snippet
    target: cpp/dispatch.cpp
    begin_marker: BEGIN-CPP
    end_marker: END-CPP
    language: cpp
    indent: "    "
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fixture registry (three tables in one target) plus a C++ table of its own."""
    (tmp_path / ".git").mkdir()  # marks the repository root for the registry search
    for path in FIXTURES.iterdir():
        if path.is_file():
            shutil.copy(path, tmp_path / path.name)
    (tmp_path / "cpp").mkdir()
    (tmp_path / "cpp" / "table.yaml").write_text(
        "params:\n- {M: 1, SPLIT: true, HINT: null}\n"
    )
    (tmp_path / "cpp" / "entry.cpp.snippet").write_text("{[@M], [@SPLIT], [@HINT]}\n")
    (tmp_path / "cpp" / "dispatch.cpp").write_text(
        "int x[] = {\n  // BEGIN-CPP\n  // END-CPP\n};\n"
    )
    registry = tmp_path / ".tuning-codegen.yaml"
    registry.write_text(registry.read_text() + EXTRA_TABLE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_list_shows_status(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list"]) == 0
    assert capsys.readouterr().out == (
        "sm100-bf16    tuning_configs.mojo  fresh\n"
        "sm100-ranged  tuning_configs.mojo  fresh\n"
        "sm90-fp8      tuning_configs.mojo  fresh\n"
        "cpp-table     cpp/dispatch.cpp     stale\n"
    )


def test_regenerate_all_then_fresh(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([]) == 0
    assert (
        capsys.readouterr().out == "regenerated cpp/dispatch.cpp (tables: cpp-table)\n"
    )
    assert (repo / "cpp" / "dispatch.cpp").read_text() == (
        "int x[] = {\n  // BEGIN-CPP\n"
        "    // Automatically generated from [table.yaml]\n    // index: [0]\n    {1, true, nullptr},\n"
        "  // END-CPP\n};\n"
    )
    assert main(["--check"]) == 0
    assert capsys.readouterr() == ("", "")


def test_files_select_affected_tables_only(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = repo / "tuning_table_sm90_fp8.yaml"
    manifest.write_text(manifest.read_text().replace("BN: 112", "BN: 128"))
    before = snapshot(repo)
    # cpp-table is stale too, but nothing it reads is among the files: not touched
    assert main(["--check", "tuning_table_sm90_fp8.yaml"]) == 1
    out = capsys.readouterr().out
    assert out.startswith(
        "diff --git a/tuning_configs.mojo b/tuning_configs.mojo\n--- a/tuning_configs.mojo\n+++ b/tuning_configs.mojo\n"
    )
    assert out.endswith(
        "\n1 stale region in 1 file; run tuning-codegen to regenerate\n"
    )
    assert snapshot(repo) == before
    assert main(["tuning_table_sm90_fp8.yaml"]) == 0
    assert (
        capsys.readouterr().out
        == "regenerated tuning_configs.mojo (tables: sm90-fp8)\n"
    )
    assert "Index(128, 128, 128)" in (repo / "tuning_configs.mojo").read_text()
    assert (repo / "cpp" / "dispatch.cpp").read_bytes() == before["cpp/dispatch.cpp"]


def test_shared_snippet_triggers_every_table_using_it(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snippet = repo / "tuning_sm100.mojo.snippet"
    snippet.write_text(
        snippet.read_text().replace(
            "swap_ab=[@SWAP_AB],", "swap_ab=[@SWAP_AB],  # swapped"
        )
    )
    assert main(["tuning_sm100.mojo.snippet"]) == 0
    assert (
        capsys.readouterr().out
        == "regenerated tuning_configs.mojo (tables: sm100-bf16, sm100-ranged)\n"
    )


def test_registry_among_files_selects_all(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--check", ".tuning-codegen.yaml"]) == 1
    assert capsys.readouterr().out.endswith(
        "1 stale region in 1 file; run tuning-codegen to regenerate\n"
    )


def test_table_filter_and_unknown_table(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--check", "--table", "sm90-fp8", "--table", "sm100-bf16"]) == 0
    assert main(["--check", "--table", "nope"]) == 2
    assert capsys.readouterr().err == (
        ".tuning-codegen.yaml: error: no table named 'nope' "
        "(tables: sm100-bf16, sm100-ranged, sm90-fp8, cpp-table)\n"
    )


def test_two_stale_tables_in_one_target_give_one_diff(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("tuning_table_sm90_fp8.yaml", "tuning_table_sm100_bf16.yaml"):
        path = repo / name
        path.write_text(path.read_text().replace("CLUSTER_M: 2", "CLUSTER_M: 4"))
    assert main(["--check", "--table", "sm90-fp8", "--table", "sm100-bf16"]) == 1
    out = capsys.readouterr().out
    assert out.count("diff --git") == 1
    assert out.endswith(
        "\n2 stale regions in 1 file; run tuning-codegen to regenerate\n"
    )


def test_all_or_nothing(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = repo / "tuning_table_sm90_fp8.yaml"
    path.write_text(path.read_text().replace("BN: 112", "BN: 128"))
    (repo / "cpp" / "table.yaml").write_text("params:\n- {M: 1}\n")
    (repo / "tuning_sm100.mojo.snippet").unlink()
    before = snapshot(repo)
    assert main([]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        "tuning_sm100.mojo.snippet: error: no such file",
        "cpp/table.yaml:2: error: params[0]: Missing snippet parameters: HINT, SPLIT",
    ]
    assert snapshot(repo) == before


def test_config_flag_and_search_upwards(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo / "cpp")
    assert main(["--list", "--table", "cpp-table"]) == 0
    assert capsys.readouterr().out == "cpp-table  dispatch.cpp  stale\n"
    (repo / ".tuning-codegen.yaml").rename(repo / "registry.yaml")
    assert main(["--list"]) == 2
    assert (
        "error: no .tuning-codegen.yaml found here or in a parent folder up to the git root"
        in capsys.readouterr().err
    )
    assert main(["--list", "--config", "../registry.yaml", "--table", "cpp-table"]) == 0


def test_list_exit_status_follows_check_and_errors(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--list", "--check", "--table", "sm90-fp8"]) == 0
    assert main(["--list", "--check"]) == 1  # cpp-table is stale
    assert capsys.readouterr().out.endswith(
        "cpp-table     cpp/dispatch.cpp     stale\n"
    )
    (repo / "cpp" / "table.yaml").write_text("params:\n- {M: 1, M: 2}\n")
    assert main(["--list"]) == 2
    assert capsys.readouterr().out.splitlines()[-1] == (
        "cpp-table     cpp/dispatch.cpp     error: cpp/table.yaml:2: error: key 'M' appears twice in one mapping (first on line 2)"
    )


def test_a_named_file_no_table_has_is_an_error_listing_the_tables(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --hook, FILES name what to regenerate: a typo or an unregistered path
    is said, never taken for "nothing to do" (with --hook it is a commit's other
    file, and ignored)."""
    before = snapshot(repo)
    assert main(["--check", "kernels/nothere.yaml", "tuning_table_sm90_fp8.yaml"]) == 2
    out, err = capsys.readouterr()
    tables = ", ".join(line.split()[0] for line in _listing(capsys) if line)
    assert (out, err) == (
        "",
        "kernels/nothere.yaml: error: not a file of any table of .tuning-codegen.yaml "
        f"(a manifest, snippet or target); tables: {tables}\n",
    )
    assert snapshot(repo) == before


def _listing(capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert main(["--list"]) == 0
    return capsys.readouterr().out.splitlines()
