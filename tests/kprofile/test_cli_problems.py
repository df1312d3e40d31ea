"""A shape is the whole problem, in every mode, on genuine kbench runs whose problem
sizes N and K are compile-time (``$M=16/N=256/K=256/BM=16/...``: fixtures/realkbench
F to K, made with kbench's own recipe). Expectations come from pandas on kbench's
CSV (``out.csv``) and the spec kbench ran, never from kprofile's own analysis.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml
from support import run, snapshot

SHAPE = ["M", "N", "K"]


def _rows(path: str) -> pd.DataFrame:
    """kbench's CSV with each spec parameter as a column (``$`` dropped)."""
    frame = pd.read_csv(path)
    tokens = frame["spec"].str.split("/").str[1:]
    params = tokens.apply(lambda t: dict(p.lstrip("$").split("=") for p in t))
    wide = pd.DataFrame(params.tolist(), index=frame.index).astype(int)
    return frame.join(wide)


def _problems(path: str) -> int:
    return len(_rows(path)[SHAPE].drop_duplicates())


def _sections(out: str) -> dict[str, dict]:
    return {s["view"]: s for s in json.loads(out)["sections"]}


# ---------------------------------------------------------------- every mode


@pytest.mark.parametrize("run_dir", ["F", "G", "I", "K"])
def test_every_pooled_mode_finds_the_problems_without_p(
    real: Path, capsys: pytest.CaptureFixture[str], run_dir: str
) -> None:
    """--cover, --importance, --budget and --ranges count one shape per (M, N, K)
    kbench ran, whether the problems have $M lists of their own (F), share one (G)
    or are a group each (I, and K written by pandas 2)."""
    results = f"{run_dir}/out.pkl"
    problems = _problems(f"{run_dir}/out.csv")
    for args, view in (
        (["--cover", "0.02"], "cover"),
        (["--importance"], "importance"),
    ):
        code, out, err = run(capsys, results, *args, "--format", "json")
        assert code == 0, err
        facts = _sections(out)[view]["facts"]
        assert (facts["shapes by"], facts["shapes"]) == ("M, N, K", problems), args
        assert "warning" not in err
    code, out, err = run(capsys, results, "--budget", "2", "--format", "json")
    assert code == 0, err
    assert _sections(out)["score"]["facts"]["shapes"] == problems
    if run_dir in ("F", "G"):  # I and K: one M per problem, nothing to range
        code, out, err = run(capsys, results, "--ranges", "M", "--format", "json")
        assert code == 0, err
        ranges = _sections(out)["ranges"]["facts"]
        pairs = _rows(f"{run_dir}/out.csv")[["N", "K"]].drop_duplicates()
        assert (ranges["groups by"], ranges["groups"]) == ("N, K", len(pairs))


def test_importance_and_correlation_never_rank_a_problem_size(
    real: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run(capsys, "G/out.pkl", "--importance", "--format", "json")
    assert code == 0
    ranked = [r["param"] for r in _sections(out)["importance"]["rows"]]
    assert sorted(ranked) == ["BM", "BN"]
    for pivots in ([], ["-p", "M,N,K"]):  # -c admits -p
        code, out, err = run(
            capsys, "G/out.pkl", "-c", "--out-dir", str(tmp_path), *pivots,
            "--format", "json",
        )  # fmt: skip
        assert code == 0, err
        assert [r["parameter"] for r in _sections(out)["correlation"]["rows"]] in (
            ["BM", "BN"],
            ["BN", "BM"],
        )


def test_the_best_config_of_each_problem_is_written_per_problem(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """-o with -p M,N,K: one entry per problem, each its problem's fastest row
    (pandas on the CSV); G's two problems share every M."""
    code, _, err = run(capsys, "G/out.pkl", "-p", "M,N,K", "-o", "best")
    assert code == 0, err
    rows = _rows("G/out.csv")
    best = rows.loc[rows.groupby(SHAPE, sort=False)["met (ms)"].idxmin()]
    written = yaml.safe_load(Path("best.yaml").read_text())["params"]
    keys = [*SHAPE, "BM", "BN"]
    assert [{k: e[k] for k in keys} for e in written] == best[keys].to_dict("records")


def test_o_without_p_says_its_one_entry_is_over_every_shape(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """-o writes one entry per file (Modular's kprofile's -o); on a file of several
    problems stderr says so, with the -p that writes one per problem."""
    code, _, err = run(capsys, "G/out.pkl", "-o", "whole")
    assert code == 0, err
    assert len(yaml.safe_load(Path("whole.yaml").read_text())["params"]) == 1
    assert err == (
        "G/out.pkl: note: -o writes one entry for the whole file, its best over all "
        "its shapes; -p M,N,K writes one per shape\nwrote whole.yaml (1 entry)\n"
    )
    code, _, err = run(capsys, "G/out.pkl", "-p", "M,N,K", "-o", "each")
    assert (code, err) == (0, f"wrote each.yaml ({_problems('G/out.csv')} entries)\n")


def test_p_that_leaves_out_a_problem_size_says_so(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "G/out.pkl", "-p", "M", "-o", "by_m")
    assert code == 0
    assert (
        "G/out.pkl: warning: -p M ranks problems with different N, K as one; "
        "-p M,N,K keeps them apart\n"
    ) in err


def test_the_shapes_note_names_the_whole_problem(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for quiet in (["-q"], []):
        code, out, err = run(capsys, "F/out.pkl", *quiet)
        assert (code, err) == (0, "")
        assert out.endswith(
            "the summary of F/out.pkl above is over all its shapes; -p M,N,K shows "
            "each on its own\n"
        )


def test_diff_pairs_runs_by_the_whole_problem(
    real: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """F and H are two runs of one spec: -d pairs each (M, N, K) of H with F's."""
    code, out, err = run(
        capsys, "-d", "F/out.pkl", "H/out.pkl", "--out-dir", str(tmp_path),
        "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    shapes = {r["shape"] for r in _sections(out)["diff"]["rows"]} - {"geomean"}
    expected = _rows("F/out.csv")[SHAPE].drop_duplicates()
    assert shapes == {
        f"M={m}/N={n}/K={k}" for m, n, k in expected.itertuples(index=False)
    }


# L fixes N and K at compile time (one problem); M passes them at run time ($N, $K).
MIXED = ("L/out.pkl", "M/out.pkl")


def _mixed_best() -> pd.DataFrame:
    """Each (M, N, K) problem's fastest row in each of L and M (pandas on the CSVs)."""
    rows = pd.concat(
        [_rows(f"{d}/out.csv").assign(run=d) for d in ("L", "M")], ignore_index=True
    )
    return rows.loc[rows.groupby([*SHAPE, "run"], sort=False)["met (s)"].idxmin()]


@pytest.mark.parametrize(
    ("args", "view"),
    [([], "shapes"), (["--cover", "0.02"], "cover"), (["--importance"], "importance")],
)
def test_a_run_time_size_beside_a_compile_time_one_keeps_problems_apart(
    real: Path, capsys: pytest.CaptureFixture[str], args: list[str], view: str
) -> None:
    """N passed at run time in one file ($N) and at compile time in the other: every
    (M, N, K) is a shape of its own, never M alone."""
    code, out, err = run(capsys, *MIXED, *args, "--format", "json")
    assert code == 0, err
    facts = _sections(out)[view]["facts"]
    problems = len(_mixed_best()[SHAPE].drop_duplicates())
    assert (facts["shapes by"], facts["shapes"]) == ("M, N, K", problems)


def test_diff_across_run_time_and_compile_time_sizes_pairs_only_one_problem(
    real: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The one problem both runs measured is compared; the others are not paired."""
    code, out, err = run(
        capsys, "-d", *MIXED, "--out-dir", str(tmp_path), "--format", "json"
    )
    assert code == 0, err
    best = _mixed_best()
    both = best.groupby(SHAPE).filter(lambda g: len(g) == 2)
    label = "M={}/N={}/K={}".format(*both[SHAPE].iloc[0])
    later = [r for r in _sections(out)["diff"]["rows"] if r["file"] == "M/out.pkl"]
    assert [r["shape"] for r in later] == [label, "geomean"]
    baseline, new = both["met (s)"].tolist()
    assert later[0]["ratio"] == pytest.approx(new / baseline)


def test_update_from_run_time_sizes_keeps_the_other_problems(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A table written from L, updated with M: L's entries byte for byte, M's other
    problem added."""
    code, _, err = run(capsys, "L/out.pkl", "-p", "M,N,K", "-o", "table")
    assert code == 0, err
    before = Path("table.yaml").read_text()
    code, out, err = run(capsys, "M/out.pkl", "--update", "table.yaml")
    assert code == 0, err
    after = Path("table.yaml").read_text()
    entries = yaml.safe_load(after)["params"]
    best = _mixed_best()
    assert len(entries) == len(best[SHAPE].drop_duplicates())
    assert "matched by  M, N, K" in out
    mine = best[best["run"] == "L"]
    assert after.startswith(before.rstrip("\n").rsplit("\n- ", 1)[0]), after
    assert {(e["M"], e["N"], e["K"]) for e in entries} == set(
        best[SHAPE].itertuples(index=False, name=None)
    )
    assert len(mine) == 2


# ---------------------------------------------------------------- --update


CURATED = """\
# curated by hand
name: gemm_blocked
params:
- M: 16
  N: 256
  K: 256
  BM: 32   # the other problem's entry: never touched
  BN: 32
- M: 16
  N: 512
  K: 128
  BM: 32
  BN: 32
"""


@pytest.fixture
def one_problem(real: Path) -> str:
    """G's N=512, K=128 problem alone, as kbench writes a one-problem sweep's CSV:
    N and K constant in the file."""
    frame = pd.read_csv("G/out.csv")
    frame[frame["spec"].str.contains("/N=512/K=128/")].to_csv("n512.csv", index=False)
    Path("table.yaml").write_text(CURATED)
    return "n512.csv"


def test_update_never_touches_another_problems_entry(
    one_problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, one_problem, "--update", "table.yaml")
    assert code == 0, err
    text = Path("table.yaml").read_text()
    assert text.startswith(CURATED.split("- M: 16\n  N: 512")[0])  # byte for byte
    rows = _rows(one_problem)
    best = rows.loc[rows.groupby(SHAPE, sort=False)["met (ms)"].idxmin()]
    entries = yaml.safe_load(text)["params"]
    assert entries[0] == {"M": 16, "N": 256, "K": 256, "BM": 32, "BN": 32}
    keys = [*SHAPE, "BM", "BN"]
    got = sorted(tuple(e[k] for k in keys) for e in entries[1:])
    assert got == sorted(best[keys].itertuples(index=False, name=None))
    assert "matched by  M, N, K" in out


def test_an_entry_of_another_problem_size_is_another_problem(
    one_problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The manifest has M=64 only for N=256; the results hold N=512 in every row:
    M=64 is added as a new entry, and nothing proposes the -p M that would overwrite
    the N=256 entry with another problem's config (N and K are problem sizes by
    name)."""
    Path("table.yaml").write_text(
        "name: gemm_blocked\nparams:\n- {M: 64, N: 256, K: 256, BM: 16, BN: 32}\n"
    )
    before = Path("table.yaml").read_text()
    code, out, err = run(capsys, one_problem, "--update", "table.yaml")
    assert code == 0, err
    assert Path("table.yaml").read_text().startswith(before)
    assert re.search(r"^  M=64/N=512/K=128 +added ", out, re.M)
    assert "warning" not in err and "-p M" not in err


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            "name: gemm_blocked\nparams:\n- {M: 16, N: 512, K: 128, TUNE_BM: 32, "
            "TUNE_BN: 32}\n",
            "table.yaml: error: --update: no entry names BM, BN, which the results "
            "sweep (the entries name K, M, N, TUNE_BM, TUNE_BN); --accept-foreign "
            "puts them in anyway\n",
        ),
        (
            "name: bench_matmul\nparams:\n- {M: 16, N: 512, K: 128, BM: 32, BN: 32}\n",
            "table.yaml: error: --update: the results are of benchmark "
            "'gemm_blocked', the manifest's entries of 'bench_matmul'; "
            "--accept-foreign puts them in anyway\n",
        ),
    ],
    ids=["other-parameters", "other-benchmark"],
)
def test_results_of_another_table_are_refused_and_nothing_written(
    one_problem: str, capsys: pytest.CaptureFixture[str], table: str, message: str
) -> None:
    Path("table.yaml").write_text(table)
    before = snapshot(Path("."))
    code, out, err = run(capsys, one_problem, "--update", "table.yaml")
    assert (code, out, err) == (2, "", message)
    assert snapshot(Path(".")) == before
    code, _, err = run(
        capsys, one_problem, "--update", "table.yaml", "--accept-foreign"
    )
    assert code == 0, err
    assert len(yaml.safe_load(Path("table.yaml").read_text())["params"]) > 1


def test_ranges_update_keeps_hand_tuned_points_and_the_curated_bounds(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = (
        "name: gemm_blocked\nparams:\n"
        "- {N: 512, K: 128, M: 0, M_END: 32, BM: 16, BN: 32}\n"
        "# hand-tuned: M=100 was never swept\n"
        "- {N: 512, K: 128, M: 100, BM: 32, BN: 64}\n"
        "- {N: 512, K: 128, M: 32, M_END: 100000, BM: 16, BN: 64}\n"
        "- {N: 256, K: 256, M: 0, M_END: 100000, BM: 32, BN: 32}\n"
    )
    Path("table.yaml").write_text(table)
    frame = pd.read_csv("G/out.csv")
    frame[frame["spec"].str.contains("/N=512/")].to_csv("n512.csv", index=False)
    code, _, err = run(capsys, "n512.csv", "--ranges", "M", "--update", "table.yaml")
    assert code == 0, err
    text = Path("table.yaml").read_text()
    assert "# hand-tuned: M=100 was never swept\n" in text
    entries = yaml.safe_load(text)["params"]
    assert {"N": 512, "K": 128, "M": 100, "BM": 32, "BN": 64} in entries
    assert entries[-1] == {"N": 256, "K": 256, "M": 0, "M_END": 100000, "BM": 32,
                           "BN": 32}  # fmt: skip
    ranged = [e for e in entries if e["N"] == 512 and "M_END" in e]
    assert (ranged[0]["M"], ranged[-1]["M_END"]) == (0, 100000)


# ---------------------------------------------------------------- --spec


def test_spec_settles_what_the_structure_cannot(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """I's problems are a group each, two of them at M=128 one after the other: the
    rows cannot tell its P (here renamed from N: no GEMM name to go by) from a
    slowest tile; the spec kbench ran can."""
    frame = pd.read_csv("I/out.csv")
    renamed = frame.assign(
        spec=frame["spec"].str.replace("/N=", "/P=").str.replace("/K=", "/Q=")
    )
    renamed.to_csv("renamed.csv", index=False)
    spec = Path("I/spec.yaml").read_text()
    Path("renamed.yaml").write_text(spec.replace(" N:", " P:").replace(" K:", " Q:"))
    cover = ["--cover", "0.02", "-m", "met (s)", "--format", "json"]
    code, out, err = run(capsys, "renamed.csv", *cover)
    assert code == 0
    assert "cannot tell from the sweep whether P, Q are problem sizes" in err
    assert "-p M takes them as tuning" in err
    code, out, err = run(capsys, "renamed.csv", *cover, "--spec", "renamed.yaml")
    assert (code, err) == (0, "")
    assert _sections(out)["cover"]["facts"]["shapes by"] == "M, P, Q"
