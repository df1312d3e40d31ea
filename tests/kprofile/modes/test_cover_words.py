"""``--cover``'s report says what it found: the shapes that keep a config of their own
(no config within TOL serves another shape: their own best, at loss 0) and the shapes
where nothing ran, never one word ("uncovered") for a shape that is served.

The oracle is kbench's CSV read with pandas, never kprofile.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from support import FIXTURES, run

pytestmark = pytest.mark.slow  # HiGHS solves through the command

REAL = FIXTURES / "realkbench"
SHAPE = ["M", "N", "K"]
ALONE = "needs a config of its own: no config within tol serves another shape"


def _alone(run_set: str, tol: float) -> list[dict[str, int]]:
    """The shapes none of whose configs within ``tol`` of its best is within ``tol``
    at another shape, in input order."""
    raw = pd.read_csv(REAL / run_set / "out.csv")
    metric = next(c for c in raw.columns if c.startswith("met ("))
    params = pd.DataFrame(
        [
            {k.lstrip("$"): int(v) for k, v in (t.split("=") for t in s.split("/")[1:])}
            for s in raw["spec"]
        ]
    )
    table = params.assign(value=raw[metric])
    tuning = [c for c in params.columns if c not in SHAPE]
    best = table.groupby(SHAPE)["value"].transform("min")
    near = table[table["value"] <= best * (1 + tol)]
    near = near.assign(shape=near[SHAPE].astype(str).agg("/".join, axis=1))
    serves = near.groupby(tuning)["shape"].transform("nunique")
    sharing = set(near.loc[serves > 1, "shape"])
    order = list(dict.fromkeys(near["shape"]))
    return [
        dict(zip(SHAPE, map(int, s.split("/")), strict=True))
        for s in order
        if s not in sharing
    ]


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code, out, err = run(capsys, *args, "-q", "--format", "json")
    assert code == 0, err
    return {s["view"]: s for s in json.loads(out)["sections"]}


@pytest.mark.parametrize(("run_set", "tol"), [("G", 0.02), ("G", 0.001), ("A", 0.02)])
def test_the_shapes_that_keep_their_own_config_are_counted_as_such(
    capsys: pytest.CaptureFixture[str], run_set: str, tol: float
) -> None:
    alone = _alone(run_set, tol)
    found = _json(capsys, str(REAL / run_set / "out.pkl"), "--cover", str(tol))
    facts = found["cover"]["facts"]
    assert (facts["own config"], facts["no successful run"]) == (len(alone), 0)
    assert "uncovered" not in facts
    rows = found["cover-unshared"]["rows"]
    assert [{k: r[k] for k in SHAPE} for r in rows] == alone
    assert {r["reason"] for r in rows} <= {ALONE}
    served = {
        tuple(r[k] for k in SHAPE): r["loss"] for r in found["cover-assignment"]["rows"]
    }
    assert all(served[tuple(s.values())] == 0.0 for s in alone)  # at their best


def test_the_text_report_of_a_genuine_sweep_reads_as_it_found(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """G within 2%: five of six shapes share a config; M=128/N=256/K=256 keeps its
    own best, which serves it at loss 0."""
    code, out, err = run(capsys, str(REAL / "G/out.pkl"), "--cover", "0.02", "-q")
    assert (code, err) == (0, "")
    assert out.splitlines()[:9] == [
        "== cover: fewest configs within 0.02 of each shape's best ==",
        "method             exact (no smaller table exists)",
        "configs            2",
        "one per shape      3",
        "shapes             6",
        "own config         1",
        "no successful run  0",
        "tol                0.02 (ratio <= 1.02)",
        "shapes by          M, N, K",
    ]
    assert out.splitlines()[-3:] == [
        "== cover: shapes that share no config: their own best, or none ==",
        "    M    N    K  reason                                                    "
        "            config   best",
        "  128  256  256  needs a config of its own: no config within tol serves "
        "another shape       1  7.435",
    ]


def test_markdown_says_the_same_words(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, str(REAL / "G/out.pkl"), "--cover", "0.02", "-q", "--format", "markdown"
    )
    assert code == 0
    assert "- **own config**: 1\n- **no successful run**: 0\n" in out
    assert "uncovered" not in out
    assert "shapes that share no config: their own best, or none" in out


def test_a_shape_where_nothing_ran_is_counted_apart(
    kb_write: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Three shapes: two share a config, the third's every run failed: it gets no
    entry, and is not one that keeps its own config."""
    rows = [
        {"M": m, "BM": bm, "met (ms)": value}
        for m, values in ((8, (1.0, 2.0)), (16, (2.0, 3.0)), (32, (0.0, 0.0)))
        for bm, value in zip((16, 32), values, strict=True)
    ]
    path = kb_write("sweep.pkl", rows)
    found = _json(capsys, str(path), "--cover", "0.02", "-p", "M")
    facts = found["cover"]["facts"]
    assert (facts["shapes"], facts["own config"], facts["no successful run"]) == (
        2,
        0,
        1,
    )
    assert [
        (r["M"], r["reason"], r["config"]) for r in found["cover-unshared"]["rows"]
    ] == [(32, "no successful run", None)]
