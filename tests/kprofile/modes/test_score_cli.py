"""kprofile --score through the real command: each output format pinned, the numbers
against a computation apart (the held-out pair decoded by hand, the dispatch scan
written out), the ranged dispatch of a --ranges table, the shapes counted apart, the
--fail-above gate and every misuse."""

from __future__ import annotations

import json
import math
import shutil
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support import files_in, run, sections
from table_support import (
    HELDOUT,
    HELDOUT_PARAMS,
    HELDOUT_SHAPE,
    brute,
    raw_csv,
    reference,
)

from kprofile.core.score import SCORED
from tuning_codegen.manifest import load_manifest

SCORE_TEXT = """\
== score: table.yaml (each shape's ratio to its best) ==
table                     table.yaml (13 entries)
results                   run_b.pkl
shapes                    13
scored                    12
geomean ratio             1.037
median ratio              1.004
worst ratio               1.157
within 2%                 7 of 12 (58.3%)
within 5%                 9 of 12 (75.0%)
within 10%                10 of 12 (83.3%)
no entry                  0
config failed             0
not measured              1
no successful run         0
shapes by                 M, N, K
metric                    met (ms) (lower is better)
matched on                M, N, K
not matched on            -
overlapping (first wins)  0
ignored keys              -

== score: the 5 worst shapes, highest ratio first ==
     M     N     K  entry   BM   BN  STAGES  SWAP_AB  met (ms)    best  ratio
   384  4096  4096      8  128  128       4  False      0.0926  0.0800  1.157
  2048  8192  2048     12  128  256       3  False       0.280   0.252  1.112
    32  4096  4096      1   64  256       3  True       0.0169  0.0154  1.099
   512  8192  2048     11  256  128       3  False      0.0720  0.0691  1.043
   192  4096  4096      6   64  128       4  False      0.0525  0.0506  1.037

== score: shapes without a ratio (counted apart, never as 1.0) ==
  status        failure   M     N     K  entry  BM  BN  STAGES  SWAP_AB
  not measured  -        96  4096  4096      4  64  64       3  False
"""

SCORE_MARKDOWN = """\
### score: table.yaml (each shape's ratio to its best)

- **table**: table.yaml (13 entries)
- **results**: run_b.pkl
- **shapes**: 13
- **scored**: 12
- **geomean ratio**: 1.037
- **median ratio**: 1.004
- **worst ratio**: 1.157
- **within 2%**: 7 of 12 (58.3%)
- **within 5%**: 9 of 12 (75.0%)
- **within 10%**: 10 of 12 (83.3%)
- **no entry**: 0
- **config failed**: 0
- **not measured**: 1
- **no successful run**: 0
- **shapes by**: M, N, K
- **metric**: met (ms) (lower is better)
- **matched on**: M, N, K
- **not matched on**: -
- **overlapping (first wins)**: 0
- **ignored keys**: -
- **fail above**: 1.05: pass (--allow-failed: 1 of 13 shapes without a ratio: 0 config failed, 1 not measured, 0 no successful run)

### score: the 5 worst shapes, highest ratio first

| M | N | K | entry | BM | BN | STAGES | SWAP_AB | met (ms) | best | ratio |
|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|
| 384 | 4096 | 4096 | 8 | 128 | 128 | 4 | False | 0.0926 | 0.0800 | 1.157 |
| 2048 | 8192 | 2048 | 12 | 128 | 256 | 3 | False | 0.280 | 0.252 | 1.112 |
| 32 | 4096 | 4096 | 1 | 64 | 256 | 3 | True | 0.0169 | 0.0154 | 1.099 |
| 512 | 8192 | 2048 | 11 | 256 | 128 | 3 | False | 0.0720 | 0.0691 | 1.043 |
| 192 | 4096 | 4096 | 6 | 64 | 128 | 4 | False | 0.0525 | 0.0506 | 1.037 |

### score: shapes without a ratio (counted apart, never as 1.0)

| status | failure | M | N | K | entry | BM | BN | STAGES | SWAP_AB |
|---|---|---:|---:|---:|---:|---:|---:|---:|---|
| not measured | - | 96 | 4096 | 4096 | 4 | 64 | 64 | 3 | False |
"""


@pytest.fixture
def heldout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of fixtures/heldout as the working folder."""
    folder = tmp_path / "heldout"
    shutil.copytree(HELDOUT, folder)
    monkeypatch.chdir(folder)
    return folder


def build(capsys: pytest.CaptureFixture[str], *how: str) -> None:
    """``kprofile run_a.pkl HOW...``: a table built from run A alone."""
    code, _, err = run(capsys, "run_a.pkl", *how)
    assert code == 0, err


def entries(path: str) -> list[dict[str, Any]]:
    return [dict(e.values) for e in load_manifest(path).entries]


def expected(table: str, results: str) -> dict[tuple[Any, ...], tuple[str, float]]:
    """Per shape of the run: status and ratio, computed apart from kprofile."""
    return reference(
        raw_csv(HELDOUT / results),
        entries(table),
        False,
        HELDOUT_SHAPE,
        HELDOUT_PARAMS,
        "met (ms)",
    )


def test_score_text(heldout: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build(capsys, "-p", "M,N,K", "-o", "table")
    assert run(capsys, "--score", "table.yaml", "run_b.pkl") == (0, SCORE_TEXT, "")


def test_score_markdown_reads_as_a_pull_request_comment(
    heldout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build(capsys, "-p", "M,N,K", "-o", "table")
    code, out, err = run(
        capsys,
        *("--score", "table.yaml", "run_b.pkl"),
        *("--format", "markdown", "--fail-above", "1.05", "--allow-failed"),
    )
    assert (code, out, err) == (0, SCORE_MARKDOWN, "")


def test_score_json_equals_a_computation_apart(
    heldout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build(capsys, "-p", "M,N,K", "-o", "table")
    code, out, err = run(
        capsys, "--score", "table.yaml", "run_b.pkl", "--format", "json", "-v"
    )
    assert (code, err) == (0, "")
    document = json.loads(out)
    assert document["inputs"] == ["run_b.pkl"] and document["failed"] is None
    found = sections(out)
    assert list(found) == ["score", "score-worst", "score-unscored", "score-shapes"]
    want = expected("table.yaml", "run_b.csv")
    ratios = sorted(r for s, r in want.values() if s == SCORED)
    facts = found["score"]["facts"]
    assert facts["shapes"] == len(want) == 13
    assert facts["scored"] == len(ratios) == 12
    assert facts["geomean ratio"] == pytest.approx(statistics.geometric_mean(ratios))
    assert facts["median ratio"] == pytest.approx(statistics.median(ratios))
    assert facts["worst ratio"] == pytest.approx(ratios[-1])
    for tol in (2, 5, 10):
        count = sum(r <= 1 + tol / 100 for r in ratios)
        assert facts[f"within {tol}%"] == (f"{count} of 12 ({count / 12:.1%})")
    assert facts["not measured"] == 1 and facts["no entry"] == 0
    rows = found["score-shapes"]["rows"]
    seen = {tuple(r[c] for c in HELDOUT_SHAPE): r for r in rows}
    assert seen.keys() == want.keys()
    for key, (status, ratio) in want.items():
        assert seen[key]["status"] == status
        if status == SCORED:
            assert seen[key]["ratio"] == pytest.approx(ratio, rel=1e-12)
        else:
            assert seen[key]["ratio"] is None  # never counted as 1.0
    worst = [r["ratio"] for r in found["score-worst"]["rows"]]
    assert worst == pytest.approx(ratios[::-1][:5])


def test_a_ranges_table_dispatches_each_shape_into_its_range(
    heldout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build(capsys, "--ranges", "M", "-o", "ranged")
    table = entries("ranged.yaml")
    assert all("M_END" in e for e in table)
    code, out, _ = run(
        capsys, "--score", "ranged.yaml", "run_b.pkl", "--format", "json", "-v"
    )
    assert code == 0
    found = sections(out)
    assert found["score"]["facts"]["matched on"] == "M (ranges [M, M_END)), N, K"
    rows = found["score-shapes"]["rows"]
    shapes = [{c: r[c] for c in HELDOUT_SHAPE} for r in rows]
    assert [r["entry"] for r in rows] == brute(table, shapes, HELDOUT_SHAPE)
    # a range holds several M: some entry serves more than one shape
    assert len({r["entry"] for r in rows}) < len(rows)
    want = expected("ranged.yaml", "run_b.csv")
    for row in rows:
        status, ratio = want[tuple(row[c] for c in HELDOUT_SHAPE)]
        assert row["status"] == status
        assert (
            math.isnan(ratio)
            if row["ratio"] is None
            else row["ratio"] == (pytest.approx(ratio, rel=1e-12))
        )


def test_shapes_no_entry_covers_and_configs_never_measured_are_counted_apart(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    kb_write: Callable[..., Path],
) -> None:
    rows = [
        {"M": m, "BM": bm, "met (ms)": met}
        for m, bm, met in [
            (1, 64, 1.0), (1, 128, 1.1),
            (2, 64, 2.0), (2, 128, 2.2),
            (3, 64, 3.0), (3, 128, 0.0),
            (4, 64, 4.0),
        ]
    ]  # fmt: skip
    results = kb_write("r.pkl", rows)
    table = tmp_path / "t.yaml"
    table.write_text(
        "params:\n"
        "- {M: 1, BM: 128, note: a}\n"  # scored, 1.1
        "- {M: 1, BM: 64}\n"  # overlaps the first entry: never taken
        "- {M: 2, BM: 64}\n"  # scored, 1.0
        "- {M: 3, BM: 128}\n"  # its run failed there: config failed
        "- {M: 5, BM: 64}\n"  # no such shape
    )
    code, out, err = run(
        capsys, "--score", str(table), str(results), "-p", "M", "--format", "json"
    )
    assert (code, err) == (0, "")
    found = sections(out)
    facts = found["score"]["facts"]
    assert (facts["shapes"], facts["scored"]) == (4, 2)
    assert (facts["no entry"], facts["config failed"], facts["not measured"]) == (
        1,
        1,
        0,
    )
    assert facts["geomean ratio"] == pytest.approx(math.sqrt(1.1))
    assert facts["overlapping (first wins)"] == 1
    assert facts["ignored keys"] == "note"
    assert [
        (r["status"], r["M"], r["entry"]) for r in found["score-unscored"]["rows"]
    ] == [
        ("config failed", 3, 3),
        ("no entry", 4, None),  # no entry: null, as its parameters
    ]
    assert found["score-unscored"]["rows"][1]["BM"] is None


def test_fail_above_gates_on_the_geomean(
    heldout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With --allow-failed (run B's one crashed shape aside), the geomean decides."""
    build(capsys, "-p", "M,N,K", "-o", "table")
    code, out, _ = run(capsys, "--score", "table.yaml", "run_b.pkl", "--format", "json")
    geomean = sections(out)["score"]["facts"]["geomean ratio"]
    above = f"{geomean * 0.999:.6f}"
    code, out, err = run(
        capsys, "--score", "table.yaml", "run_b.pkl", "--fail-above", above,
        "--allow-failed",
    )  # fmt: skip
    assert code == 1
    assert out.startswith("== score: table.yaml")  # the report is printed all the same
    limit = f"{float(above):g}"
    assert f"fail above                {limit}: fail (the geomean ratio" in out
    assert err == (
        f"kprofile: fail: the geomean ratio {geomean:.6g} is above --fail-above "
        f"{limit}\n"
    )
    below = f"{geomean * 1.001:.6f}"
    code, _, err = run(
        capsys, "--score", "table.yaml", "run_b.pkl", "--fail-above", below,
        "--allow-failed",
    )  # fmt: skip
    assert (code, err) == (0, "")


def test_fail_above_fails_a_table_that_scores_no_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kb_write: Callable[..., Path]
) -> None:
    results = kb_write("r.pkl", [{"M": 1, "BM": 64, "met (ms)": 1.0}])
    table = tmp_path / "t.yaml"
    table.write_text("params:\n- {M: 2, BM: 64}\n")
    code, out, err = run(
        capsys, "--score", str(table), str(results), "-p", "M", "--fail-above", "2"
    )
    assert code == 1
    assert "geomean ratio             -" in out
    assert err == "kprofile: fail: no shape was scored, so --fail-above 2 cannot pass\n"


def test_a_table_without_shape_keys_is_said_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kb_write: Callable[..., Path]
) -> None:
    results = kb_write(
        "r.pkl",
        [{"M": 1, "BM": 64, "met (ms)": 1.0}, {"M": 2, "BM": 64, "met (ms)": 2.0}],
    )
    table = tmp_path / "t.yaml"
    table.write_text("params:\n- {BM: 64}\n")
    code, out, err = run(capsys, "--score", str(table), str(results), "-p", "M")
    assert code == 0
    assert "geomean ratio             1.000" in out
    assert err == (
        f"{table}: warning: no entry has a shape column (M); the first entry serves "
        "every shape\n"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("params: [", "t.yaml:2: error: "),
        ("params:\n- {M: 1, M_END: x, BM: 64}\n", "t.yaml:2: error: params[0]: the "
         "range [M, M_END) must have numbers at both ends, got [1, x)"),
        ("params:\n- {M: 1, BM: 64}\n- {M_END: 4, BM: 128}\n", "t.yaml:3: error: "
         "params[1] has M_END but no M: a range needs both ends"),
        ("params:\n- {M_END: 4, BM: 64}\n", "t.yaml:2: error: params[0] has M_END but "
         "no M: a range needs both ends"),
        ("name: x\n", "t.yaml:1: error: no 'params' key"),
    ],
)  # fmt: skip
def test_a_bad_table_is_one_line_and_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    kb_write: Callable[..., Path],
    text: str,
    message: str,
) -> None:
    results = kb_write("r.pkl", [{"M": 1, "BM": 64, "met (ms)": 1.0}])
    (tmp_path / "t.yaml").write_text(text)
    code, out, err = run(
        capsys, "--score", str(tmp_path / "t.yaml"), str(results), "-p", "M"
    )
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith(f"{tmp_path}/{message}"), err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--score", "missing.yaml", "run_b.pkl"], "missing.yaml: error: no such file"),
        (["--score", "t.yaml", "--fail-above", "0.9", "run_b.pkl"],
         "kprofile: error: --fail-above: expected a ratio of 1.0 or more (1.05: 5% "
         "above the best), got '0.9'; did you mean 1.9 (90% above the best)?"),
        (["--score", "t.yaml", "--fail-above", "nan", "run_b.pkl"],
         "kprofile: error: --fail-above: expected a ratio of 1.0 or more (1.05: 5% "
         "above the best), got 'nan'"),
        (["--score", "t.yaml", "-o", "x", "run_b.pkl"],
         "kprofile: error: -o writes a manifest of selected entries; --score selects "
         "none"),
        (["--score", "t.yaml"], "kprofile: error: no input files; see kprofile --help"),
        (["--score", "t.yaml", "spec.yaml"],
         "spec.yaml: error: this is a manifest or spec (YAML), which holds no "
         "measurements; pass kbench results (.pkl/.csv), or --merge to join YAMLs"),
    ],
)  # fmt: skip
def test_misuse_is_one_line_and_exit_2(
    heldout: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    (heldout / "t.yaml").write_text("params:\n- {M: 1}\n")
    before = files_in(heldout)
    assert run(capsys, *args) == (2, "", message + "\n")
    assert files_in(heldout) == before


def test_a_range_past_2_to_the_53_dispatches_the_entry_that_holds_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kb_write: Callable[..., Path]
) -> None:
    """A float64 holds 2**53 but not 2**53 + 1 or + 3: compared as floats, the
    first range [2**53 + 1, 2**53 + 3) became [2**53, 2**53 + 4) and took the shape
    M = 2**53 (BM=128, ratio 2.000) from its own range (BM=64, 1.000)."""
    big = 2**53
    results = kb_write(
        "r.pkl",
        [{"M": big, "BM": 64, "met (ms)": 1.0}, {"M": big, "BM": 128, "met (ms)": 2.0}],
    )
    (tmp_path / "t.yaml").write_text(
        f"params:\n- {{M: {big + 1}, M_END: {big + 3}, BM: 128}}\n"
        f"- {{M: {big}, M_END: {big + 1}, BM: 64}}\n"
    )
    code, out, err = run(
        capsys, "--score", str(tmp_path / "t.yaml"), str(results), "-p", "M",
        "--format", "json", "-v",
    )  # fmt: skip
    assert (code, err) == (0, "")
    (shape,) = sections(out)["score-shapes"]["rows"]
    assert (shape["M"], shape["entry"], shape["ratio"]) == (big, 1, 1.0)


@pytest.mark.parametrize(("low", "high"), [(512, 16), (64, 64)])
def test_an_empty_range_is_refused_at_its_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    kb_write: Callable[..., Path],
    low: int,
    high: int,
) -> None:
    """Before: accepted silently, covering nothing."""
    results = kb_write("r.pkl", [{"M": 16, "BM": 64, "met (ms)": 1.0}])
    table = tmp_path / "t.yaml"
    table.write_text(
        "params:\n- M: 1\n  M_END: 16\n  BM: 64\n"
        f"- M: {low}\n  M_END: {high}\n  BM: 128\n"
    )
    code, out, err = run(capsys, "--score", str(table), str(results), "-p", "M")
    assert (code, out) == (2, "")
    assert err == (
        f"{table}:5: error: params[1]: the range [M, M_END) = [{low}, {high}) is "
        "empty: M_END must be above M\n"
    )
