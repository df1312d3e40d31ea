"""kprofile --update, --cover and --importance end to end on real files: output, exit codes,
files written (and not written), results checked against pandas directly."""

from __future__ import annotations

import difflib
import itertools
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from hooks.manifest import load_manifest
from kprofile.cli import main

FIXTURES = Path(__file__).parents[2] / "fixtures"
RESULTS = FIXTURES / "results"
MANIFEST = FIXTURES / "update" / "tuning_table_bench_matmul.yaml"
SHAPES = ["M256_N20480_K5376", "M4096_N4096_K4096", "M8_N7168_K2048"]
PARAMS = ["BM", "BN", "STAGES", "CLUSTER", "SWAP_AB", "SCHEDULE"]
METRIC = "met (ms)"


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of fixtures/results as the working directory, with the curated manifest as table.yaml."""
    folder = tmp_path / "demo"
    shutil.copytree(RESULTS, folder)
    shutil.copyfile(MANIFEST, folder / "table.yaml")
    monkeypatch.chdir(folder)
    return folder


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file with its bytes and modification time (ns)."""
    return {
        str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in folder.rglob("*")
        if p.is_file()
    }


def results_of(*paths: str) -> pd.DataFrame:
    """The raw merged_df of each pickle, parameters decoded from the spec by hand (as strings)."""
    frames = []
    for path in paths:
        raw = pd.read_pickle(path)["merged_df"]
        params = pd.DataFrame(
            [
                dict(t.lstrip("$").split("=") for t in spec.split("/")[1:])
                for spec in raw["spec"]
            ]
        )
        frames.append(pd.concat([params, raw[[METRIC]]], axis=1))
    return pd.concat(frames, ignore_index=True)


def section(out: str, title: str) -> str:
    """One plain-text section (from its title line to the next section)."""
    start = out.index(f"== {title} ==\n")
    end = out.find("\n\n== ", start)
    return out[start:] if end < 0 else out[start : end + 1]


def sections(out: str) -> dict[str, dict[str, Any]]:
    return {s["view"]: s for s in json.loads(out)["sections"]}


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

RUN2 = [f"run2/{s}.pkl" for s in SHAPES]


# ------------------------------------------------------------------ --update


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
    assert [s["view"] for s in document["sections"]] == ["summary"] * 3 + [
        "update",
        "update-diff",
    ]
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


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["run2/M4096_N4096_K4096.pkl", "-p", "N,K", "--update", "table.yaml"],
            "table.yaml:38: error: params[1] and params[2] both match N=4096/K=4096; add a pivot that tells them apart",
        ),
        (
            [
                "run1/M256_N20480_K5376.pkl",
                "run2/M256_N20480_K5376.pkl",
                "--update",
                "table.yaml",
            ],
            "table.yaml: error: selections 1 and 2 are both for shape M=256/N=20480/K=5376",
        ),
        (
            ["run2/M8_N7168_K2048.pkl", "--update", "missing.yaml"],
            "missing.yaml: error: --update: no such manifest; --update changes an existing one (-o PATH writes a new one)",
        ),
        (
            ["run2/M8_N7168_K2048.pkl", "--update", "run1"],
            "run1: error: is a directory, expected a file",
        ),
        (
            ["run2/M8_N7168_K2048.pkl", "--update", "run1/M8_N7168_K2048.pkl"],
            "run1/M8_N7168_K2048.pkl:1: error: not valid UTF-8 (byte 0x80 at offset 0)",
        ),
        (
            ["run2/M8_N7168_K2048.pkl", "--update", "table.yaml", "-o", "x"],
            "kprofile: error: --update and -o both write a manifest; pass one of them",
        ),
        (
            [
                "-d",
                "run1/M8_N7168_K2048.pkl",
                "run2/M8_N7168_K2048.pkl",
                "--update",
                "table.yaml",
            ],
            "kprofile: error: --update works per result file; it cannot be combined with --diff",
        ),
        (
            ["--merge", "tuning_sm100.yaml", "--update", "table.yaml"],
            "kprofile: error: --update works per result file; it cannot be combined with --merge",
        ),
        (
            ["-c", "run1/M8_N7168_K2048.pkl", "--update", "table.yaml"],
            "kprofile: error: --update works per result file; it cannot be combined with --correlation",
        ),
        (
            ["run1/M8_N7168_K2048.pkl", "--cover", "0.1", "--update", "table.yaml"],
            "kprofile: error: --update works per result file; it cannot be combined with --cover",
        ),
        (
            ["run1/M8_N7168_K2048.pkl", "--head", "3", "--update", "table.yaml"],
            "kprofile: error: --update takes one config per shape (the best, or the common config of --top/--within); --head selects several",
        ),
        (
            [
                "run1/M8_N7168_K2048.pkl",
                "-t",
                "0.1",
                "--within",
                "0.02",
                "--update",
                "table.yaml",
            ],
            "kprofile: error: --update: --top and --within choose different configs; pass one of them",
        ),
        (
            ["run1/M8_N7168_K2048.pkl", "--dry-run"],
            "kprofile: error: --dry-run only applies to --update",
        ),
        (
            ["run1/M8_N7168_K2048.pkl", "--cover", "-0.1"],
            "kprofile: error: --cover: expected a non-negative fraction, got '-0.1'",
        ),
        (
            ["run1/M8_N7168_K2048.pkl", "--cover", "two"],
            "kprofile: error: --cover: expected a fraction like 0.05 or 5%, got 'two'",
        ),
        (
            ["run1/M8_N7168_K2048.pkl", "--cover", "inf"],
            "kprofile: error: --cover: expected a non-negative fraction, got 'inf'",
        ),
        (
            ["run1/M8_N7168_K2048.pkl", "--cover"],
            "kprofile: error: Option '--cover' requires an argument.",
        ),
        (
            ["run1/M8_N7168_K2048.pkl", "--cover", "0.1", "--importance"],
            "kprofile: error: --cover and --importance cannot be combined",
        ),
        (
            ["run1/M8_N7168_K2048.pkl", "--cover", "0.1", "-d"],
            "kprofile: error: --diff and --cover cannot be combined",
        ),
        (
            ["run1/M8_N7168_K2048.pkl", "--cover", "0.1", "--head", "2"],
            "kprofile: error: --head is a per-file view; it cannot be combined with --cover",
        ),
        (
            ["run1/M8_N7168_K2048.pkl", "--cover", "0.1", "-p", "Q"],
            "kprofile: error: --cover: unknown column(s) 'Q'; available: mesh_idx, name, met (ms), iters, Arithmetic (GFLOPS/s), "
            "DataMovement (GB/s), spec, kbench_filter, BM, BN, STAGES, CLUSTER, SWAP_AB, SCHEDULE, M, N, K",
        ),
        (
            ["run1/M8_N7168_K2048.pkl", "--importance", "-o", "x"],
            "kprofile: error: -o writes a manifest of selected entries; --importance selects none",
        ),
        (
            ["run1/M8_N7168_K2048.pkl", "--plot", "charts"],
            "kprofile: error: --plot only applies to --importance",
        ),
        (
            ["run1/M8_N7168_K2048.pkl", "--importance", "-p", "M,SPLIT"],
            "kprofile: error: --importance: unknown column(s) 'SPLIT'; available: mesh_idx, name, met (ms), iters, Arithmetic (GFLOPS/s), "
            "DataMovement (GB/s), spec, kbench_filter, BM, BN, STAGES, CLUSTER, SWAP_AB, SCHEDULE, M, N, K",
        ),
    ],
)
def test_misuse_is_one_line_and_exit_2(
    demo: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    before = snapshot(demo)
    assert run(capsys, *args) == (2, "", message + "\n")
    assert snapshot(demo) == before


@pytest.mark.parametrize("view", ["--cover", "--importance"])
def test_analysis_without_a_successful_run_is_one_line(
    tmp_path: Path,
    kb_write: Callable[..., Path],
    capsys: pytest.CaptureFixture[str],
    view: str,
) -> None:
    path = kb_write(
        "failed.pkl",
        [{"M": 8, "BM": 64, "met (ms)": 0.0}, {"M": 8, "BM": 128, "met (ms)": -1.0}],
    )
    args = [view, "0.02"] if view == "--cover" else [view]
    assert run(capsys, str(path), *args) == (
        2,
        "",
        f"kprofile: error: {view}: no successful run: every 'met (ms)' value is 0, negative or missing\n",
    )


# ------------------------------------------------------------------ --cover

RUN1 = [f"run1/{s}.pkl" for s in SHAPES]

COVER_01 = """\
== cover: fewest configs within 0.1 of each shape's best ==
method         exact (no smaller table exists)
configs        2
one per shape  3
shapes         3
uncovered      0
tol            0.1 (ratio <= 1.1)
shapes by      M, N, K
metric         met (ms) (lower is better)

  config   BM   BN  STAGES  CLUSTER  SWAP_AB  SCHEDULE     shapes
       0  128  256       4        1  False    ws_pingpong       2
       1   64   64       4        1  True     default           1

== cover: the config of each shape, its loss against the shape's best ==
     M      N     K  config  met (ms)   best  ratio   loss
   256  20480  5376       0     0.327  0.307  1.063  0.063
  4096   4096  4096       0     0.498  0.498  1.000  0.000
     8   7168  2048       1     0.096  0.096  1.000  0.000

== cover: shapes with a config of their own, or none ==
  M  N  K  reason  config  best
  (no entries)
"""


def test_cover_table_within_tol_and_minimal_checked_with_pandas(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, *RUN1, "--cover", "0.1", "-o", "cover")
    assert (code, out, err) == (0, COVER_01, "wrote cover.yaml (3 entries)\n")
    raw = results_of(*RUN1)
    ran = raw[raw[METRIC] > 0].assign(
        shape=lambda f: f["M"] + "/" + f["N"] + "/" + f["K"]
    )
    best = ran.groupby("shape")[METRIC].min()
    ratio = ran[METRIC] / ran["shape"].map(best)
    entries = [dict(e.values) for e in load_manifest("cover.yaml").entries]
    assert [(e["M"], e["N"], e["K"]) for e in entries] == [
        (256, 20480, 5376),
        (4096, 4096, 4096),
        (8, 7168, 2048),
    ]
    configs = {tuple(str(e[p]) for p in PARAMS) for e in entries}
    assert len(configs) == 2 <= len(SHAPES)
    for entry in entries:
        hit = ran[
            (ran["M"] == str(entry["M"]))
            & np.logical_and.reduce([ran[p] == str(entry[p]) for p in PARAMS])
        ]
        assert len(hit) == 1 and ratio[hit.index[0]] <= 1.1
    # no single config is within 10% of the best on every shape, so 2 is the minimum
    within = ran[ratio <= 1.1]
    assert within.groupby(PARAMS)["shape"].nunique().max() < len(SHAPES)


def test_cover_reports_shapes_that_need_their_own_config(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, *RUN1, "--cover", "2%", "--format", "json")
    found = sections(out)
    assert code == 0
    assert (
        found["cover"]["facts"]["configs"]
        == 3
        == found["cover"]["facts"]["one per shape"]
    )
    uncovered = found["cover-uncovered"]
    assert uncovered["columns"] == ["M", "N", "K", "reason", "config", "best"]
    assert [(r["M"], r["config"], r["reason"]) for r in uncovered["rows"]] == [
        (
            256,
            0,
            "needs a config of its own: no config within tol serves another shape",
        ),
        (
            4096,
            1,
            "needs a config of its own: no config within tol serves another shape",
        ),
        (8, 2, "needs a config of its own: no config within tol serves another shape"),
    ]
    raw = results_of(*RUN1)
    ran = raw[raw[METRIC] > 0]
    assert [r["best"] for r in uncovered["rows"]] == [
        ran[ran["M"] == m][METRIC].min() for m in ("256", "4096", "8")
    ]


def grid_rows() -> list[dict[str, Any]]:
    """6 shapes x 12 configs, throughput (higher is better): small M likes small tiles."""
    rows = []
    for m, bm, bn, stages in itertools.product(
        [16, 64, 256, 1024, 4096, 8192], [64, 128], [128, 256], [3, 4, 5]
    ):
        want_bm, want_bn = (64 if m <= 256 else 128), (128 if m <= 1024 else 256)
        penalty = (
            0.015 * (bm != want_bm)
            + 0.04 * (bn != want_bn)
            + 0.01 * abs(stages - 4) * (m > 256)
        )
        rows.append(
            {
                "M": m,
                "N": 4096,
                "BM": bm,
                "BN": bn,
                "STAGES": stages,
                "throughput (GElems/s)": round(1000 / (1 + penalty), 3),
            }
        )
    return rows


@pytest.mark.parametrize("tol", [0.0, 0.01, 0.02, 0.05])
def test_cover_over_files_of_one_shape_each_higher_is_better(
    tmp_path: Path,
    kb_write: Callable[..., Path],
    capsys: pytest.CaptureFixture[str],
    tol: float,
) -> None:
    rows = grid_rows()
    paths = [
        str(
            kb_write(
                f"M{m}.pkl",
                [r for r in rows if r["M"] == m],
                metric="throughput (GElems/s)",
            )
        )
        for m in sorted({r["M"] for r in rows})
    ]
    code, out, _ = run(
        capsys, *paths, "-m", "throughput", "--cover", str(tol), "--format", "json"
    )
    assert code == 0
    found = sections(out)
    frame = pd.DataFrame(rows)
    frame["ratio"] = (
        frame.groupby("M")["throughput (GElems/s)"].transform("max")
        / frame["throughput (GElems/s)"]
    )
    chosen = pd.DataFrame(found["cover"]["rows"])
    per_shape = pd.DataFrame(found["cover-assignment"]["rows"])
    assert list(per_shape["M"]) == [16, 64, 256, 1024, 4096, 8192]
    given = per_shape.merge(chosen, on="config").merge(
        frame, on=["M", "N", "BM", "BN", "STAGES"]
    )
    assert len(given) == 6
    assert (given["ratio_y"] <= 1 + tol).all()
    assert np.allclose(given["ratio_x"], given["ratio_y"]) and np.allclose(
        given["loss"], given["ratio_y"] - 1
    )
    baseline = frame.loc[
        frame.groupby("M")["ratio"].idxmin(), ["BM", "BN", "STAGES"]
    ].drop_duplicates()
    assert len(chosen) <= len(baseline) == found["cover"]["facts"]["one per shape"]
    # minimal: no smaller set of configs covers every shape (brute force over the 12 configs)
    covers = (
        frame[frame["ratio"] <= 1 + tol]
        .groupby(["BM", "BN", "STAGES"])["M"]
        .agg(frozenset)
    )
    assert not any(
        frozenset().union(*combo) == frozenset(frame["M"])
        for combo in itertools.combinations(covers, len(chosen) - 1)
    )


def test_cover_splits_one_file_by_its_runtime_parameters(
    tmp_path: Path, kb_write: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """One CSV with every shape (kbench marks the sizes $M, $N): the same answer as one file per shape."""
    rows = grid_rows()
    per_shape = [
        str(
            kb_write(
                f"M{m}.pkl",
                [r for r in rows if r["M"] == m],
                metric="throughput (GElems/s)",
            )
        )
        for m in sorted({r["M"] for r in rows})
    ]
    runtime = [
        {("$" + k if k in ("M", "N") else k): v for k, v in r.items()} for r in rows
    ]
    one = kb_write("all.csv", runtime, metric="throughput (GElems/s)")
    _, split, _ = run(
        capsys, *per_shape, "-m", "throughput", "--cover", "0.02", "--format", "json"
    )
    _, whole, _ = run(
        capsys, str(one), "-m", "throughput", "--cover", "0.02", "--format", "json"
    )
    assert sections(whole)["cover"]["facts"]["shapes by"] == "M, N"
    assert sections(whole)["cover"]["facts"]["shapes"] == 6
    for view in ("cover", "cover-assignment", "cover-uncovered"):
        assert sections(whole)[view]["rows"] == sections(split)[view]["rows"]


@pytest.mark.parametrize("fmt", ["markdown", "json"])
def test_cover_formats(
    demo: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    code, out, _ = run(capsys, *RUN1, "--cover", "0.1", "--format", fmt)
    assert code == 0
    if fmt == "json":
        document = json.loads(out)
        assert [s["view"] for s in document["sections"]] == [
            "cover",
            "cover-assignment",
            "cover-uncovered",
        ]
        assert (
            document["sections"][0]["facts"]["method"]
            == "exact (no smaller table exists)"
        )
        first = document["sections"][1]["rows"][0]
        assert list(first) == [
            "M",
            "N",
            "K",
            "config",
            "met (ms)",
            "best",
            "ratio",
            "loss",
        ]
        assert (first["M"], first["config"]) == (256, 0)
        assert (
            first["ratio"]
            == pytest.approx(first["met (ms)"] / first["best"])
            == pytest.approx(first["loss"] + 1)
        )
        assert document["sections"][2]["rows"] == [] and document["written"] == []
    else:
        assert out.startswith(
            "### cover: fewest configs within 0.1 of each shape's best\n\n- **method**: exact (no smaller table exists)\n"
        )
        assert (
            "| config | BM | BN | STAGES | CLUSTER | SWAP_AB | SCHEDULE | shapes |\n|---:|---:|---:|---:|---:|---|---|---:|\n| 0 | 128 | 256 | 4 | 1 | False | ws_pingpong | 2 |\n"
            in out
        )


# ------------------------------------------------------------------ --importance


def test_importance_ranks_parameters_as_pandas_computes_them(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, *RUN1, "--importance", "--format", "json")
    assert code == 0
    found = sections(out)
    raw = results_of(*RUN1)
    ran = raw[raw[METRIC] > 0].assign(
        shape=lambda f: f["M"] + "/" + f["N"] + "/" + f["K"]
    )
    ran = ran.assign(ratio=ran[METRIC] / ran.groupby("shape")[METRIC].transform("min"))
    rows = found["importance-values"]["rows"]
    assert len(rows) == sum(ran[p].nunique() for p in PARAMS)
    for row in rows:
        reach = (
            ran[ran[row["param"]] == str(row["value"])].groupby("shape")["ratio"].min()
        )
        assert row["worst"] == pytest.approx(reach.max())
        assert row["geomean"] == pytest.approx(float(np.exp(np.log(reach).mean())))
        assert row["shapes"] == len(reach) == 3
    cost = {p: max(r["worst"] for r in rows if r["param"] == p) for p in PARAMS}
    ranked = found["importance"]["rows"]
    assert [r["param"] for r in ranked] == sorted(PARAMS, key=lambda p: -cost[p])
    assert [r["rank"] for r in ranked] == [1, 2, 3, 4, 5, 6]
    assert all(r["cost"] == pytest.approx(cost[r["param"]]) for r in ranked)


IMPORTANCE = """\
== importance: which parameters matter (met (ms)) ==
shapes     3
shapes by  M, N, K
metric     met (ms) (lower is better)
cost       best ratio still reachable on the worst shape, with the parameter at its worst value

  rank  param      cost  best value  worst value  values
     1  BN        3.443  64          256               3
     2  BM        2.929  64          256               3
     3  SWAP_AB   1.144  True        False             2
     4  STAGES    1.121  4           3                 3
     5  CLUSTER   1.080  1           2                 2
     6  SCHEDULE  1.053  default     ws_pingpong       2
"""


def test_importance_table_and_plots(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, *RUN1, "--importance", "--plot", "charts")
    names = [
        "importance.png",
        *(
            f"importance-{p}.png"
            for p in ("BN", "BM", "SWAP_AB", "STAGES", "CLUSTER", "SCHEDULE")
        ),
    ]
    assert (code, err) == (0, "")
    assert out.startswith(
        IMPORTANCE
        + "".join(f"wrote charts/{n}\n" for n in names)
        + "\n== importance: best ratio reachable"
    )
    assert (
        "     4  STAGES    1.121  4            1.000    1.000       3             3\n"
        in out
    )
    assert sorted(os.listdir("charts")) == sorted(names)
    for name in names:
        assert Path("charts", name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, out, _ = run(
        capsys, *RUN1, "--importance", "--plot", "charts2", "--format", "json"
    )
    assert json.loads(out)["written"] == [f"charts2/{n}" for n in names]


def test_importance_markdown(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *RUN1, "--importance", "--format", "markdown")
    assert code == 0
    assert out.startswith(
        "### importance: which parameters matter (met (ms))\n\n- **shapes**: 3\n"
    )
    assert (
        "| rank | param | cost | best value | worst value | values |\n|---:|---|---:|---|---|---:|\n| 1 | BN | 3.443 | 64 | 256 | 3 |\n"
        in out
    )
    assert (
        "### importance: best ratio reachable with the parameter fixed to each value\n\n| rank | param | cost | value | worst | geomean | shapes | shapes_total |\n"
        in out
    )
    assert not Path("importance.png").exists()


def test_cover_and_importance_keep_integer_parameters_missing_from_some_files(
    tmp_path: Path, kb_write: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    a = kb_write(
        "a.pkl",
        [{"M": 8, "BM": 64, "met (ms)": 1.0}, {"M": 8, "BM": 128, "met (ms)": 1.5}],
    )
    b = kb_write(
        "b.pkl",
        [
            {"M": 64, "BM": 64, "SPLIT_K": 2, "met (ms)": 2.0},
            {"M": 64, "BM": 64, "SPLIT_K": 4, "met (ms)": 1.0},
        ],
    )
    code, _, err = run(
        capsys, str(a), str(b), "--cover", "0", "-o", str(tmp_path / "t")
    )
    assert (code, err) == (0, f"wrote {tmp_path / 't.yaml'} (2 entries)\n")
    assert [dict(e.values) for e in load_manifest(tmp_path / "t.yaml").entries] == [
        {"M": 8, "BM": 64},
        {"M": 64, "BM": 64, "SPLIT_K": 4},
    ]
    assert "SPLIT_K: 4\n" in (tmp_path / "t.yaml").read_text()
    code, out, _ = run(capsys, str(a), str(b), "--importance", "--format", "json")
    values = [
        (r["param"], r["value"], r["shapes"])
        for r in sections(out)["importance-values"]["rows"]
    ]
    assert sorted(values, key=str) == sorted(
        [
            ("BM", 64, 2),
            ("BM", 128, 1),
            ("SPLIT_K", 2, 1),
            ("SPLIT_K", 4, 1),
            ("SPLIT_K", None, 1),
        ],
        key=str,
    )


def test_rich_prints_data_as_written_not_as_markup() -> None:
    import io

    from kprofile.output import render_rich
    from kprofile.report import Section

    stream = io.StringIO()
    diff = "--- t.yaml\n+++ t.yaml\n@@ -1 +1 @@\n-params: [{M: 8}]\n+params: [{M: 8, BM: 64}]\n"
    table = pd.DataFrame({"[@M]": ["[bold]x"]})
    render_rich(
        [
            Section(
                "update-diff",
                "t.yaml [M=8]",
                None,
                (("k", "[1, 2]"),),
                table,
                notes=(diff,),
            )
        ],
        stream,
    )
    text = stream.getvalue()
    for shown in ("t.yaml [M=8]", "[1, 2]", "[@M]", "[bold]x", diff.rstrip("\n")):
        assert shown in text


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
    retuned = kb_write(
        "M8192.pkl", example_rows(8192, 20480, 5376, {"CLUSTER_N": 2, "STAGES": 4})
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
        "M2048.pkl", example_rows(2048, 1024, 64, {"MMA_N": 128, "BLOCK_K": 32})
    )
    assert run(capsys, str(fresh), "--update", str(manifest))[0] == 0
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
