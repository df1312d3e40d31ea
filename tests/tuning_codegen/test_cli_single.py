"""Single-table mode, the reference tool's flags, through ``main``: exit codes, output, disk."""

from __future__ import annotations

import os
import re
import shutil
import stat
from pathlib import Path

import pytest

from tuning_codegen.cli import main

FIXTURES = Path(__file__).parents[2] / "fixtures" / "codegen"
TABLES = {
    "sm100-bf16": (
        "tuning_table_sm100_bf16.yaml",
        "tuning_sm100.mojo.snippet",
        [],
        "SM100-BF16",
    ),
    "sm100-ranged": (
        "tuning_table_sm100_ranged.yaml",
        "tuning_sm100.mojo.snippet",
        ["--snippet-variant", "ranged=tuning_ranged.mojo.snippet"],
        "SM100-RANGED",
    ),
    "sm90-fp8": (
        "tuning_table_sm90_fp8.yaml",
        "tuning_sm90.mojo.snippet",
        [],
        "SM90-FP8",
    ),
}


def args(name: str, *extra: str) -> list[str]:
    manifest, snippet, variants, tag = TABLES[name]
    return [
        "--manifest", manifest, "--snippet", snippet, *variants, "--target", "tuning_configs.mojo",
        "--begin-marker", f"BEGIN-TUNING-LIST-{tag}", "--end-marker", f"END-TUNING-LIST-{tag}",
        "--source-label", manifest, *extra,
    ]  # fmt: skip


def blank_regions(text: str) -> str:
    """The golden target with every generated region emptied."""
    return re.sub(
        r"(# BEGIN-TUNING-LIST-[\w-]+\n).*?(\s*# END-TUNING-LIST)",
        r"\1\2",
        text,
        flags=re.S,
    ).replace("\n\n        # END", "\n        # END")


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for path in FIXTURES.iterdir():
        if path.is_file():
            shutil.copy(path, tmp_path / path.name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_golden_target_is_fresh(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in TABLES:
        assert main(args(name, "--check")) == 0
    assert capsys.readouterr() == ("", "")


def test_regenerating_blank_regions_reproduces_golden_bytes(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    golden = (FIXTURES / "tuning_configs.mojo").read_bytes()
    blank = blank_regions(golden.decode())
    assert "Automatically generated" not in blank
    (work / "tuning_configs.mojo").write_text(blank, newline="")
    for name in TABLES:
        assert main(args(name)) == 0
    assert (work / "tuning_configs.mojo").read_bytes() == golden
    out = capsys.readouterr().out
    assert out.count("regenerated tuning_configs.mojo") == 3


def test_crlf_target_stays_crlf(work: Path) -> None:
    golden = (FIXTURES / "tuning_configs.mojo").read_bytes()
    crlf = blank_regions(golden.decode()).replace("\n", "\r\n")
    (work / "tuning_configs.mojo").write_bytes(crlf.encode())
    for name in TABLES:
        assert main(args(name)) == 0
    assert (work / "tuning_configs.mojo").read_bytes() == golden.replace(b"\n", b"\r\n")


def test_target_without_final_newline_keeps_it(work: Path) -> None:
    target = work / "tuning_configs.mojo"
    target.write_bytes(b"x\n# BEGIN-TUNING-LIST-SM90-FP8\n# END-TUNING-LIST-SM90-FP8")
    assert main(args("sm90-fp8")) == 0
    data = target.read_bytes()
    assert data.startswith(
        b"x\n# BEGIN-TUNING-LIST-SM90-FP8\n        # Automatically generated"
    )
    assert data.endswith(b"        ),\n# END-TUNING-LIST-SM90-FP8")


def test_check_prints_diff_and_writes_nothing(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = work / "tuning_table_sm90_fp8.yaml"
    manifest.write_text(manifest.read_text().replace("BN: 112", "BN: 128"))
    before = (work / "tuning_configs.mojo").read_bytes()
    assert main(args("sm90-fp8", "--check")) == 1
    out, err = capsys.readouterr()
    assert err == ""
    assert out.splitlines()[:3] == [
        "--- tuning_configs.mojo",
        "+++ tuning_configs.mojo",
        "@@ -114,7 +114,7 @@ # index: [0] M=128/N=2112/K=7168",
    ]
    assert (
        "-            block_tile_shape=Index(128, 112, 128),\n+            block_tile_shape=Index(128, 128, 128),\n"
        in out
    )
    assert out.endswith("1 stale region in 1 file; run tuning-codegen to regenerate\n")
    assert (work / "tuning_configs.mojo").read_bytes() == before


def test_regenerate_keeps_mode_and_skips_unchanged_file(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = work / "tuning_configs.mojo"
    os.chmod(target, 0o640)
    old_inode = target.stat().st_ino
    assert main(args("sm90-fp8")) == 0
    assert target.stat().st_ino == old_inode  # fresh: not rewritten
    assert capsys.readouterr().out == ""
    manifest = work / "tuning_table_sm90_fp8.yaml"
    manifest.write_text(manifest.read_text().replace("BN: 112", "BN: 128"))
    assert main(args("sm90-fp8")) == 0
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert "Index(128, 128, 128)" in target.read_text()
    assert (
        sorted(p.name for p in work.iterdir() if p.name.startswith(".tuning_configs"))
        == []
    )


def test_source_label_defaults_to_manifest_name(work: Path) -> None:
    argv = args("sm90-fp8")
    i = argv.index("--source-label")
    del argv[i : i + 2]
    assert main(argv + ["--check"]) == 0


BAD_INPUTS = [
    ("missing manifest", ["--manifest", "nope.yaml"], "nope.yaml: error: no such file"),
    (
        "missing snippet",
        ["--snippet", "nope.snippet"],
        "nope.snippet: error: no such file",
    ),
    (
        "target is a directory",
        ["--target", "."],
        ".: error: is a directory, expected a file",
    ),
    (
        "bad variant flag",
        ["--snippet-variant", "ranged"],
        "--snippet-variant: error: expected NAME=PATH, got 'ranged'",
    ),
    (
        "duplicate variant",
        [
            "--snippet-variant",
            "a=tuning_ranged.mojo.snippet",
            "--snippet-variant",
            "a=tuning_sm90.mojo.snippet",
        ],
        "--snippet-variant: error: variant 'a' given twice",
    ),
    (
        "missing begin marker",
        ["--begin-marker", "NOPE"],
        "tuning_configs.mojo: error: begin marker 'NOPE' not found",
    ),
    (
        "twice in file",
        ["--begin-marker", "TuningConfigSM90("],
        "tuning_sm90.mojo.snippet:1: error: contains the begin marker 'TuningConfigSM90(' of table 'tuning_configs.mojo'\n"
        "tuning_configs.mojo:126: error: begin marker 'TuningConfigSM90(' occurs 2 times (lines 115 and 126); it must occur once",
    ),
]


@pytest.mark.parametrize(
    ("name", "override", "message"), BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS]
)
def test_bad_input_exit_2_one_line_nothing_written(
    work: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    override: list[str],
    message: str,
) -> None:
    (work / "tuning_table_sm90_fp8.yaml").write_text(
        (work / "tuning_table_sm90_fp8.yaml").read_text().replace("BN: 112", "BN: 64")
    )
    before = {p.name: p.read_bytes() for p in work.iterdir() if p.is_file()}
    argv = args("sm90-fp8")
    for flag, value in zip(override[::2], override[1::2]):
        if flag in argv and flag != "--snippet-variant":
            argv[argv.index(flag) + 1] = value
        else:
            argv += [flag, value]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", message + "\n")
    assert {p.name: p.read_bytes() for p in work.iterdir() if p.is_file()} == before


def test_non_utf8_manifest(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / "tuning_table_sm90_fp8.yaml").write_bytes(b"params:\n- {M: \xff}\n")
    assert main(args("sm90-fp8")) == 2
    assert (
        capsys.readouterr().err
        == "tuning_table_sm90_fp8.yaml:2: error: not valid UTF-8 (byte 0xff at offset 14)\n"
    )


def test_missing_snippet_parameters_name_entry_and_manifest(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (work / "tuning_table_sm90_fp8.yaml").write_text("params:\n- {M: 1}\n")
    before = (work / "tuning_configs.mojo").read_bytes()
    assert main(args("sm90-fp8")) == 2
    assert capsys.readouterr().err == (
        "tuning_table_sm90_fp8.yaml:2: error: params[0]: Missing snippet parameters: "
        "BK, BM, BN, CLUSTER_M, GRID_SHAPE, K, N, NUM_CONSUMER, PARTITIONED_MULTICAST\n"
    )
    assert (work / "tuning_configs.mojo").read_bytes() == before


def test_mixing_modes_is_a_usage_error(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args("sm90-fp8", "--since", "HEAD")) == 2
    assert (
        capsys.readouterr().err
        == "tuning-codegen: error: --since cannot be combined with single-table flags (--manifest ...)\n"
    )
    assert main(["--manifest", "x.yaml"]) == 2
    assert capsys.readouterr().err == (
        "tuning-codegen: error: single-table mode also needs --snippet, --target, --begin-marker, --end-marker\n"
    )


def test_help_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "Examples:" in out and "--snippet-variant NAME=PATH" in out
