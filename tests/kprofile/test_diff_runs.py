"""``-d`` compares runs config by config, shape by shape: each run's best config and
value, whether the best config changed, the baseline's best config on the new run
(over the new run's best, and over its own baseline time), a geomean row; sides
named with ``--baseline`` and joined with ``--combine``; ``--fail-above`` for CI.

Through the real command on genuine kbench runs: F and H are two runs of one Mojo
spec, I and J two runs of one numpy spec, K that spec under pandas 2. Every
expectation is pandas on kbench's ``out.csv``.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from support import FIXTURES, run, sections, snapshot

SHAPE = ["M", "N", "K"]


def _rows(*paths: str) -> tuple[pd.DataFrame, str, list[str]]:
    """kbench's CSVs one after the other, a column per spec parameter, the metric
    and the tuning parameters."""
    frames = []
    for path in paths:
        frame = pd.read_csv(path)
        tokens = frame["spec"].str.split("/").str[1:]
        params = pd.DataFrame(
            [
                {k.lstrip("$"): ast.literal_eval(v) for k, v in
                 (t.split("=", 1) for t in row)}
                for row in tokens
            ],
            index=frame.index,
        )  # fmt: skip
        frames.append(frame.join(params))
    frame = pd.concat(frames, ignore_index=True)
    metric = next(c for c in frame.columns if c.startswith("met ("))
    tuning = [c for c in frame.columns if c.isupper() and c not in SHAPE]
    return frame, metric, tuning


def _measured(frame: pd.DataFrame, metric: str, tuning: list[str]) -> pd.Series:
    """One value per (shape, config)."""
    return frame.set_index([*SHAPE, *tuning])[metric]


def expected(
    base: pd.Series, new: pd.Series, tuning: list[str]
) -> list[dict[str, Any]]:
    """Per shape (the baseline's order): both bests, whether the config changed, the
    baseline's best config on the new run over its best and over its old time."""
    out = []
    for shape in dict.fromkeys(base.index.droplevel(tuning)):
        old, now = base.xs(shape, level=SHAPE), new.xs(shape, level=SHAPE)
        old, now = old[old > 0].dropna(), now[now > 0].dropna()
        kept = now.get(old.idxmin(), np.nan)
        out.append(
            {
                "shape": "/".join(f"{k}={v}" for k, v in zip(SHAPE, shape)),
                "old": old.min(),
                "old config": old.idxmin(),
                "new": now.min(),
                "new config": now.idxmin(),
                "changed": old.idxmin() != now.idxmin(),
                "ratio": now.min() / old.min(),
                "kept/best": kept / now.min(),
                "kept/before": kept / old.min(),
            }
        )
    return out


def _geomean(values: list[float]) -> float:
    """Over the shapes that have a value."""
    finite = [v for v in values if not np.isnan(v)]
    return float(np.exp(np.log(finite).mean()))


def _diff(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code, out, err = run(capsys, "-d", *args, "--format", "json")
    assert code == 0, err
    return sections(out)["diff"]


def _check(
    table: dict[str, Any], want: list[dict[str, Any]], tuning: list[str]
) -> None:
    """Each shape's baseline row, then its new run's, then the geomean row."""
    rows, geomean = table["rows"][:-1], table["rows"][-1]
    assert [r["shape"] for r in rows] == [w["shape"] for w in want for _ in (0, 1)]
    for (old, new), w in zip(zip(rows[::2], rows[1::2]), want):
        metric = next(c for c in old if c.startswith("best met"))
        assert tuple(old[p] for p in tuning) == w["old config"]
        assert tuple(new[p] for p in tuning) == w["new config"]
        assert (old[metric], new[metric]) == (pytest.approx(w["old"]),
                                              pytest.approx(w["new"]))  # fmt: skip
        assert new["changed"] is bool(w["changed"]) and old["changed"] is None
        for column in ("ratio", "kept/best", "kept/before"):
            if np.isnan(w[column]):  # the old config has no run on the new one
                assert new[column] is None, column
            else:
                assert new[column] == pytest.approx(w[column]), column
    assert geomean["shape"] == "geomean"
    for column in ("ratio", "kept/best", "kept/before"):
        assert geomean[column] == pytest.approx(_geomean([w[column] for w in want]))
    assert table["highlight"] == list(range(0, 2 * len(want), 2))
    changed = sum(bool(w["changed"]) for w in want)
    assert table["facts"]["changed"] == (
        f"best config changed at {changed} of {len(want)} shapes"
    )


@pytest.mark.parametrize("baseline", [[], ["--baseline"]])
def test_two_runs_of_a_mojo_sweep_are_compared_config_by_config(
    real: Path, capsys: pytest.CaptureFixture[str], baseline: list[str]
) -> None:
    """F then H, the first file the baseline or named by --baseline: the same."""
    frame, metric, tuning = _rows("F/out.csv")
    new, _, _ = _rows("H/out.csv")
    want = expected(_measured(frame, metric, tuning), _measured(new, metric, tuning),
                    tuning)  # fmt: skip
    table = _diff(capsys, *baseline, "F/out.pkl", "H/out.pkl")
    _check(table, want, tuning)
    assert [r["file"] for r in table["rows"][:2]] == ["F/out.pkl (baseline)",
                                                      "H/out.pkl"]  # fmt: skip


def test_two_held_out_runs_of_thirteen_shapes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """fixtures/heldout: two noisy runs of one grid, runtime M, N, K."""
    heldout = FIXTURES / "heldout"
    frame, metric, tuning = _rows(str(heldout / "run_a.csv"))
    new, _, _ = _rows(str(heldout / "run_b.csv"))
    want = expected(_measured(frame, metric, tuning), _measured(new, metric, tuning),
                    tuning)  # fmt: skip
    assert len(want) == 13
    table = _diff(capsys, str(heldout / "run_a.pkl"), str(heldout / "run_b.pkl"))
    _check(table, want, tuning)
    unrun = [w["shape"] for w in want if np.isnan(w["kept/before"])]
    assert unrun  # run_b lacks some of run_a's best configs (failed, or never run)
    assert all(any(shape in note for note in table["notes"]) for shape in unrun)


def test_the_csvs_give_what_the_pickles_give(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    by_pickle = _diff(capsys, "I/out.pkl", "K/out.pkl")
    by_csv = _diff(capsys, "I/out.csv", "K/out.csv")
    drop = ("file", "best mesh_idx", "best row")
    assert [
        {k: v for k, v in r.items() if k not in drop} for r in by_pickle["rows"]
    ] == [{k: v for k, v in r.items() if k not in drop} for r in by_csv["rows"]]


def test_each_sides_repeated_runs_are_joined_before_comparing(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """I and J, two runs of one numpy sweep, joined by their median, against K: the
    baseline's value of a config is the median of its successful runs."""
    frame, metric, tuning = _rows("I/out.csv", "J/out.csv")
    ran = frame[frame[metric] > 0]
    base = ran.groupby([*SHAPE, *tuning], sort=False)[metric].median()
    new, _, _ = _rows("K/out.csv")
    want = expected(base, _measured(new, metric, tuning), tuning)
    for how in (["--combine", "median"],):
        table = _diff(capsys, "--baseline", "I/out.pkl", "--baseline", "J/out.pkl",
                      "K/out.pkl", *how)  # fmt: skip
        _check(table, want, tuning)
        assert table["facts"]["baseline"] == (
            "--baseline I/out.pkl, J/out.pkl (median of their runs)"
        )
        assert table["rows"][0]["file"] == "baseline, median of 2 files"
        assert table["rows"][1]["file"] == "new runs, median of 1 file"


def test_a_side_holding_a_shape_twice_is_refused_without_combine(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(real)
    args = ["-d", "--baseline", "I/out.pkl", "--baseline", "J/out.pkl", "K/out.pkl"]
    assert run(capsys, *args, "--out-dir", "out") == (
        2,
        "",
        "J/out.pkl: error: repeated runs: 3 shapes (first M=128/N=256/K=256) are in "
        "I/out.pkl too, and -d compares one run of a shape per side (the baseline); "
        "join the runs with --combine median|min|mean, or give each shape once\n",
    )
    assert run(capsys, "-d", "--baseline", "K/out.pkl", "I/out.pkl", "J/out.pkl")[
        2
    ].endswith("per side (the new runs); join the runs with --combine "
                "median|min|mean, or give each shape once\n")  # fmt: skip
    assert run(capsys, "-d", "I/out.pkl", "J/out.pkl", "--combine", "median")[::2] == (
        2,
        "kprofile: error: -d --combine joins each side's runs: name the baseline's "
        "with --baseline FILE (the files given are the new runs)\n",
    )
    assert snapshot(real) == before


def _fail_above(
    capsys: pytest.CaptureFixture[str], limit: str, *args: str
) -> tuple[int, dict[str, Any], str]:
    code, out, err = run(capsys, "-d", *args, "--fail-above", limit,
                         "--format", "json")  # fmt: skip
    return code, json.loads(out), err


def test_fail_above_judges_the_baselines_configs_on_the_new_run(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """H as the baseline, F the new run: H's best configs take 1.6x their time on F
    (geomean), a gate just above passes, one just below fails naming the shapes
    above it, slowest first."""
    frame, metric, tuning = _rows("H/out.csv")
    new, _, _ = _rows("F/out.csv")
    want = expected(_measured(frame, metric, tuning), _measured(new, metric, tuning),
                    tuning)  # fmt: skip
    mean = _geomean([w["kept/before"] for w in want])
    above = sorted((w for w in want if w["kept/before"] > 1.0),
                   key=lambda w: -w["kept/before"])  # fmt: skip
    code, document, err = _fail_above(capsys, f"{mean * 1.001:.6f}", "H/out.pkl",
                                      "F/out.pkl")  # fmt: skip
    assert (code, err, document["failed"]) == (0, "", None)
    limit = f"{mean * 0.999:.6f}"
    code, document, err = _fail_above(capsys, limit, "H/out.pkl", "F/out.pkl")
    assert code == 1
    slower = [w for w in above if w["kept/before"] > float(limit)]
    named = ", ".join(f"{w['shape']} ({w['kept/before']:.3f})" for w in slower)
    assert document["failed"] == (
        f"fail: the geomean kept/before {mean:.6g} is above --fail-above "
        f"{float(limit):g}; above {float(limit):g} at {named}"
    )
    assert err == f"kprofile: {document['failed']}\n"
    (diff,) = [s for s in document["sections"] if s["view"] == "diff"]
    assert diff["facts"]["fail above"] == (
        f"{float(limit):g}: fail (the geomean kept/before is above it)"
    )


def test_a_baseline_config_that_failed_or_vanished_fails_the_gate(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """H again, with F's best config at one shape failed (metric 0) and at another
    left out: both fail --fail-above whatever the geomean, named, unless
    --allow-failed."""
    frame, metric, tuning = _rows("F/out.csv")
    new, _, _ = _rows("H/out.csv")
    want = expected(_measured(frame, metric, tuning), _measured(new, metric, tuning),
                    tuning)  # fmt: skip
    raw = pd.read_csv("H/out.csv")
    kept = [
        (new[SHAPE].astype(str).agg("/".join, axis=1) == w["shape"].replace("M=", "")
         .replace("N=", "").replace("K=", ""))
        & (new[tuning] == list(w["old config"])).all(axis=1)
        for w in want[:2]
    ]  # fmt: skip
    assert [int(k.sum()) for k in kept] == [1, 1]
    raw.loc[kept[0], "met (ms)"] = 0.0  # failed
    raw[~kept[1]].to_csv("new.csv", index=False)  # never run
    code, document, err = _fail_above(capsys, "100", "F/out.csv", "new.csv")
    assert code == 1
    assert document["failed"] == (
        "fail: 2 of 5 shapes have no ratio: 1 where the baseline's best config failed "
        "(config failed), 1 where it has no run (not measured), 0 where no config "
        "ran (no successful run); --allow-failed judges the compared shapes alone; "
        f"failed at {want[0]['shape']} (failed); no run at {want[1]['shape']}"
    )
    (diff,) = [s for s in document["sections"] if s["view"] == "diff"]
    assert diff["notes"] == [
        f"the baseline's best config failed at {want[0]['shape']} (failed on new)",
        f"the baseline's best config has no run at {want[1]['shape']} (on new)",
    ]
    code, document, _ = _fail_above(capsys, "100", "F/out.csv", "new.csv",
                                    "--allow-failed")  # fmt: skip
    assert (code, document["failed"]) == (0, None)


def test_a_shape_no_new_run_holds_fails_the_gate(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = pd.read_csv("H/out.csv")
    raw[~raw["spec"].str.contains("/[$]M=64/N=512/", regex=True)].to_csv(
        "fewer.csv", index=False
    )
    code, document, _ = _fail_above(capsys, "100", "F/out.csv", "fewer.csv")
    assert code == 1
    assert document["failed"].endswith("; no run at M=64/N=512/K=64")
    (diff,) = [s for s in document["sections"] if s["view"] == "diff"]
    assert "no later run holds M=64/N=512/K=64" in diff["notes"]
