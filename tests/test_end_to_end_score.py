"""The held-out loop with the installed console script, as CI would run it: build a
table from one kbench run (``-o``: one entry per shape, or ``--ranges M``), score it on
the other run, and gate it with ``--fail-above`` (exit 1 above, 0 at or below). The
scores are checked against a computation apart from kprofile (the CSVs decoded by
hand, the dispatch scan written out)."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support import BIN
from table_support import HELDOUT, HELDOUT_PARAMS, HELDOUT_SHAPE, raw_csv, reference

from kprofile.core.score import SCORED
from tuning_codegen.manifest import load_manifest

pytestmark = pytest.mark.slow  # builds and scores tables end to end


def kprofile(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["COLUMNS"] = "80"
    return subprocess.run(
        [str(BIN / "kprofile"), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def held_out(table: Path, run: str) -> dict[tuple[Any, ...], tuple[str, float]]:
    entries = [dict(e.values) for e in load_manifest(table).entries]
    return reference(
        raw_csv(HELDOUT / run),
        entries,
        False,
        HELDOUT_SHAPE,
        HELDOUT_PARAMS,
        "met (ms)",
    )


def held_out_geomean(table: Path, run: str) -> float:
    want = held_out(table, run)
    return statistics.geometric_mean([r for s, r in want.values() if s == SCORED])


def held_out_statuses(table: Path, run: str) -> list[str]:
    return [s for s, _ in held_out(table, run).values()]


@pytest.mark.parametrize(
    ("build", "entries"), [(["-p", "M,N,K"], 13), (["--ranges", "M"], 7)]
)
def test_build_on_run_a_score_on_run_b_and_gate(
    tmp_path: Path, build: list[str], entries: int
) -> None:
    shutil.copytree(HELDOUT, tmp_path / "runs")
    root = tmp_path
    built = kprofile(root, "runs/run_a.pkl", *build, "-o", "table")
    assert built.returncode == 0, built.stderr
    assert built.stderr.endswith(f"wrote table.yaml ({entries} entries)\n")
    table = root / "table.yaml"

    own = kprofile(root, "--score", "table.yaml", "runs/run_a.pkl", "--format", "json")
    held = kprofile(root, "--score", "table.yaml", "runs/run_b.pkl", "--format", "json")
    assert own.returncode == held.returncode == 0, held.stderr
    facts = {
        name: next(s for s in json.loads(p.stdout)["sections"] if s["view"] == "score")[
            "facts"
        ]
        for name, p in (("own", own), ("held", held))
    }
    geomean = facts["held"]["geomean ratio"]
    assert geomean == pytest.approx(held_out_geomean(table, "run_b.csv"))
    assert facts["own"]["geomean ratio"] == pytest.approx(
        held_out_geomean(table, "run_a.csv")
    )
    # the run a table was built from flatters it; the held-out run does not
    assert facts["own"]["geomean ratio"] < geomean

    above = kprofile(
        root, "--score", "table.yaml", "runs/run_b.pkl", "--fail-above",
        f"{geomean * 0.995:.6f}", "--allow-failed",
    )  # fmt: skip
    assert above.returncode == 1
    assert "== score: table.yaml" in above.stdout
    assert above.stderr.startswith("kprofile: fail: the geomean ratio ")
    below = kprofile(
        root, "--score", "table.yaml", "runs/run_b.pkl", "--fail-above",
        f"{geomean * 1.005:.6f}", "--allow-failed",
    )  # fmt: skip
    assert (below.returncode, below.stderr) == (0, "")
    # without --allow-failed, a shape whose config crashed in run B fails the gate
    unrun = sum(s != SCORED for s in held_out_statuses(table, "run_b.csv"))
    strict = kprofile(
        root, "--score", "table.yaml", "runs/run_b.pkl", "--fail-above",
        f"{geomean * 1.005:.6f}",
    )  # fmt: skip
    assert strict.returncode == (1 if unrun else 0), strict.stderr
    if unrun:
        assert strict.stderr.startswith(f"kprofile: fail: {unrun} of 13 shapes ")
