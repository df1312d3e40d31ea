"""kprofile --ranges M --update MANIFEST: each group's ranges replaced in a curated
manifest, every other byte kept; --dry-run; a second run changes nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from ranges_support import check_ranges, raw_runs
from support import FIXTURES, run, snapshot

from tuning_codegen.manifest import load_manifest

SWEEP = ["sweep/N4096_K4096.pkl", "sweep/N8192_K2048.pkl"]
HEAD = """\
# SM100 bf16 matmul, ranged by M
defaults: &defaults
  BN: 128
  SWAP_AB: false
params:
"""
HAND_TUNED = """\
- <<: *defaults      # hand-tuned: keep
  N: 1024
  K: 1024
  M: 1
  M_END: 65536
  BM: 64
"""
CURATED = (
    HEAD
    + "- <<: *defaults\n  N: 4096\n  K: 4096\n  M: 1\n  M_END: 512\n  BM: 128\n"
    + HAND_TUNED
    + "- <<: *defaults\n  N: 4096\n  K: 4096\n  M: 512\n  M_END: 65536\n  BM: 256\n"
)

UPDATE = """\
== update: table.yaml ==
manifest      table.yaml
matched by    N, K
range column  M
replaced      1
added         1
unchanged     0
file          {state}

  group          status    before        entries
  N=4096/K=4096  replaced  params[0, 2]  params[0-4]
  N=8192/K=2048  added     -             params[6-12]
"""


@pytest.fixture
def curated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(FIXTURES / "sweep", tmp_path / "sweep")
    (tmp_path / "table.yaml").write_bytes(CURATED.replace("\n", "\r\n").encode())
    monkeypatch.chdir(tmp_path)
    return tmp_path / "table.yaml"


def test_update_replaces_each_group_s_ranges_and_keeps_the_rest(
    curated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, *SWEEP, "--ranges", "M", "--update", "table.yaml")
    assert (code, err) == (0, "updated table.yaml\n")
    assert out.startswith(
        "== ranges: fewest M ranges within 0.03 of each point's best ==\n"
    )
    assert out.endswith(UPDATE.format(state="updated"))
    text = curated.read_bytes().decode()
    assert "\n" not in text.replace("\r\n", "")  # CRLF throughout
    text = text.replace("\r\n", "\n")
    # the curated outer bounds stay: from M 1 (the sweep starts at 16) to 65536
    assert text.startswith(HEAD + "- <<: *defaults\n  N: 4096\n  K: 4096\n  M: 1\n")
    assert "\n" + HAND_TUNED + "- <<: *defaults\n  N: 8192\n" in text
    entries = [dict(e.values) for e in load_manifest(curated).entries]
    assert entries[5] == {
        "BN": 128,
        "SWAP_AB": False,
        "N": 1024,
        "K": 1024,
        "M": 1,
        "M_END": 65536,
        "BM": 64,
    }
    ranged = entries[:5] + entries[6:]
    assert len(entries) == 13
    check_ranges(
        ranged,
        raw_runs(SWEEP),
        groups=["N", "K"],
        configs=["BM", "BN", "SWAP_AB"],
        tol=0.03,
    )
    # again: nothing to change, the file is not rewritten
    before = snapshot(curated.parent)
    code, out, err = run(capsys, *SWEEP, "--ranges", "M", "--update", "table.yaml")
    assert (code, err) == (0, "")
    assert "unchanged     2\nfile          nothing to change: not rewritten\n" in out
    assert snapshot(curated.parent) == before


def test_dry_run_prints_the_diff_and_writes_nothing(
    curated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(curated.parent)
    code, out, err = run(
        capsys, SWEEP[0], "--ranges", "M", "--update", "table.yaml", "--dry-run"
    )
    assert (code, err) == (0, "")
    assert snapshot(curated.parent) == before
    assert "file          dry run: nothing written\n" in out
    diff = out.split("== update: table.yaml: diff (dry run, nothing written) ==\n")[1]
    assert diff.startswith("--- table.yaml\n+++ table.yaml\n@@ -7,17 +7,39 @@\n")
    # the first range keeps the curated start (M: 1), the sweep's own ends at 144
    assert "   M: 1\r\n-  M_END: 512\r\n+  M_END: 144\r\n+  BM: 64\r\n" in diff
    assert "-- <<: *defaults\r\n-  N: 4096\r\n-  K: 4096\r\n-  M: 512\r\n" in diff


def test_group_columns_the_manifest_never_uses_are_not_matched(
    curated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    curated.write_text(CURATED.replace("  K: 4096\n", "").replace("  K: 1024\n", ""))
    code, out, err = run(capsys, SWEEP[0], "--ranges", "M", "--update", "table.yaml")
    assert (code, err) == (0, "updated table.yaml\n")
    assert "matched by    N\n" in out
    assert (
        "not matched by K: constant in the results, but in no entry of the manifest "
        "(-p names the group columns)\n"
    ) in out
    assert len(load_manifest(curated).entries) == 6  # 5 ranges + the hand-tuned one


def test_an_entry_two_groups_match_is_an_error(
    curated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # no entry names N or K, so both groups match every entry with an M
    text = "".join(
        line for line in CURATED.splitlines(True) if line[2:4] not in ("N:", "K:")
    )
    curated.write_text(text)
    before = snapshot(curated.parent)
    assert run(capsys, *SWEEP, "--ranges", "M", "--update", "table.yaml") == (
        2,
        "",
        "table.yaml: error: params[0] matches both N=4096/K=4096 and N=8192/K=2048; "
        "name the columns that tell them apart with -p\n",
    )
    assert snapshot(curated.parent) == before
