"""kprofile on what kbench really writes, through the real command: the metric of a
Python benchmark (``met (s)``), CSV rows named by their line (a CSV has no
mesh_idx), and ``--top`` as Modular's kprofile.py selects.

``fixtures/realkbench/`` holds two genuine kbench runs (copied byte for byte; see
``../shared/realkbench/README.md`` where they were made); pandas is the oracle.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from support import FIXTURES, RESULTS, SHAPES, results_of, run

from tuning_codegen.manifest import load_manifest

REAL = FIXTURES / "realkbench"
SECONDS = "met (s)"
NOTE = "kprofile: no 'met (ms)' column; metric 'met (s)' (lower is better); -m chooses another\n"
TUNING = ["BM", "BN", "BK"]


def shapes_note(path: str) -> str:
    """What kprofile says of a file of several shapes read without -p: on stdout,
    under the per-shape table, so -q never hides it."""
    return (
        f"the summary of {path} above is over all its shapes; -p M,N,K shows each on "
        "its own\n"
    )


def _table(path: str) -> pd.DataFrame:
    """The CSV as pandas reads it, the spec's parameters as strings, and the line
    each row is on (header on line 1, one row per line in these files)."""
    raw = pd.read_csv(path)
    params = pd.DataFrame(
        [dict(t.lstrip("$").split("=") for t in s.split("/")[1:]) for s in raw["spec"]]
    )
    return raw.join(params).assign(line=np.arange(len(raw)) + 2)


# ------------------------------------------------------------------ the metric


def _seconds(value: float) -> str:
    """A metric in seconds as the report shows it: 3 places, or 3 significant digits
    below 0.1 (where 3 places would keep one or two of them)."""
    return f"{value:.3f}" if value >= 0.1 else f"{value:#.3g}"


@pytest.mark.parametrize("run_set", ["A", "B"])
def test_a_python_benchmarks_csv_is_ranked_by_its_only_met_column(
    real: Path, capsys: pytest.CaptureFixture[str], run_set: str
) -> None:
    path = f"{run_set}/out.csv"
    table = _table(path)
    best = table[SECONDS].idxmin()
    code, out, err = run(capsys, path)
    assert (code, err) == (0, NOTE)
    assert out.endswith(shapes_note(path))
    head = out.split("\n\n")[0].splitlines()
    # kbench's record of the points that failed, beside the CSV (as the oracle: json)
    failures = json.loads(Path(f"{run_set}/out.failures.json").read_text())["failures"]
    kinds = [f["failure_type"] for f in failures]
    assert head == [
        f"== {path} ==",
        f"entries           {len(table) + len(failures)}",
        f"failed            {len(failures)}",
        f"failed build      {kinds.count('build')}",
        f"failed execution  {kinds.count('execution')}",
        f"failed timeout    {kinds.count('timeout')}",
        f"best row          {path}:{table['line'][best]}",
        f"worst met (s)     {_seconds(table[SECONDS].max())}",
        f"best met (s)      {_seconds(table[SECONDS].min())}",
        f"worst/best        {table[SECONDS].max() / table[SECONDS].min():.3f}",
        "shape             -",
    ]
    assert f"best spec: {table['spec'][best]}\n\n== shapes: " in out
    assert len(table) == 132  # 144 points, 12 failed at run time (not in the table)


def test_the_note_is_said_once_for_several_files_and_the_direction_follows_flags(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "A/out.csv", "B/out.csv", "--higher-is-better")
    assert code == 0
    note = NOTE.replace("lower is better", "higher is better")
    assert err == note
    assert out.count("best met (s) ") == 3  # each summary, and the shapes' column
    assert out.endswith(
        "the summaries of 2 files above are each over all of that file's shapes; "
        "-p M,N,K shows each on its own\n"
    )


def test_an_explicit_metric_is_never_second_guessed(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "A/out.csv", "-m", "met (ms)") == (
        2,
        "",
        "kprofile: error: no column matches metric 'met (ms)'; numeric columns: "
        "met (s), iters, Arithmetic (GFLOPS/s), DataMovement (GB/s), M, N, K, BM, BN, "
        "BK\n",
    )
    code, out, err = run(capsys, "A/out.csv", "-m", "met")  # a prefix, said by the user
    assert (code, err) == (0, "")
    assert shapes_note("A/out.csv") in out
    assert "best met (s) " in out


def test_several_met_columns_without_met_ms_ask_for_m(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = pd.read_csv("A/out.csv")
    table.insert(2, "met (us)", table[SECONDS] * 1e6)
    table.to_csv("two.csv", index=False)
    assert run(capsys, "two.csv") == (
        2,
        "",
        "kprofile: error: no 'met (ms)' column and several metric columns: "
        "'met (s)', 'met (us)'; choose one with -m\n",
    )
    code, out, err = run(capsys, "two.csv", "-m", "met (us)")
    assert (code, err) == (0, "")
    assert shapes_note("two.csv") in out
    assert "best met (us) " in out


def test_met_ms_is_still_the_default_when_it_is_there(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = pd.read_csv("A/out.csv")
    table.insert(2, "met (ms)", table[SECONDS] * 1e3)
    table.to_csv("both.csv", index=False)
    code, out, err = run(capsys, "both.csv", "--format", "json")
    assert (code, err) == (0, "")
    assert shapes_note("both.csv").strip() in out  # a JSON note
    assert json.loads(out)["metric"] == {
        "column": "met (ms)",
        "higher_is_better": False,
    }


# ------------------------------------------------------- CSV rows have no mesh_idx


@pytest.mark.parametrize("form", ["text", "markdown", "json"])
def test_a_csv_row_is_named_by_its_line_in_every_format(
    real: Path, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    table = _table("A/out.csv")
    best = table[SECONDS].idxmin()
    args = ["A/out.csv", "-r", "--head", "3", "--tail", "2", "--top", "0.05", "-v"]
    code, out, err = run(capsys, *args, "--format", form)
    assert (code, err) == (0, NOTE)
    assert "mesh_idx" not in out
    assert f"A/out.csv:{table['line'][best]}" in out
    if form != "json":
        return
    views = {s["view"]: s for s in json.loads(out)["sections"]}
    assert views["summary"]["facts"]["best row"] == f"A/out.csv:{table['line'][best]}"
    ranked = table.sort_values(SECONDS, kind="stable")
    failed = len(json.loads(Path("A/out.failures.json").read_text())["failures"])
    # the points kbench recorded as failed come last, with no line in the CSV
    lines = ranked["line"].tolist() + [None] * failed
    assert [r["line"] for r in views["ratio"]["rows"]] == lines
    assert [r["line"] for r in views["head"]["rows"]] == ranked["line"][:3].tolist()
    assert views["ratio"]["columns"][0] == "line"


def test_a_csv_line_counts_blank_lines_and_quoted_line_breaks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The line is where the row starts in the file, as an editor shows it."""
    lines = Path(REAL / "A" / "out.csv").read_text().splitlines()
    header, rows = lines[0], lines[1:4]
    quoted = rows[0].replace('"np_blocked_matmul/', '"np_blocked\nmatmul/', 1)
    path = tmp_path / "r.csv"
    path.write_text("\n".join([header, "", quoted, rows[1], "", "", rows[2]]) + "\n")
    code, out, _ = run(capsys, str(path), "-m", SECONDS, "--format", "json")
    assert code == 0
    views = {s["view"]: s for s in json.loads(out)["sections"]}
    assert views["summary"]["facts"]["entries"] == 3
    best = int(np.argmin([float(r.split(",")[1]) for r in rows]))
    assert views["summary"]["facts"]["best row"] == f"{path}:{[3, 5, 8][best]}"


def test_diff_names_each_best_row_as_its_file_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    base, new = (
        RESULTS / "run1" / f"{SHAPES[0]}.pkl",
        RESULTS / "run1" / f"{SHAPES[0]}.csv",
    )
    code, out, _ = run(capsys, str(base), str(new), "-d", "--format", "json")
    assert code == 0
    *rows, geomean = {s["view"]: s for s in json.loads(out)["sections"]}["diff"]["rows"]
    assert (geomean["shape"], geomean["best row"]) == ("geomean", None)
    assert [r["best row"] for r in rows] == ["mesh_idx 109", "line 111"]
    assert [r["file"] for r in rows] == [f"{base.name} (baseline)", new.name]
    assert all("best mesh_idx" not in r for r in rows)
    code, out, _ = run(capsys, str(base), str(base), "-d", "--format", "json")
    rows = {s["view"]: s for s in json.loads(out)["sections"]}["diff"]["rows"]
    assert [r["best mesh_idx"] for r in rows] == [109, 109, None]  # and the geomean


def test_a_pickled_frame_without_mesh_idx_names_rows_by_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = pd.read_pickle(RESULTS / "run1" / f"{SHAPES[1]}.pkl")["merged_df"]
    path = tmp_path / "plain.pkl"
    frame.drop(columns="mesh_idx").to_pickle(path)
    code, out, _ = run(capsys, str(path), "--top", "0.05", "--format", "json")
    assert code == 0
    views = {s["view"]: s for s in json.loads(out)["sections"]}
    assert views["summary"]["facts"]["best row"] == 129
    assert views["top"]["facts"]["measured"] == "row 129, ratio 1.000"
    assert "mesh_idx" not in out


# ----------------------------------------------------- --top as the reference's


PINNED = """\
name: bench_matmul
file: bench_matmul.mojo
defaults: &defaults
  M: 4096
  N: 4096
  K: 4096
  BM: 128
  BN: 256
  STAGES: 4
  CLUSTER: 1
  SWAP_AB: false
  SCHEDULE: ws_pingpong
params:
- <<: *defaults
"""


def test_top_writes_the_common_config_of_the_reference_band(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reference's band, pinned: 17 of the 188 runs are below min + 0.05 x max; their
    most frequent values make BM=128, BN=256, STAGES=4, CLUSTER=1, ..."""
    monkeypatch.chdir(tmp_path)
    path = str(RESULTS / "run1" / "M4096_N4096_K4096.pkl")
    code, out, err = run(capsys, path, "--top", "0.05", "-o", "OUT")
    assert code == 0
    assert err == (
        f"{path}: the common config was measured: ratio 1.000\n"
        "wrote OUT.yaml (1 entry)\n"
    )
    assert Path("OUT.yaml").read_text().endswith(PINNED)
    assert (
        "entries        17 of 188 that ran\n"
        "common config  M=4096/N=4096/K=4096/BM=128/BN=256/STAGES=4/CLUSTER=1/"
        "SWAP_AB=False/SCHEDULE=ws_pingpong\n"
    ) in out


def _reference(
    table: pd.DataFrame,
    column: str,
    band: float,
    keys: tuple[str, ...] = ("M", "N", "K", *TUNING),
) -> dict[str, str]:
    """Modular's kprofile.py ``--top``, restated with pandas: rank, keep the rows
    below ``(band + min/max) * max``, each spec key's ``value_counts().idxmax()``."""
    ranked = table.sort_values(column, kind="stable")
    values = ranked[column]
    subset = ranked[values < (band + values.min() / values.max()) * values.max()]
    return {k: subset[k].astype(str).value_counts().idxmax() for k in keys}


@pytest.mark.parametrize("band", ["0.02", "0.05", "0.3"])
def test_top_on_a_real_run_per_shape_matches_the_reference(
    real: Path, capsys: pytest.CaptureFixture[str], band: str
) -> None:
    code, _, _ = run(capsys, "B/out.csv", "-p", "M,N,K", "--top", band, "-o", "t")
    assert code == 0
    entries = [
        {k: str(v) for k, v in e.values.items()}
        for e in load_manifest("t.yaml").entries
    ]
    table = _table("B/out.csv")
    shapes = table.groupby(["M", "N", "K"], sort=False)
    expected = [_reference(part, SECONDS, float(band)) for _, part in shapes]
    assert [dict(sorted(e.items())) for e in entries] == [
        dict(sorted(e.items())) for e in expected
    ]


def test_top_mirrors_the_band_for_a_higher_is_better_metric(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Above max - X * max: the rows within X of the best, as for a time. (The
    reference keeps the rows below min + X * max here too: the worst ones.)"""
    column = "Arithmetic (GFLOPS/s)"
    code, out, _ = run(
        capsys, "run1/M256_N20480_K5376.pkl", "-m", "arith", "--top", "0.05", "-o", "g"
    )
    assert code == 0
    raw = results_of("run1/M256_N20480_K5376.pkl").join(
        pd.read_pickle("run1/M256_N20480_K5376.pkl")["merged_df"][[column]]
    )
    ran = raw[raw[column] > 0].sort_values(column, ascending=False, kind="stable")
    band = ran[ran[column] > ran[column].max() - 0.05 * ran[column].max()]
    assert 1 < len(band) < len(ran)
    assert f"entries        {len(band)} of {len(ran)} that ran\n" in out
    assert "(above max - 0.05 x max)" in out
    entry = {k: str(v) for k, v in load_manifest("g.yaml").entries[0].values.items()}
    for name in ("BM", "BN", "STAGES", "CLUSTER", "SWAP_AB", "SCHEDULE"):
        assert entry[name] == band[name].value_counts().idxmax()


def test_update_with_top_puts_the_reference_bands_config(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """run1's M=4096 entry is its best (BM=128, BN=256); the band of --top 0.1 has
    BM=256, BN=128 (and --top-fraction 0.1 would keep BM=128, BN=256)."""
    path = "run1/M4096_N4096_K4096.pkl"
    code, _, _ = run(capsys, path, "--top", "0.1", "--update", "table.yaml")
    assert code == 0
    entries = [e.values for e in load_manifest("table.yaml").entries]
    square = next(e for e in entries if (e["M"], e["N"], e["K"]) == (4096, 4096, 4096))
    expected = _reference(
        results_of(path).query("`met (ms)` > 0"),
        "met (ms)",
        0.1,
        ("BM", "BN", "STAGES", "CLUSTER", "SWAP_AB", "SCHEDULE"),
    )
    assert (expected["BM"], expected["BN"]) == ("256", "128")
    assert {k: str(square[k]) for k in expected} == expected


# ------------------------------------------------------- several shapes in one file


def test_a_file_of_several_shapes_without_p_is_said_to_hold_them(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """kbench marks the shape's parameters as runtime ones ($M=256); a file whose
    runtime parameters vary mixes shapes in every view unless -p splits them."""
    for args in (
        ["A/out.pkl"],
        ["A/out.pkl", "--top", "0.3"],
        ["B/out.pkl", "-o", "t"],
    ):
        for quiet in ([], ["-q"]):  # on stdout: -q never hides it
            code, out, err = run(capsys, *args, "-m", SECONDS, *quiet)
            assert code == 0 and "warning" not in err and shapes_note(args[0]) in out
    for pivots in ("M,N,K", "M"):
        code, out, err = run(capsys, "A/out.pkl", "-m", SECONDS, "-p", pivots)
        assert (code, err) == (0, ""), pivots
        assert "== shapes: " in out and "shows each on its own" not in out


def test_one_shape_or_no_runtime_mark_says_nothing_of_shapes(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = pd.read_csv("A/out.csv")
    one = table[table["spec"].str.contains("/[$]M=256/", regex=True)]
    one.to_csv("one.csv", index=False)
    code, _, err = run(capsys, "one.csv", "-m", SECONDS)
    assert (code, err) == (0, "")


def test_problem_sizes_without_a_runtime_mark_are_kept_apart(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same three shapes with no parameter marked as runtime: M, N, K change
    only between the spec's groups (each a block), as a slowest tile would; a GEMM's
    names settle it, and the file holds three problems, never one."""
    table = pd.read_csv("A/out.csv")
    unmarked = table.assign(spec=table["spec"].str.replace("$", "", regex=False))
    unmarked.to_csv("unmarked.csv", index=False)
    code, out, err = run(capsys, "unmarked.csv", "-m", SECONDS)
    assert (code, err) == (0, "")
    assert shapes_note("unmarked.csv") in out
