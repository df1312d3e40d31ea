"""``--update`` through the real command on a genuine kbench run: a comment at the end
of a line whose value changes goes with the old value, the summary says so in every
format, and every other comment stays."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support import FIXTURES, run, section, sections

TABLE = """\
name: np_gemm_blocked
params:
# run I's runner-ups
- M: 128
  N: 256
  K: 256
  BM: 64   # the widest tile that fits
  BN: 128
  BK: 128  # from sweep I
- M: 64
  N: 128
  K: 512
  BM: 64
  BN: 128
  BK: 256  # from sweep I
- {M: 128, N: 512, K: 128, BM: 64, BN: 128, BK: 128}  # from sweep I
"""
NOTE = "comments dropped with the values they described: params[0] BK (# from sweep I)"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(FIXTURES / "realkbench" / "J", tmp_path / "J")
    (tmp_path / "table.yaml").write_text(TABLE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_changed_values_comment_goes_and_the_summary_names_it(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "J/out.pkl", "--update", "table.yaml", "-q")
    assert (code, err) == (0, "updated table.yaml\n")
    # run J's best at M=128/N=256/K=256 has BK=256; the other entries are J's best
    assert (folder / "table.yaml").read_text() == TABLE.replace(
        "  BK: 128  # from sweep I\n", "  BK: 256\n"
    )
    assert section(out, "update: table.yaml").rstrip("\n").endswith(NOTE)
    code, out, _ = run(capsys, "J/out.pkl", "--update", "table.yaml", "-q",
                       "--format", "json")  # fmt: skip
    assert (code, sections(out)["update"]["notes"]) == (0, [])  # nothing left to drop


def test_the_dry_run_says_which_comment_would_go(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["J/out.pkl", "--update", "table.yaml", "--dry-run", "-q"]
    code, out, _ = run(capsys, *args, "--format", "json")
    assert (code, sections(out)["update"]["notes"]) == (0, [NOTE])
    assert (
        "-  BK: 128  # from sweep I\n+  BK: 256\n"
        in (sections(out)["update-diff"]["notes"][0])
    )
    code, out, _ = run(capsys, *args, "--format", "markdown")
    (line,) = [x for x in out.splitlines() if x.startswith("comments dropped")]
    assert "params[0]" in line and line.endswith("from sweep I)")
    assert (folder / "table.yaml").read_text() == TABLE
