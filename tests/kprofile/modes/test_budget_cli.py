"""kprofile --budget through the real command: the table equals
``kprofile.core.portfolio.budget`` and the optimum over every subset of K configs
(computed apart from the hand-decoded results), ``-o`` reads back as one entry per
shape with its best chosen config, the score it prints is the one ``--score`` gives
the written table, an infeasible K and a search out of time say so."""

from __future__ import annotations

import itertools
import math
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from support import files_in, run, sections
from table_support import HELDOUT, HELDOUT_PARAMS, HELDOUT_SHAPE, raw_csv

from kprofile.core.combine import combine
from kprofile.core.measure import measure
from kprofile.core.metric import Metric
from kprofile.core.portfolio import Portfolio, budget
from kprofile.core.score import score_configs
from kprofile.inputs.load import load_inputs
from kprofile.modes.budget import budget_section
from tuning_codegen.manifest import load_manifest

METRIC = Metric("met (ms)", False)

BUDGET_4 = """\
== budget: the best table of at most 4 configs ==
status         optimal (no table of at most 4 configs has a lower geomean ratio)
configs        4 (at most 4)
objective      geomean ratio over the shapes
geomean ratio  1.016
time limit     120 s

  config   BM   BN  STAGES  SWAP_AB  shapes
       0   64   64       4  False         3
       1   64  128       4  False         3
       2   64  256       4  True          5
       3  128  256       3  False         2

== budget: the table's score on the results it was chosen from ==
shapes             13
scored             13
geomean ratio      1.016
median ratio       1.000
worst ratio        1.174
within 2%          11 of 13 (84.6%)
within 5%          12 of 13 (92.3%)
within 10%         12 of 13 (92.3%)
config failed      0
not measured       0
no successful run  0
shapes by          M, N, K
metric             met (ms) (lower is better)
in-sample: the noise of these results favours the table chosen from them; the number to trust is its --score on another run (docs/score.md)

== budget: the 5 worst shapes, highest ratio first ==
    M     N     K  config   BM   BN  STAGES  SWAP_AB  met (ms)    best  ratio
  512  4096  4096       1   64  128       4  False      0.0951  0.0810  1.174
  384  4096  4096       0   64   64       4  False      0.0829  0.0803  1.032
   64  8192  2048       2   64  256       4  True       0.0167  0.0165  1.010
   96  4096  4096       0   64   64       4  False      0.0312  0.0310  1.004
  512  8192  2048       3  128  256       3  False      0.0674  0.0673  1.002

== budget: shapes without a ratio (counted apart, never as 1.0) ==
  status  failure  M  N  K  config  BM  BN  STAGES  SWAP_AB
  (no entries)
"""


@pytest.fixture
def heldout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "heldout"
    shutil.copytree(HELDOUT, folder)
    monkeypatch.chdir(folder)
    return folder


def ratio_matrix(label: str) -> pd.DataFrame:
    """Shapes x configs ratios of a held-out run, by hand: each shape's best is the
    lowest time there; NaN where the config has no run at the shape."""
    raw = raw_csv(HELDOUT / f"run_{label}.csv")
    raw = raw[raw["met (ms)"] > 0]
    table = raw.pivot_table(
        index=HELDOUT_SHAPE, columns=HELDOUT_PARAMS, values="met (ms)", aggfunc="min"
    )
    return table.div(table.min(axis=1), axis=0)


def brute_force(ratios: pd.DataFrame, k: int) -> dict[str, tuple[float, tuple[Any]]]:
    """The lowest geomean and the lowest (worst, geomean) over every subset of k."""
    logs = np.log(ratios.to_numpy())
    logs[np.isnan(logs)] = np.inf
    best: dict[str, tuple[Any, ...]] = {}
    for subset in itertools.combinations(range(logs.shape[1]), k):
        row = logs[:, subset].min(axis=1)
        if not np.isfinite(row).all():
            continue
        total, worst = float(row.sum()), float(row.max())
        if "geomean" not in best or total < best["geomean"][0] - 1e-12:
            best["geomean"] = (total, subset)
        key = (worst, total)
        if "worst" not in best or key < best["worst"][0]:
            best["worst"] = (key, subset)
    n = logs.shape[0]
    columns = list(ratios.columns)
    return {
        "geomean": (
            math.exp(best["geomean"][0] / n),
            tuple(columns[i] for i in best["geomean"][1]),
        ),
        "worst": (
            math.exp(best["worst"][0][0]),
            tuple(columns[i] for i in best["worst"][1]),
        ),
    }


def config_of(entry: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(entry[p] for p in HELDOUT_PARAMS)


def test_budget_text(heldout: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "run_a.pkl", "--budget", "4") == (0, BUDGET_4, "")


@pytest.mark.parametrize("objective", ["geomean", "worst"])
def test_the_table_is_the_optimum_and_reads_back_one_entry_per_shape(
    heldout: Path, capsys: pytest.CaptureFixture[str], objective: str
) -> None:
    code, out, err = run(
        capsys, "run_a.pkl", "--budget", "3", "--objective", objective,
        "-o", "b", "--format", "json",
    )  # fmt: skip
    assert (code, err) == (0, "wrote b.yaml (13 entries)\n")
    found = sections(out)
    assert list(found) == [
        "budget",
        "score",
        "score-worst",
        "score-unscored",
    ]
    chosen = [config_of(r) for r in found["budget"]["rows"]]
    # the optimum over every subset of 3, computed apart
    ratios = ratio_matrix("a")
    value, subset = brute_force(ratios, 3)[objective]
    assert found["budget"]["facts"][f"{objective} ratio"] == pytest.approx(value)
    assert sorted(chosen) == sorted(subset)
    # the core's answer on the same measurements
    inputs, _ = load_inputs(["run_a.pkl"])
    joined = combine(inputs, ())
    measured = measure(
        joined.frame,
        shape_cols=joined.shape_cols,
        param_cols=joined.param_cols,
        metric=METRIC,
    )
    core = budget(measured, METRIC, size=3, objective=objective, time_limit=None)
    core_configs = measured.configs.loc[list(core.configs)]
    assert chosen == [
        tuple(r) for r in core_configs[HELDOUT_PARAMS].itertuples(index=False)
    ]
    # -o: each shape with the chosen config that is best there
    entries = [dict(e.values) for e in load_manifest("b.yaml").entries]
    order = raw_csv(HELDOUT / "run_a.csv")[HELDOUT_SHAPE].drop_duplicates()
    assert [tuple(e[c] for c in HELDOUT_SHAPE) for e in entries] == [
        tuple(r) for r in order.itertuples(index=False)
    ]
    for entry in entries:
        at = ratios.loc[tuple(entry[c] for c in HELDOUT_SHAPE)]
        assert config_of(entry) in chosen
        assert at[config_of(entry)] == min(at[c] for c in chosen)
    # the score --budget prints is the one --score gives the table it wrote
    code, out, _ = run(capsys, "--score", "b.yaml", "run_a.pkl", "--format", "json")
    printed, scored = found["score"]["facts"], sections(out)["score"]["facts"]
    for fact in ("geomean ratio", "median ratio", "worst ratio", "within 5%"):
        assert printed[fact] == pytest.approx(scored[fact])


def test_every_shape_is_listed_with_v(
    heldout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "run_a.pkl", "--budget", "2", "-v", "--format", "json")
    rows = sections(out)["score-shapes"]["rows"]
    assert code == 0 and len(rows) == 13
    assert {r["config"] for r in rows} == {0, 1}
    ratios = ratio_matrix("a")
    for row in rows:
        at = ratios.loc[tuple(row[c] for c in HELDOUT_SHAPE)]
        assert row["ratio"] == pytest.approx(at[config_of(row)])


def test_an_infeasible_budget_says_how_many_configs_it_takes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kb_write: Callable[..., Path]
) -> None:
    # each of three shapes ran a config of its own only (a fourth shape ran both
    # of the first two): no two configs run every shape
    rows = [
        {"M": 1, "BM": 64, "met (ms)": 1.0},
        {"M": 2, "BM": 128, "met (ms)": 1.0},
        {"M": 3, "BM": 256, "met (ms)": 1.0},
        {"M": 4, "BM": 64, "met (ms)": 1.0},
        {"M": 4, "BM": 128, "met (ms)": 1.1},
    ]
    results = kb_write("r.pkl", rows)
    before = files_in(tmp_path)
    code, out, err = run(
        capsys, str(results), "-p", "M", "--budget", "2", "-o", str(tmp_path / "b")
    )
    assert (code, out) == (2, "")
    assert err == (
        "kprofile: error: --budget 2: no table of 2 configs runs every shape (a config "
        "serves only shapes where it ran successfully); it takes 3\n"
    )
    assert files_in(tmp_path) == before
    code, out, _ = run(capsys, str(results), "-p", "M", "--budget", "3")
    assert code == 0 and "geomean ratio  1.000" in out


def test_a_search_out_of_time_shows_its_bound_and_gap(
    heldout: Path,
) -> None:
    inputs, _ = load_inputs(["run_a.pkl"])
    joined = combine(inputs, ())
    measured = measure(
        joined.frame,
        shape_cols=joined.shape_cols,
        param_cols=joined.param_cols,
        metric=METRIC,
    )
    config = np.zeros(len(measured.shapes), dtype=np.int64)  # config 0 everywhere
    score = score_configs(measured, config, METRIC)
    unproven = Portfolio(
        size=2,
        objective="geomean",
        status="time limit",
        configs=(0,),
        score=score,
        lower_bound=1.01,
        tie_proven=False,
        needed=1,
    )
    facts = dict(budget_section(unproven, measured, 0.5).facts)
    assert facts["status"] == (
        "time limit (a better table may exist: see lower bound and gap)"
    )
    assert facts["lower bound"] == 1.01
    assert facts["gap"] == pytest.approx(score.geomean / 1.01 - 1)
    assert facts["time limit"] == "0.5 s"
    proven = dict(budget_section(
        Portfolio(2, "worst", "optimal", (0,), score, score.worst_ratio, False, 1),
        measured,
        None,
    ).facts)  # fmt: skip
    assert "lower bound" not in proven and proven["time limit"] == "none"
    assert proven["status"] == (
        "optimal (no table of at most 2 configs has a lower worst ratio); its geomean "
        "is not proven lowest among tables of that worst ratio"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--budget", "0", "run_a.pkl"],
         "kprofile: error: --budget: expected a positive number of configs, got 0"),
        (["--budget", "x", "run_a.pkl"],
         "kprofile: error: Invalid value for '--budget': 'x' is not a valid integer"),
        (["--budget", "2", "--objective", "best", "run_a.pkl"],
         "kprofile: error: Invalid value for '--objective': 'best' is not one of "
         "'geomean', 'worst'."),
        (["--budget", "2", "--time-limit", "-1", "run_a.pkl"],
         "kprofile: error: --time-limit: expected seconds (0 or more) or 'none', got "
         "'-1'"),
    ],
)  # fmt: skip
def test_misuse_is_one_line_and_exit_2(
    heldout: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    (heldout / "t.yaml").write_text("params:\n- {M: 1}\n")
    before = files_in(heldout)
    assert run(capsys, *args) == (2, "", message + "\n")
    assert files_in(heldout) == before


def test_cover_time_limit_is_still_the_time_limit(
    heldout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "run_a.pkl", "--budget", "2", "--cover-time-limit", "7")
    assert code == 0 and "time limit     7 s" in out


def test_markdown_says_an_empty_table_has_no_entries(
    heldout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "run_a.pkl", "--budget", "2", "--format", "markdown")
    assert code == 0
    unscored = out.split(
        "### budget: shapes without a ratio (counted apart, never as 1.0)"
    )
    assert unscored[1] == "\n\n(no entries)\n"


def test_a_budget_of_one_config_is_one_config(
    heldout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "run_a.pkl", "--budget", "1")
    assert code == 0
    assert "== budget: the best table of at most 1 config ==\n" in out
    assert "no table of at most 1 config has a lower geomean ratio" in out
