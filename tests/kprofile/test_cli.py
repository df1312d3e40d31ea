"""The kprofile command end to end on real files: output, exit codes, files written."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from support import RESULTS, SHAPES, files_in, run

from kprofile.core.kendall import kendall_tau_b
from tuning_codegen.manifest import load_manifest

SUMMARY = """\
== run1/M4096_N4096_K4096.pkl ==
entries         192
failed          4
best mesh_idx   129
worst met (ms)  0.927
best met (ms)   0.498
worst/best      1.864
shape           M=4096/N=4096/K=4096

  parameter  value
  BM         128
  BN         256
  STAGES     4
  CLUSTER    1
  SWAP_AB    False
  SCHEDULE   ws_pingpong
best spec: bench_matmul/BM=128/BN=256/STAGES=4/CLUSTER=1/SWAP_AB=False/SCHEDULE=ws_pingpong/$M=4096/$N=4096/$K=4096
"""


def test_default_view_and_nothing_written(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = files_in(demo)
    assert run(capsys, "run1/M4096_N4096_K4096.pkl") == (0, SUMMARY, "")
    assert files_in(demo) == before


def test_csv_input_gives_the_same_analysis_rows_named_by_line(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The CSV is the pickle's table without mesh_idx: the same analysis, but a row
    is named by its line in the CSV (mesh_idx 109 is on line 111, after the header
    and counting from 1), never by a made-up mesh_idx."""
    csv = "run1/M256_N20480_K5376.csv"
    _, from_pickle, _ = run(capsys, "run1/M256_N20480_K5376.pkl", "-t", "0.1")
    _, from_csv, _ = run(capsys, csv, "-t", "0.1")
    assert "best mesh_idx   109\n" in from_pickle
    assert "measured       mesh_idx 105, ratio 1.041\n" in from_pickle
    assert from_csv == (
        from_pickle.replace(".pkl", ".csv")
        .replace("best mesh_idx   109\n", f"best row        {csv}:111\n")
        .replace("measured       mesh_idx 105,", f"measured       {csv}:107,")
    )
    assert "mesh_idx" not in from_csv
    line = Path(csv).read_text().splitlines()[111 - 1]
    spec = pd.read_pickle("run1/M256_N20480_K5376.pkl")["merged_df"]["spec"][109]
    assert f",{spec}," in line
    code, out, _ = run(capsys, csv, "--head", "2")
    assert code == 0
    assert (
        "  line   BM   BN  STAGES  CLUSTER  SWAP_AB  SCHEDULE     met (ms)  ratio\n"
        "*  111  128  128       4        2  False    ws_pingpong     0.307  1.000\n"
        "    11   64   64       4        1  False    ws_pingpong     0.308  1.000\n"
    ) in out


def test_head_marks_the_best_and_tail_lists_the_worst(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys, "run1/M4096_N4096_K4096.pkl", "--head", "2", "--tail", "2"
    )
    assert code == 0
    assert (
        "== run1/M4096_N4096_K4096.pkl: best 2 ==\n"
        "  mesh_idx   BM   BN  STAGES  CLUSTER  SWAP_AB  SCHEDULE     met (ms)  ratio\n"
        "*      129  128  256       4        1  False    ws_pingpong     0.498  1.000\n"
        "       137  128  256       5        1  False    ws_pingpong     0.509  1.024\n"
    ) in out
    assert (
        "== run1/M4096_N4096_K4096.pkl: worst 2 ==\n"
        "  mesh_idx  BM  BN  STAGES  CLUSTER  SWAP_AB  SCHEDULE  met (ms)  ratio\n"
        "         6  64  64       3        2  True     default      0.900  1.809\n"
        "         4  64  64       3        2  False    default      0.927  1.864\n"
    ) in out


def test_ratio_table_lists_every_entry_failed_last(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "run1/M8_N7168_K2048.pkl", "-r", "--format", "json")
    assert code == 0
    section = next(s for s in json.loads(out)["sections"] if s["view"] == "ratio")
    rows = section["rows"]
    assert len(rows) == 192
    assert rows[0]["ratio"] == 1.0 and section["highlight"] == [0]
    ratios = [r["ratio"] for r in rows]
    assert ratios[-4:] == [None] * 4
    assert ratios[:-4] == sorted(ratios[:-4])
    raw = pd.read_pickle(RESULTS / "run1" / "M8_N7168_K2048.pkl")["merged_df"]
    ran = raw[raw["met (ms)"] > 0]
    expected = (ran["met (ms)"] / ran["met (ms)"].min()).sort_values(kind="stable")
    assert np.allclose(ratios[:-4], expected.to_numpy())


def test_write_selection_writes_the_rows_of_top_fraction(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        capsys,
        "run1/M256_N20480_K5376.pkl",
        "--top-fraction",
        "5%",
        "-v",
        "-o",
        "top5",
        "--write-selection",
    )
    assert code == 0
    assert (
        "== run1/M256_N20480_K5376.pkl: top fraction 0.05 (5% of ranked entries) =="
        in out
    )
    assert "== run1/M256_N20480_K5376.pkl: top-fraction subset ==" in out
    assert err == "wrote top5.yaml (9 entries)\n"  # floor(0.05 x 188 that ran)
    raw = pd.read_pickle("run1/M256_N20480_K5376.pkl")["merged_df"]
    ran = raw[raw["met (ms)"] > 0].sort_values("met (ms)", kind="stable")
    chosen = sorted(ran.index[:9])
    entries = [dict(e.values) for e in load_manifest("top5.yaml").entries]
    specs = [
        dict(t.lstrip("$").split("=") for t in raw["spec"][i].split("/")[1:])
        for i in chosen
    ]
    assert [{k: str(v) for k, v in e.items()} for e in entries] == specs


def _spec_table(path: str) -> pd.DataFrame:
    """The pickle's rows with every spec parameter as a string column (by hand)."""
    raw = pd.read_pickle(path)["merged_df"]
    params = pd.DataFrame(
        [dict(t.lstrip("$").split("=") for t in s.split("/")[1:]) for s in raw["spec"]],
        index=raw.index,
    )
    return params.join(raw["met (ms)"])


def _most_frequent(column: pd.Series) -> str:
    """The most frequent value; ties go to the value seen first (best rank first)."""
    counts = column.value_counts()
    tied = set(counts[counts == counts.max()].index)
    return str(next(v for v in column if v in tied))


@pytest.mark.parametrize("fraction", ["0.05", "0.2"])
def test_top_fraction_writes_each_files_common_config_as_pandas_computes_it(
    demo: Path, capsys: pytest.CaptureFixture[str], fraction: str
) -> None:
    files = [f"run1/{s}.pkl" for s in SHAPES]
    code, _, err = run(capsys, *files, "--top-fraction", fraction, "-o", "common")
    assert code == 0
    entries = [dict(e.values) for e in load_manifest("common.yaml").entries]
    assert len(entries) == len(files)
    notes = err.splitlines()
    for path, entry, note in zip(files, entries, notes):
        table = _spec_table(path)
        ran = table[table["met (ms)"] > 0].sort_values("met (ms)", kind="stable")
        top = ran.iloc[: max(1, int(float(fraction) * len(ran)))]
        expected = {
            p: _most_frequent(top[p]) if table[p].nunique() > 1 else table[p].iloc[0]
            for p in table.columns.drop("met (ms)")
        }
        assert {k: str(v) for k, v in entry.items()} == expected
        match = ran[(ran.drop(columns="met (ms)") == pd.Series(expected)).all(axis=1)]
        if match.empty:
            assert note == (
                f"{path}: warning: the common config was never benchmarked; "
                "-o writes it unmeasured"
            )
        else:
            ratio = match["met (ms)"].min() / ran["met (ms)"].min()
            if ratio > 1.10:  # far from the best: a warning says how far
                assert note.startswith(
                    f"{path}: warning: the common config is {ratio:.3f}x the best "
                )
            else:
                assert note == (
                    f"{path}: the common config was measured: ratio {ratio:.3f}"
                )
    assert notes[len(files)] == "wrote common.yaml (3 entries)"


def test_head_alone_does_not_change_what_o_writes(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [f"run1/{s}.pkl" for s in SHAPES]
    assert run(capsys, *files, "-o", "best")[0] == 0
    assert run(capsys, *files, "--head", "5", "-o", "head")[0] == 0
    best, head = Path("best.yaml").read_text(), Path("head.yaml").read_text()
    assert best == head and best.count("- <<: *defaults") == 3


def test_manifest_of_the_best_entry_per_file(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, *[f"run1/{s}.pkl" for s in SHAPES], "-o", "best.yaml")
    assert (code, err) == (0, "wrote best.yaml (3 entries)\n")
    text = Path("best.yaml").read_text()
    assert text.startswith(
        "# Generated by kprofile from:\n#   run1/M256_N20480_K5376.pkl (git 3f9c2a1d8e7b, 2025-03-04 10:15:00)\n"
    )
    assert "name: bench_matmul\nfile: bench_matmul.mojo\ndefaults: &defaults\n" in text
    entries = [dict(e.values) for e in load_manifest("best.yaml").entries]
    for shape, entry in zip(SHAPES, entries):
        raw = pd.read_pickle(f"run1/{shape}.pkl")["merged_df"]
        ran = raw[raw["met (ms)"] > 0]
        best_spec = ran["spec"][ran["met (ms)"].idxmin()]
        assert best_spec.endswith(f"/$M={entry['M']}/$N={entry['N']}/$K={entry['K']}")
        assert f"/SWAP_AB={entry['SWAP_AB']}/" in best_spec and isinstance(
            entry["SWAP_AB"], bool
        )
        assert f"/BM={entry['BM']}/" in best_spec and isinstance(entry["BM"], int)
    first = text
    assert run(capsys, *[f"run1/{s}.pkl" for s in SHAPES], "-o", "best.yaml")[0] == 0
    assert Path("best.yaml").read_text() == first


def test_diff_table_and_csvs(
    demo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    code, out, err = run(
        capsys,
        "-d",
        *[f"run1/{s}.pkl" for s in SHAPES],
        *[f"run2/{s}.pkl" for s in SHAPES],
        "--out-dir",
        str(out_dir),
        "--format",
        "json",
    )
    assert (code, err) == (0, "")
    document = json.loads(out)
    *rows, geomean = document["sections"][0]["rows"]
    assert [r["file"] for r in rows] == [
        f"{run}/{s}.pkl" + (" (baseline)" if run == "run1" else "")
        for s in SHAPES
        for run in ("run1", "run2")
    ]
    ratios = []
    for shape in SHAPES:
        best = {
            run: pd.read_pickle(f"{run}/{shape}.pkl")["merged_df"]["met (ms)"]
            .replace(0, np.nan)
            .min()
            for run in ("run1", "run2")
        }
        row = next(r for r in rows if r["file"] == f"run2/{shape}.pkl")
        assert row["ratio"] == pytest.approx(best["run2"] / best["run1"])
        ratios.append(best["run2"] / best["run1"])
    assert (geomean["shape"], geomean["file"]) == ("geomean", "3 files")
    assert geomean["ratio"] == pytest.approx(np.exp(np.log(ratios).mean()))
    assert sorted(os.listdir(out_dir)) == [
        "M=256_N=20480_K=5376.csv",
        "M=4096_N=4096_K=4096.csv",
        "M=8_N=7168_K=2048.csv",
    ]
    assert document["written"] == [
        str(out_dir / n)
        for n in (
            "M=256_N=20480_K=5376.csv",
            "M=4096_N=4096_K=4096.csv",
            "M=8_N=7168_K=2048.csv",
        )
    ]
    table = pd.read_csv(out_dir / "M=256_N=20480_K=5376.csv")
    assert list(table.columns) == [
        "BM",
        "BN",
        "STAGES",
        "CLUSTER",
        "SWAP_AB",
        "SCHEDULE",
        "met (ms) [run1/M256_N20480_K5376.pkl]",
        "met (ms) [run2/M256_N20480_K5376.pkl]",
        "ratio [run2/M256_N20480_K5376.pkl]",
    ]
    assert len(table) == 192
    both = table.dropna()
    assert np.allclose(both.iloc[:, 8], both.iloc[:, 7] / both.iloc[:, 6], rtol=1e-5)


def test_merge_query_sort_and_manifest(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        capsys,
        "--merge",
        "tuning_sm100.yaml",
        "splitk_sm100.yaml",
        "--sort-pivots",
        "[M]",
        "--query",
        "K < 5000",
        "-o",
        "merged",
    )
    assert code == 0, err
    assert out == (
        "== merge: tuning_sm100.yaml, splitk_sm100.yaml ==\n"
        "inputs  2\n"
        "pivots  M, N, K\n"
        "rows    3\n"
        "\n"
        "     M     N     K  STAGES  SCHEDULE      BM   BN  CLUSTER  SWAP_AB  SPLIT_K\n"
        "     8  7168  2048       4  ws_pingpong  256   64        1  True           4\n"
        "    64  7168  2048       -  -              -    -        -  -              2\n"
        "  4096  4096  4096       4  ws_pingpong  128  256        2  False          -\n"
    )
    entries = [dict(e.values) for e in load_manifest("merged.yaml").entries]
    assert entries == [
        {
            "M": 8,
            "N": 7168,
            "K": 2048,
            "STAGES": 4,
            "SCHEDULE": "ws_pingpong",
            "BM": 256,
            "BN": 64,
            "CLUSTER": 1,
            "SWAP_AB": True,
            "SPLIT_K": 4,
        },
        {"M": 64, "N": 7168, "K": 2048, "SPLIT_K": 2},
        {
            "M": 4096,
            "N": 4096,
            "K": 4096,
            "STAGES": 4,
            "SCHEDULE": "ws_pingpong",
            "BM": 128,
            "BN": 256,
            "CLUSTER": 2,
            "SWAP_AB": False,
        },
    ]


def test_merge_with_an_empty_result_is_an_error(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(
        capsys,
        "--merge",
        "tuning_sm100.yaml",
        "splitk_sm100.yaml",
        "--query",
        "M > 10**6",
        "-o",
        "x",
    ) == (
        2,
        "",
        "kprofile: error: --merge: the result is empty after --query 'M > 10**6'\n",
    )
    assert not Path("x.yaml").exists()


def test_correlation_table_matrix_and_png(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [f"run1/{s}.pkl" for s in SHAPES]
    code, out, _ = run(capsys, "-c", *files, "--format", "json")
    assert code == 0 and json.loads(out)["written"] == []
    assert not Path("correlation.png").exists()  # only where --out-dir says
    code, out, _ = run(capsys, "-c", *files, "--out-dir", "new", "--format", "json")
    assert code == 0 and json.loads(out)["written"] == ["new/correlation.png"]
    assert Path("new/correlation.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    ranking = json.loads(out)["sections"][0]["rows"]
    taus = [abs(r["kendall tau"]) for r in ranking]
    assert taus == sorted(taus, reverse=True)
    frames = [pd.read_pickle(f"run1/{s}.pkl")["merged_df"] for s in SHAPES]
    raw = pd.concat(frames, keys=range(len(SHAPES))).reset_index(level=0)
    raw = raw[raw["met (ms)"] > 0]
    # each run's ratio to its own shape's best (one file per shape)
    ratio = raw["met (ms)"] / raw.groupby("level_0")["met (ms)"].transform("min")
    bm = raw["spec"].str.extract(r"/BM=(\d+)/")[0].astype(float).to_numpy()
    expected = kendall_tau_b(bm, ratio.to_numpy())
    assert next(
        r["kendall tau"] for r in ranking if r["parameter"] == "BM"
    ) == pytest.approx(expected)


def test_group_by_pivots_in_one_file(
    tmp_path: Path, kb_write: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        {"M": m, "BM": b, "met (ms)": t}
        for m, ts in ((64, (2.0, 1.0)), (8, (0.5, 3.0)))
        for b, t in zip((64, 128), ts)
    ]
    path = kb_write("multi.pkl", rows)
    code, out, _ = run(capsys, str(path), "-p", "M", "--format", "json")
    sections = json.loads(out)["sections"][:-1]
    assert code == 0
    assert [s["title"] for s in sections] == [f"{path} [M=64]", f"{path} [M=8]"]
    assert [s["facts"]["best mesh_idx"] for s in sections] == [1, 2]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "kprofile: error: no input files; see kprofile --help"),
        (
            ["run1/M8_N7168_K2048.pkl", "-m", "nope"],
            "kprofile: error: no column matches metric 'nope'; numeric columns: "
            "met (ms), iters, Arithmetic (GFLOPS/s), DataMovement (GB/s), BM, BN, "
            "STAGES, CLUSTER, M, N, K",
        ),
        (
            ["run1/M8_N7168_K2048.pkl", "-t", "2"],
            "kprofile: error: --top: expected a fraction in (0, 1] like 0.05 or 5%, got '2'; "
            "did you mean 2%?",
        ),
        (
            ["run1/M8_N7168_K2048.pkl", "--within", "x"],
            "kprofile: error: --within: expected a fraction like 0.05 or 5%, got 'x'",
        ),
        (
            ["run1/M8_N7168_K2048.pkl", "--head", "0"],
            "kprofile: error: --head: expected a positive number of entries, got 0",
        ),
        (
            ["-p", "M,,N", "a.pkl"],
            "kprofile: error: -p/--pivots: empty column name in 'M,,N'",
        ),
        (
            ["-d", "run1/M8_N7168_K2048.pkl"],
            "kprofile: error: --diff needs a baseline and at least one more file",
        ),
        (
            ["run1/M8_N7168_K2048.pkl", "--query", "open('x')"],
            "run1/M8_N7168_K2048.pkl: error: --query: call is not allowed in \"open('x')\" (only names, literals, arithmetic, comparisons, and/or/not)",
        ),
        (
            ["bench_matmul.yaml"],
            "bench_matmul.yaml: error: this is a manifest or spec (YAML), which holds no "
            "measurements; pass kbench results (.pkl/.csv), or --merge to join YAMLs",
        ),
        (
            ["run1/M8_N7168_K2048.pkl", "--bogus"],
            "kprofile: error: No such option '--bogus'. Did you mean '--verbose'?",
        ),
    ],
)
def test_user_errors(
    demo: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    before = files_in(demo)
    assert run(capsys, *args) == (2, "", message + "\n")
    assert files_in(demo) == before


def test_unusable_files_are_skipped_and_counted(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("broken.csv").write_bytes(b"\xff\xfe\x00garbage")
    Path("empty.pkl").write_bytes(b"")
    code, out, err = run(
        capsys,
        "missing.pkl",
        "broken.csv",
        "empty.pkl",
        "notes.txt",
        "run1/M8_N7168_K2048.pkl",
    )
    assert code == 0
    assert out.startswith("== run1/M8_N7168_K2048.pkl ==\n")
    lines = err.splitlines()
    assert lines[0] == "Invalid pkl [missing.pkl]: no such file"
    assert lines[1].startswith("Invalid csv [broken.csv]: ")
    assert lines[2] == "Invalid pkl [empty.pkl]: not a valid pickle (Ran out of input)"
    assert (
        lines[3]
        == "Invalid input [notes.txt]: unknown file type '.txt'; expected .pkl, .csv or .yaml"
    )
    assert lines[4] == "kprofile: skipped 4 of 5 input files"


def test_no_usable_input_exits_2(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "missing.pkl", "gone.csv") == (
        2,
        "",
        "Invalid pkl [missing.pkl]: no such file\nInvalid csv [gone.csv]: no such file\nkprofile: error: no usable input (2 files skipped)\n",
    )


def test_pickle_without_merged_df_is_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import pickle

    path = tmp_path / "nothing_ran.pkl"
    path.write_bytes(pickle.dumps({"build_df": pd.DataFrame({"a": [1]}), "name": "x"}))
    assert run(capsys, str(path)) == (
        2,
        "",
        f"Invalid pkl [{path}]: no 'merged_df' (kbench writes none when nothing ran)\n"
        "kprofile: error: no usable input (1 file skipped)\n",
    )


def test_higher_is_better_metric_by_prefix(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys, "run1/M8_N7168_K2048.pkl", "-m", "arith", "--format", "json"
    )
    document = json.loads(out)
    assert document["metric"] == {
        "column": "Arithmetic (GFLOPS/s)",
        "higher_is_better": True,
    }
    raw = pd.read_pickle("run1/M8_N7168_K2048.pkl")["merged_df"]
    assert document["sections"][0]["facts"]["best mesh_idx"] == int(
        raw["Arithmetic (GFLOPS/s)"].idxmax()
    )
    code, out, _ = run(
        capsys,
        "run1/M8_N7168_K2048.pkl",
        "-m",
        "arith",
        "--lower-is-better",
        "--format",
        "json",
    )
    ran = raw[raw["Arithmetic (GFLOPS/s)"] > 0]
    assert json.loads(out)["sections"][0]["facts"]["best mesh_idx"] == int(
        ran["Arithmetic (GFLOPS/s)"].idxmin()
    )


def test_query_filters_result_rows(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys,
        "run1/M8_N7168_K2048.pkl",
        "--query",
        "BM >= 128 and not SWAP_AB",
        "-r",
        "--format",
        "json",
    )
    rows = next(s for s in json.loads(out)["sections"] if s["view"] == "ratio")["rows"]
    raw = pd.read_pickle("run1/M8_N7168_K2048.pkl")["merged_df"]
    expected = raw["spec"].str.contains("/BM=(?:128|256)/.*SWAP_AB=False", regex=True)
    assert (
        code == 0
        and len(rows) == int(expected.sum())
        and all(r["BM"] >= 128 for r in rows)
    )


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_every_view_renders_in_every_format(
    demo: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    code, out, _ = run(
        capsys,
        "run1/M8_N7168_K2048.pkl",
        "-r",
        "--head",
        "3",
        "--tail",
        "3",
        "-t",
        "0.1",
        "--within",
        "0.05",
        "-v",
        "--format",
        fmt,
    )
    assert code == 0
    if fmt == "json":
        views = [s["view"] for s in json.loads(out)["sections"]]
        assert views == [
            "summary",
            "ratio",
            "head",
            "tail",
            "top",
            "top-subset",
            "within",
            "within-subset",
        ]
    elif fmt == "markdown":
        assert "### run1/M8_N7168_K2048.pkl: best 3\n\n| mesh_idx | BM | BN |" in out
        assert "|---:|---:|---:|---:|---:|---|---|---:|---:|" in out
    else:
        assert out.count("== ") == 8


def test_rich_rendering_on_a_terminal() -> None:
    from kprofile.render.section import Section
    from kprofile.render.text import render_rich

    stream = io.StringIO()
    table = pd.DataFrame(
        {"BM": [128, 64], "met (ms)": [0.12345, 0.5], "ratio": [1.0, 4.05]}
    )
    render_rich(
        [Section("head", "demo: best 2", "demo.pkl", (("entries", 2),), table, (0,))],
        stream,
        colour=False,
    )
    text = stream.getvalue()
    assert (
        "demo: best 2" in text
        and "0.123" in text
        and "4.050" in text
        and "0.12345" not in text
    )


def test_help_lists_examples(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    assert (
        "kprofile -d base.pkl new.pkl" in out and "--format [text|markdown|json]" in out
    )


def test_tuning_codegen_renders_the_written_manifest(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tuning_codegen.cli import main as codegen

    assert run(capsys, *[f"run1/{s}.pkl" for s in SHAPES], "-o", "table")[0] == 0
    Path("entry.snippet").write_text(
        'Config(M=[@M], BM=[@BM], SWAP_AB=[@SWAP_AB], SCHEDULE="[@SCHEDULE]"),\n'
    )
    Path("target.py").write_text("configs = [\n    # BEGIN\n    # END\n]\n")
    assert (
        codegen(
            [
                "--manifest",
                "table.yaml",
                "--snippet",
                "entry.snippet",
                "--target",
                "target.py",
                "--begin-marker",
                "BEGIN",
                "--end-marker",
                "END",
            ]
        )
        == 0
    )
    text = Path("target.py").read_text()
    assert 'Config(M=256, BM=128, SWAP_AB=False, SCHEDULE="ws_pingpong"),' in text
    assert 'Config(M=8, BM=64, SWAP_AB=True, SCHEDULE="default"),' in text
