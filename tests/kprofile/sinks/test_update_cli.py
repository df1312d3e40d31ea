"""kprofile --update end to end on real files: the edits, the summary, --dry-run, exit codes."""

from __future__ import annotations

import difflib
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support import (
    FIXTURES,
    MANIFEST,
    METRIC,
    PARAMS,
    RUN2,
    results_of,
    run,
    section,
    sections,
    snapshot,
)

from tuning_codegen.manifest import load_manifest

ORIGINAL = MANIFEST.read_text()


# What run2's best configs make of the curated manifest, written out by hand: two entries
# change in place (CLUSTER: 2 is the run2 value and not the default, so it is added), M=8
# is appended after the last entry, before the closing comment. Nothing else moves.
RUN2_EDITS = [
    (
        "    BM: 128\n    BN: 128\n    CLUSTER: 2 ",
        "    BM: 256\n    BN: 64\n    CLUSTER: 2 ",
    ),
    (
        "    K: 4096\n    BM: 128\n    BN: 256\n\n  # Tuned",
        "    K: 4096\n    BM: 256\n    BN: 128\n    CLUSTER: 2\n\n  # Tuned",
    ),
    (
        "    STAGES: 5\n\n# TODO",
        "    STAGES: 5\n\n  - <<: *defaults\n    M: 8\n    N: 7168\n    K: 2048\n    BM: 64\n    BN: 64\n    SWAP_AB: true\n\n# TODO",
    ),
]


def edited(text: str, edits: list[tuple[str, str]]) -> str:
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


RUN2_UPDATE = """\
== update: table.yaml ==
manifest    table.yaml
matched by  M, N, K
added       1
changed     2
unchanged   0
file        {state}

  shape                 status   entry  changes
  M=256/N=20480/K=5376  changed      0  BM: 128 -> 256, BN: 128 -> 64
  M=4096/N=4096/K=4096  changed      1  BM: 128 -> 256, BN: 256 -> 128, CLUSTER: 1 -> 2
  M=8/N=7168/K=2048     added        3  BM=64, BN=64, STAGES=4, CLUSTER=1, SWAP_AB=true, SCHEDULE=ws_pingpong
"""


def test_update_changes_matching_entries_in_place_and_appends_a_new_shape(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, *RUN2, "--update", "table.yaml")
    assert (code, err) == (0, "updated table.yaml\n")
    assert section(out, "update: table.yaml") == RUN2_UPDATE.format(state="updated")
    assert Path("table.yaml").read_text() == edited(ORIGINAL, RUN2_EDITS)
    # every entry holds the best config of its shape, as pandas finds it
    entries = {
        (e.values["M"], e.values["N"], e.values["K"]): e.values
        for e in load_manifest("table.yaml").entries
    }
    for path in RUN2:
        raw = results_of(path)
        best = raw.loc[raw[METRIC].where(raw[METRIC] > 0).idxmin()]
        entry = entries[(int(best["M"]), int(best["N"]), int(best["K"]))]
        assert {k: str(entry[k]) for k in PARAMS} == {k: best[k] for k in PARAMS}
    assert (
        entries[(1024, 4096, 4096)]["STAGES"] == 5
    )  # the hand-tuned entry is untouched


def test_update_only_touches_the_matching_entry_lines(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "run2/M256_N20480_K5376.pkl", "--update", "table.yaml")[0] == 0
    new = Path("table.yaml").read_text().splitlines(keepends=True)
    old = ORIGINAL.splitlines(keepends=True)
    changed = [
        (tag, i1, i2)
        for tag, i1, i2, _, _ in difflib.SequenceMatcher(a=old, b=new).get_opcodes()
        if tag != "equal"
    ]
    assert changed == [
        ("replace", 24, 26)
    ]  # "BM: 128" and "BN: 128" of params[0], nothing else
    assert new[24:26] == ["    BM: 256\n", "    BN: 64\n"]


def test_update_appends_a_new_shape_and_changes_nothing_else(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        capsys, "run1/M8_N7168_K2048.pkl", "--update", "table.yaml", "--format", "json"
    )
    assert (code, err) == (0, "updated table.yaml\n")
    update = sections(out)["update"]
    assert update["facts"] == {
        "manifest": "table.yaml",
        "matched by": "M, N, K",
        "added": 1,
        "changed": 0,
        "unchanged": 0,
        "file": "updated",
    }
    assert update["rows"] == [
        {
            "shape": "M=8/N=7168/K=2048",
            "status": "added",
            "entry": 3,
            "changes": "BM=64, BN=64, STAGES=4, CLUSTER=1, SWAP_AB=true, SCHEDULE=default",
        }
    ]
    assert json.loads(out)["written"] == ["table.yaml"]
    head, tail = ORIGINAL.split("\n# TODO")
    appended = "  - <<: *defaults\n    M: 8\n    N: 7168\n    K: 2048\n    BM: 64\n    BN: 64\n    SWAP_AB: true\n    SCHEDULE: 'default'\n\n"
    assert Path("table.yaml").read_text() == head + "\n" + appended + "# TODO" + tail


def test_dry_run_prints_the_diff_and_writes_nothing(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(demo)
    code, out, err = run(capsys, *RUN2, "--update", "table.yaml", "--dry-run")
    assert (code, err) == (0, "")
    assert snapshot(demo) == before
    diff = "".join(
        difflib.unified_diff(
            ORIGINAL.splitlines(True),
            edited(ORIGINAL, RUN2_EDITS).splitlines(True),
            "table.yaml",
            "table.yaml",
        )
    )
    assert out.endswith(
        RUN2_UPDATE.format(state="dry run: nothing written")
        + "\n== update: table.yaml: diff (dry run, nothing written) ==\n"
        + diff
    )


def test_dry_run_json_and_markdown_carry_the_diff(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(demo)
    code, out, _ = run(
        capsys, *RUN2, "--update", "table.yaml", "--dry-run", "--format", "json"
    )
    document = json.loads(out)
    diff = "".join(
        difflib.unified_diff(
            ORIGINAL.splitlines(True),
            edited(ORIGINAL, RUN2_EDITS).splitlines(True),
            "table.yaml",
            "table.yaml",
        )
    )
    assert code == 0 and document["written"] == []
    assert [s["view"] for s in document["sections"]] == ["update", "update-diff"]
    assert sections(out)["update-diff"]["notes"] == [diff]
    assert [r["status"] for r in sections(out)["update"]["rows"]] == [
        "changed",
        "changed",
        "added",
    ]
    code, out, _ = run(
        capsys, *RUN2, "--update", "table.yaml", "--dry-run", "--format", "markdown"
    )
    assert code == 0
    assert "### update: table.yaml\n\n- **manifest**: table.yaml\n" in out
    assert (
        "| shape | status | entry | changes |\n|---|---|---:|---|\n| M=256/N=20480/K=5376 | changed | 0 | BM: 128 -> 256, BN: 128 -> 64 |\n"
        in out
    )
    assert out.endswith(
        "### update: table.yaml: diff (dry run, nothing written)\n\n```diff\n"
        + diff
        + "```\n"
    )
    assert snapshot(demo) == before


def test_update_with_nothing_to_change_leaves_bytes_and_mtime_alone(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.utime("table.yaml", ns=(1_000_000_000, 1_000_000_000))
    before = snapshot(demo)
    code, out, err = run(
        capsys,
        "run1/M256_N20480_K5376.pkl",
        "run1/M4096_N4096_K4096.pkl",
        "--update",
        "table.yaml",
    )
    assert (code, err) == (0, "")
    assert section(out, "update: table.yaml").endswith(
        "added       0\nchanged     0\nunchanged   2\nfile        nothing to change: not rewritten\n\n"
        "  shape                 status     entry  changes\n"
        "  M=256/N=20480/K=5376  unchanged      0\n"
        "  M=4096/N=4096/K=4096  unchanged      1\n"
    )
    assert snapshot(demo) == before
    code, out, _ = run(
        capsys,
        "run1/M256_N20480_K5376.pkl",
        "--update",
        "table.yaml",
        "--dry-run",
        "--format",
        "json",
    )
    assert sections(out)["update"]["facts"]["file"] == "dry run: nothing would change"
    assert "update-diff" not in sections(out)
    assert snapshot(demo) == before


def test_update_with_within_puts_the_common_config(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, _ = run(
        capsys,
        "run1/M256_N20480_K5376.pkl",
        "--within",
        "0.02",
        "--update",
        "table.yaml",
    )
    assert code == 0
    raw = results_of("run1/M256_N20480_K5376.pkl")
    ran = raw[raw[METRIC] > 0]
    band = ran[ran[METRIC] <= ran[METRIC].min() * 1.02]
    assert len(band) == 3
    modes = {
        p: band[p].value_counts(sort=True).index[0] for p in PARAMS
    }  # each mode has 2 of 3 votes or all 3
    entry = load_manifest("table.yaml").entries[0].values
    assert (entry["M"], entry["N"], entry["K"]) == (256, 20480, 5376)
    assert {p: str(entry[p]) for p in PARAMS} == modes


def test_update_by_explicit_pivots_groups_one_file(
    tmp_path: Path, kb_write: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        {"M": m, "BM": b, "met (ms)": t}
        for m, ts in ((64, (2.0, 1.0)), (8, (0.5, 3.0)))
        for b, t in zip((64, 128), ts)
    ]
    results = kb_write("multi.pkl", rows)
    manifest = tmp_path / "m.yaml"
    manifest.write_text("params:\n- M: 8   # decode\n  BM: 128\n")
    code, out, err = run(capsys, str(results), "-p", "M", "--update", str(manifest))
    assert (code, err) == (0, f"updated {manifest}\n")
    assert (
        manifest.read_text()
        == "params:\n- M: 8   # decode\n  BM: 64\n- M: 64\n  BM: 128\n"
    )


def test_update_leaves_out_a_file_where_every_run_failed(
    tmp_path: Path, kb_write: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    good = kb_write(
        "good.pkl",
        [{"M": 8, "BM": 64, "met (ms)": 1.0}, {"M": 8, "BM": 128, "met (ms)": 2.0}],
    )
    failed = kb_write(
        "failed.pkl",
        [{"M": 16, "BM": 64, "met (ms)": 0.0}, {"M": 16, "BM": 128, "met (ms)": 0.0}],
    )
    manifest = tmp_path / "m.yaml"
    manifest.write_text("params:\n- M: 8\n  BM: 128\n")
    code, _, err = run(
        capsys, str(good), str(failed), "-p", "M", "--update", str(manifest)
    )
    assert (code, err) == (
        0,
        f"{failed} [M=16]: no successful run; left out of --update\nupdated {manifest}\n",
    )
    assert manifest.read_text() == "params:\n- M: 8\n  BM: 64\n"
    assert run(capsys, str(failed), "-p", "M", "--update", str(manifest)) == (
        2,
        "",
        f"{manifest}: error: --update: no config to put in (no successful run in any input)\n",
    )


EXAMPLE = FIXTURES / "update" / "tuning_table_example.yaml"


EXAMPLE_KEYS = (
    "MMA_M",
    "MMA_N",
    "BLOCK_K",
    "CLUSTER_M",
    "CLUSTER_N",
    "STAGES",
    "SWAP_AB",
    "K_GROUP_SIZE",
    "SCHEDULE",
)


def example_rows(m: int, n: int, k: int, best: dict[str, Any]) -> list[dict[str, Any]]:
    """A sweep of one shape over two values of every parameter, ``dtype`` constant; ``best`` is the fastest row."""
    base = {
        "MMA_M": 256,
        "MMA_N": 256,
        "BLOCK_K": 64,
        "CLUSTER_M": 2,
        "SWAP_AB": False,
        "K_GROUP_SIZE": 1,
        "SCHEDULE": "default",
    }
    other = {
        "MMA_M": 128,
        "MMA_N": 64,
        "BLOCK_K": 128,
        "CLUSTER_M": 1,
        "SWAP_AB": True,
        "K_GROUP_SIZE": 2,
        "SCHEDULE": "ds_scheduler",
    }
    rows = [
        {
            "M": m,
            "N": n,
            "K": k,
            "dtype": "bfloat16",
            **config,
            "CLUSTER_N": c,
            "STAGES": s,
            "met (ms)": 2.0 + s + c,
        }
        for config in (base, other)
        for s in (3, 4, 5)
        for c in (1, 2)
    ]
    rows.append(
        {"M": m, "N": n, "K": k, "dtype": "bfloat16", **base, **best, "met (ms)": 1.0}
    )
    return rows


def changed_lines(old: str, new: str) -> list[tuple[str, int, int, list[str]]]:
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    return [
        (tag, i1, i2, b[j1:j2])
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
            a=a, b=b, autojunk=False
        ).get_opcodes()
        if tag != "equal"
    ]


def test_update_on_a_hand_curated_table_touches_one_entry_and_appends_only(
    tmp_path: Path, kb_write: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = tmp_path / "tuning_table.yaml"
    shutil.copyfile(EXAMPLE, manifest)
    old = EXAMPLE.read_text()
    # params[4] (M=8192, N=20480) sets CLUSTER_N: 2 and STAGES: 3; the sweep's best keeps CLUSTER_N 2, STAGES 4 (the default)
    retuned = kb_write(  # a re-run of the table as kbench's spec: its name
        "M8192.pkl",
        example_rows(8192, 20480, 5376, {"CLUSTER_N": 2, "STAGES": 4}),
        name="tuning_table_sm100_bf16",
    )
    code, out, _ = run(
        capsys, str(retuned), "--update", str(manifest), "--format", "json"
    )
    assert code == 0
    update = sections(out)["update"]
    assert update["facts"]["matched by"] == "M, N, K"
    assert update["notes"] == [
        "not matched by dtype: constant in the results, but in no entry of the manifest (-p names the shape columns)"
    ]
    assert [(r["status"], r["entry"]) for r in update["rows"]] == [("changed", 4)]
    new = manifest.read_text()
    start = (
        old.splitlines().index("    M: 8192") - 1
    )  # "  - <<: *defaults" of params[4]
    # STAGES: 3 goes (4 is the default), the result's dtype is added after the entry's last key
    assert old.splitlines()[start + 5] == "    STAGES: 3"
    assert changed_lines(old, new) == [
        ("replace", start + 5, start + 6, ["    dtype: bfloat16\n"])
    ]
    # a shape the table does not have: appended after the last entry, nothing else moves
    shutil.copyfile(EXAMPLE, manifest)
    fresh = kb_write(
        "M2048.pkl",
        example_rows(2048, 1024, 64, {"MMA_N": 128, "BLOCK_K": 32}),
        name="tuning_table_sm100_bf16",
    )
    code, _, err = run(capsys, str(fresh), "--update", str(manifest))
    assert code == 0, err
    last = old.rindex("K_GROUP_SIZE: 2\n") + len(
        "K_GROUP_SIZE: 2\n"
    )  # end of the last entry
    appended = "\n  - <<: *defaults\n    M: 2048\n    N: 1024\n    K: 64\n    dtype: bfloat16\n    MMA_N: 128\n    BLOCK_K: 32\n"
    assert manifest.read_text() == old[:last] + appended + old[last:]
    entries = [dict(e.values) for e in load_manifest(manifest).entries]
    assert entries[-1] == {
        "MMA_M": 256,
        "MMA_N": 128,
        "BLOCK_K": 32,
        "CLUSTER_M": 2,
        "CLUSTER_N": 1,
        "STAGES": 4,
        "SWAP_AB": False,
        "K_GROUP_SIZE": 1,
        "SCHEDULE": "default",
        "M": 2048,
        "N": 1024,
        "K": 64,
        "dtype": "bfloat16",
    }


def large_table(count: int) -> str:
    """The curated table's style with ``count`` entries: M = 16, 32, ... (M=256 is
    params[15]), N=20480, K=5376, every entry with its own BM and BN."""
    head = ORIGINAL[: ORIGINAL.index("params:\n") + len("params:\n")]
    entries = [
        f"  - <<: *defaults\n    M: {16 * (i + 1)}\n    N: 20480\n    K: 5376\n"
        "    BM: 128\n    BN: 128\n"
        for i in range(count)
    ]
    return head + "\n".join(entries) + "\n# the end\n"


def test_update_of_a_large_table_edits_one_entry_and_appends_one(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = large_table(3000)
    Path("big.yaml").write_text(old)
    shapes = ["run2/M256_N20480_K5376.pkl", "run2/M8_N7168_K2048.pkl"]
    code, out, err = run(capsys, *shapes, "--update", "big.yaml", "--format", "json")
    assert (code, err) == (0, "updated big.yaml\n")
    rows = sections(out)["update"]["rows"]
    assert [(r["shape"], r["status"], r["entry"]) for r in rows] == [
        ("M=256/N=20480/K=5376", "changed", 15),
        ("M=8/N=7168/K=2048", "added", 3000),
    ]
    entry = "    M: 256\n    N: 20480\n    K: 5376\n    BM: 128\n    BN: 128\n"
    retuned = "    M: 256\n    N: 20480\n    K: 5376\n    BM: 256\n    BN: 64\n"
    appended = (
        "\n  - <<: *defaults\n    M: 8\n    N: 7168\n    K: 2048\n    BM: 64\n"
        "    BN: 64\n    SWAP_AB: true\n"
    )
    head, tail = old.replace(entry, retuned + "    CLUSTER: 2\n").split("\n# the end")
    assert Path("big.yaml").read_text() == head + appended + "\n# the end" + tail


def test_update_reports_first_and_the_summaries_only_with_verbose(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The change is what --update is run for: its report opens the output; the
    per-file summaries (one per input) follow only with -v."""
    code, out, err = run(capsys, *RUN2, "--update", "table.yaml", "--dry-run")
    assert code == 0 and err == ""
    assert out.startswith("== update: table.yaml ==\nmanifest    table.yaml\n")
    assert "== run2/" not in out
    code, out, err = run(capsys, *RUN2, "--update", "table.yaml", "--dry-run", "-v")
    titles = [line for line in out.splitlines() if line.startswith("== ")]
    assert code == 0 and titles == [
        "== update: table.yaml ==",
        "== update: table.yaml: diff (dry run, nothing written) ==",
        *(f"== {path} ==" for path in RUN2),
        "== shapes: the best config of each (met (ms)) ==",
    ]


def test_a_shape_where_every_run_failed_is_named_by_its_whole_problem(
    tmp_path: Path, kb_write: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """K is one value in the whole file, so nothing groups by it; the note names it
    all the same, as the shape it is (M=8/N=128/K=32, not M=8/N=128)."""
    rows = [
        {"$M": 8, "N": n, "K": 32, "BM": bm, "met (ms)": met}
        for n, mets in ((64, (1.0, 2.0)), (128, (0.0, 0.0)))
        for bm, met in zip((64, 128), mets)
    ]
    results = kb_write("two.pkl", rows)
    manifest = tmp_path / "m.yaml"
    manifest.write_text("params:\n- {M: 8, N: 64, K: 32, BM: 128}\n")
    code, _, err = run(capsys, str(results), "--update", str(manifest))
    assert code == 0, err
    assert err.splitlines()[0] == (
        f"{results} [M=8/N=128/K=32]: no successful run; left out of --update"
    )
    assert manifest.read_text() == "params:\n- {M: 8, N: 64, K: 32, BM: 64}\n"
