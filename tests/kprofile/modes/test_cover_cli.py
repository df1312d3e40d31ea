"""kprofile --cover end to end on real files: checked with pandas, formats, files."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from support import METRIC, PARAMS, RUN1, SHAPES, results_of, run, sections

from tuning_codegen.manifest import load_manifest

pytestmark = pytest.mark.slow  # HiGHS solves through the command

COVER_01 = """\
== cover: fewest configs within 0.1 of each shape's best ==
method             exact (no smaller table exists)
configs            2
one per shape      3
shapes             3
own config         0
no successful run  0
tol                0.1 (ratio <= 1.1)
shapes by          M, N, K
metric             met (ms) (lower is better)

  config   BM   BN  STAGES  CLUSTER  SWAP_AB  SCHEDULE     shapes
       0  128  256       4        1  False    ws_pingpong       2
       1   64   64       4        1  True     default           1

== cover: the config of each shape, its loss against the shape's best ==
     M      N     K  config  met (ms)    best  ratio    loss
   256  20480  5376       0     0.327   0.307  1.063  0.0632
  4096   4096  4096       0     0.498   0.498  1.000   0.000
     8   7168  2048       1    0.0962  0.0962  1.000   0.000

== cover: shapes that share no config: their own best, or none ==
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
    unshared = found["cover-unshared"]
    assert unshared["columns"] == ["M", "N", "K", "reason", "config", "best"]
    alone = "needs a config of its own: no config within tol serves another shape"
    assert [(r["M"], r["config"], r["reason"]) for r in unshared["rows"]] == [
        (256, 0, alone),
        (4096, 1, alone),
        (8, 2, alone),
    ]
    raw = results_of(*RUN1)
    ran = raw[raw[METRIC] > 0]
    assert [r["best"] for r in unshared["rows"]] == [
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
    assert not covered_by_fewer(frame, tol, len(chosen))


def covered_by_fewer(frame: pd.DataFrame, tol: float, size: int) -> bool:
    """Brute force over the configs: does some set of size - 1 cover every shape?"""
    covers = frame[frame["ratio"] <= 1 + tol].groupby(["BM", "BN", "STAGES"])["M"]
    return any(
        frozenset().union(*combo) == frozenset(frame["M"])
        for combo in itertools.combinations(covers.agg(frozenset), size - 1)
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
    for view in ("cover", "cover-assignment", "cover-unshared"):
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
            "cover-unshared",
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
