"""kprofile --importance end to end on real files: ranking checked with pandas, charts."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from support import (
    METRIC,
    PARAMS,
    RUN1,
    results_of,
    run,
    sections,
)

pytestmark = pytest.mark.slow  # matplotlib draws the importance charts


def test_importance_ranks_parameters_as_pandas_computes_them(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, *RUN1, "--importance", "--format", "json")
    assert code == 0
    found = sections(out)
    raw = results_of(*RUN1)
    ran = raw[raw[METRIC] > 0].assign(
        shape=lambda f: f["M"] + "/" + f["N"] + "/" + f["K"]
    )
    ran = ran.assign(ratio=ran[METRIC] / ran.groupby("shape")[METRIC].transform("min"))
    rows = found["importance-values"]["rows"]
    assert len(rows) == sum(ran[p].nunique() for p in PARAMS)
    for row in rows:
        reach = (
            ran[ran[row["param"]] == str(row["value"])].groupby("shape")["ratio"].min()
        )
        assert row["worst"] == pytest.approx(reach.max())
        assert row["geomean"] == pytest.approx(float(np.exp(np.log(reach).mean())))
        assert row["shapes"] == len(reach) == 3
        if (reach == reach.max()).sum() == 1:  # the worst shape, named
            m, n, k = reach.idxmax().split("/")
            assert row["worst shape"] == f"M={m}/N={n}/K={k}"
    cost = {p: max(r["worst"] for r in rows if r["param"] == p) for p in PARAMS}
    ranked = found["importance"]["rows"]
    assert [r["param"] for r in ranked] == sorted(PARAMS, key=lambda p: -cost[p])
    assert [r["rank"] for r in ranked] == [1, 2, 3, 4, 5, 6]
    assert all(r["cost"] == pytest.approx(cost[r["param"]]) for r in ranked)


IMPORTANCE = """\
== importance: which parameters matter (met (ms)) ==
shapes     3
shapes by  M, N, K
metric     met (ms) (lower is better)
cost       best ratio still reachable on the worst shape, with the parameter at its worst value

  rank  param      cost  best value  worst value  worst shape           values
     1  BN        3.443  64          256          M=8/N=7168/K=2048          3
     2  BM        2.929  64          256          M=8/N=7168/K=2048          3
     3  SWAP_AB   1.144  True        False        M=8/N=7168/K=2048          2
     4  STAGES    1.121  4           3            M=4096/N=4096/K=4096       3
     5  CLUSTER   1.080  1           2            M=8/N=7168/K=2048          2
     6  SCHEDULE  1.053  default     ws_pingpong  M=8/N=7168/K=2048          2
"""


def test_importance_table_and_plots(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, *RUN1, "--importance", "--plot", "charts")
    names = [
        "importance.png",
        *(
            f"importance-{p}.png"
            for p in ("BN", "BM", "SWAP_AB", "STAGES", "CLUSTER", "SCHEDULE")
        ),
    ]
    assert (code, err) == (0, "wrote 7 charts into charts\n")
    assert out.startswith(IMPORTANCE + "\n== importance: best ratio reachable")
    assert (
        "     4  STAGES    1.121  4            1.000  -                       1.000       3"
        "             3      0\n" in out  # fails: no run of these results failed
    )
    assert sorted(os.listdir("charts")) == sorted(names)
    for name in names:
        assert Path("charts", name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, out, _ = run(
        capsys, *RUN1, "--importance", "--plot", "charts2", "--format", "json"
    )
    assert json.loads(out)["written"] == [f"charts2/{n}" for n in names]


def test_importance_markdown(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *RUN1, "--importance", "--format", "markdown")
    assert code == 0
    assert out.startswith(
        "### importance: which parameters matter (met (ms))\n\n- **shapes**: 3\n"
    )
    assert (
        "| rank | param | cost | best value | worst value | worst shape | values |\n"
        "|---:|---|---:|---|---|---|---:|\n"
        "| 1 | BN | 3.443 | 64 | 256 | M=8/N=7168/K=2048 | 3 |\n" in out
    )
    assert (
        "### importance: best ratio reachable with the parameter fixed to each value\n\n| rank | param | cost | value | worst | worst shape | geomean | shapes | shapes_total | fails |\n"
        in out
    )
    assert not Path("importance.png").exists()
