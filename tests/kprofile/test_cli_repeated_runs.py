"""Repeated runs of one shape (``fixtures/realkbench/A`` and ``B``: kbench ran the
same sweep twice) are never written as an entry per run: a mode that writes an entry
per file or ``-p`` group refuses them with the ``--combine`` hint, nothing written; a
mode that reads every input as one set of measurements says once how it joins them.
Through the real command; pandas on kbench's CSVs is the oracle.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml
from support import FIXTURES, run, snapshot

REAL = FIXTURES / "realkbench"
SHAPE = ["M", "N", "K"]
TUNING = ["BM", "BN", "BK"]
REFUSED = (
    "B/out.pkl: error: repeated runs: 3 shapes (first M=256/N=256/K=256) are in "
    "A/out.pkl too, and {sink} would write one entry per run of a shape; join the "
    "runs with --combine median|min|mean, or give each shape once\n"
)
POOLED = (
    "B/out.pkl: repeated runs: 3 shapes (first M=256/N=256/K=256) are in A/out.pkl "
    "too; each config counts its best run (--combine median|min|mean joins the runs "
    "instead)\n"
)
NOTE = "kprofile: no 'met (ms)' column; metric 'met (s)' (lower is better); -m chooses another\n"


def _rows(*paths: str) -> pd.DataFrame:
    """kbench's CSVs, one after the other, the spec's values as ints."""
    frames = []
    for path in paths:
        raw = pd.read_csv(path)
        params = pd.DataFrame(
            [
                {
                    k.lstrip("$"): int(v)
                    for k, v in (t.split("=") for t in s.split("/")[1:])
                }
                for s in raw["spec"]
            ]
        )
        frames.append(raw.join(params))
    return pd.concat(frames, ignore_index=True)


@pytest.mark.parametrize(
    "args, sink",
    [
        (["-p", "M,N,K", "--top", "0.05", "-o", "common.yaml"], "-o"),
        (["-o", "best.yaml"], "-o"),
        (["--head", "2", "-o", "rows.yaml", "--write-selection"], "-o"),
        (["--update", "table.yaml"], "--update"),
        (["-p", "M,N,K", "--update", "table.yaml"], "--update"),
    ],
)
def test_repeated_runs_written_an_entry_each_are_refused_with_the_combine_hint(
    real: Path, capsys: pytest.CaptureFixture[str], args: list[str], sink: str
) -> None:
    Path("table.yaml").write_text(
        "params:\n- M: 256\n  N: 256\n  K: 256\n  BM: 1\n  BN: 1\n  BK: 1\n"
    )
    before = snapshot(real)
    code, out, err = run(capsys, "A/out.pkl", "B/out.pkl", *args)
    assert (code, out, err) == (2, "", REFUSED.format(sink=sink))
    assert snapshot(real) == before


def test_combined_repeated_runs_write_one_entry_per_shape_the_median_best(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(
        capsys, "A/out.pkl", "B/out.pkl", "--combine", "median", "-p", "M,N,K",
        "-o", "best.yaml",
    )  # fmt: skip
    assert code == 0, err
    rows = _rows("A/out.csv", "B/out.csv")
    median = rows.groupby(SHAPE + TUNING, sort=False)["met (s)"].median().reset_index()
    best = median.loc[median.groupby(SHAPE, sort=False)["met (s)"].idxmin()]
    written = yaml.safe_load(Path("best.yaml").read_text())["params"]
    assert [{k: e[k] for k in SHAPE + TUNING} for e in written] == best[
        SHAPE + TUNING
    ].to_dict("records")


def test_combined_repeated_runs_update_each_shape_once_without_p(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("table.yaml").write_text(
        "params:\n- M: 256\n  N: 256\n  K: 256\n  BM: 1\n  BN: 1\n  BK: 1\n"
    )
    code, out, err = run(
        capsys, "A/out.pkl", "B/out.pkl", "--combine", "min", "--update", "table.yaml"
    )
    assert code == 0, err
    assert "matched by  M, N, K" in out
    rows = _rows("A/out.csv", "B/out.csv")
    fastest = rows.loc[rows.groupby(SHAPE, sort=False)["met (s)"].idxmin()]
    written = yaml.safe_load(Path("table.yaml").read_text())["params"]
    assert written == fastest[SHAPE + TUNING].to_dict("records")


@pytest.mark.parametrize(
    "args",
    [
        ["--cover", "5%", "-o", "cover.yaml"],
        ["--budget", "2", "-o", "budget.yaml"],
        ["--importance"],
    ],
)
def test_modes_that_pool_the_runs_say_once_how(
    real: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    code, _, err = run(capsys, "A/out.pkl", "B/out.pkl", *args)
    assert code == 0, err
    assert err.startswith(NOTE + POOLED)
    assert err.count("repeated runs") == 1
    for written in Path().glob("*.yaml"):
        entries = yaml.safe_load(written.read_text())["params"]
        shapes = [tuple(e[k] for k in SHAPE) for e in entries]
        assert len(shapes) == len(set(shapes)) == 3


def test_one_run_of_each_shape_is_not_called_repeated(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "A/out.pkl", "--cover", "5%", "-o", "cover.yaml")
    assert code == 0 and err == NOTE + "wrote cover.yaml (3 entries)\n"
