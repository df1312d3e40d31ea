"""kprofile misuse and hostile data at the command line: one line, exit 2; data never read as markup."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from support import (
    run,
    snapshot,
)

# what an unknown column of the shipped results offers: the parameters first
KBENCH_COLUMNS = (
    "BM, BN, STAGES, CLUSTER, SWAP_AB, SCHEDULE, M, N, K, mesh_idx, name, met (ms), "
    "iters, Arithmetic (GFLOPS/s), DataMovement (GB/s), spec, kbench_filter"
)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["run2/M4096_N4096_K4096.pkl", "-p", "N,K", "--update", "table.yaml"],
            "table.yaml:38: error: params[1] and params[2] both match N=4096/K=4096; add a pivot that tells them apart",
        ),
        (
            [
                "run1/M256_N20480_K5376.pkl",
                "run2/M256_N20480_K5376.pkl",
                "--update",
                "table.yaml",
            ],
            "run2/M256_N20480_K5376.pkl: error: repeated runs: shape "
            "M=256/N=20480/K=5376 is in run1/M256_N20480_K5376.pkl too, and --update "
            "would write one entry per run of a shape; join the runs with --combine "
            "median|min|mean, or give each shape once",
        ),
        (
            ["run2/M8_N7168_K2048.pkl", "--update", "missing.yaml"],
            "missing.yaml: error: --update: no such manifest; --update changes an existing one (-o PATH writes a new one)",
        ),
        (
            ["run2/M8_N7168_K2048.pkl", "--update", "run1"],
            "run1: error: is a directory, expected a file",
        ),
        (
            ["run2/M8_N7168_K2048.pkl", "--update", "run1/M8_N7168_K2048.pkl"],
            "run1/M8_N7168_K2048.pkl: error: this is a kbench results file, but "
            "--update expects a manifest (YAML); did you swap the arguments?",
        ),
        (
            ["run1/M8_N7168_K2048.pkl", "--cover", "-0.1"],
            "kprofile: error: --cover: expected a non-negative fraction, got '-0.1'",
        ),
        (
            ["run1/M8_N7168_K2048.pkl", "--cover", "two"],
            "kprofile: error: --cover: expected a fraction like 0.05 or 5%, got 'two'",
        ),
        (
            ["run1/M8_N7168_K2048.pkl", "--cover", "inf"],
            "kprofile: error: --cover: expected a non-negative fraction, got 'inf'",
        ),
        (
            ["run1/M8_N7168_K2048.pkl", "--cover"],
            "kprofile: error: Option '--cover' requires an argument.",
        ),
        (
            ["run1/M8_N7168_K2048.pkl", "--cover", "0.1", "-p", "Q"],
            "run1/M8_N7168_K2048.pkl: error: no column 'Q' to group by (-p); columns: "
            f"{KBENCH_COLUMNS}",
        ),
        (
            ["run1/M8_N7168_K2048.pkl", "--importance", "-p", "M,SPLIT"],
            "run1/M8_N7168_K2048.pkl: error: no column 'SPLIT' to group by (-p); "
            f"columns: {KBENCH_COLUMNS}",
        ),
    ],
)
def test_misuse_is_one_line_and_exit_2(
    demo: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    before = snapshot(demo)
    assert run(capsys, *args) == (2, "", message + "\n")
    assert snapshot(demo) == before


@pytest.mark.parametrize("view", ["--cover", "--importance"])
def test_analysis_without_a_successful_run_is_one_line(
    tmp_path: Path,
    kb_write: Callable[..., Path],
    capsys: pytest.CaptureFixture[str],
    view: str,
) -> None:
    path = kb_write(
        "failed.pkl",
        [{"M": 8, "BM": 64, "met (ms)": 0.0}, {"M": 8, "BM": 128, "met (ms)": -1.0}],
    )
    args = [view, "0.02"] if view == "--cover" else [view]
    assert run(capsys, str(path), *args) == (
        2,
        "",
        f"kprofile: error: {view}: no successful run: every 'met (ms)' value is 0, negative or missing\n",
    )


def test_rich_prints_data_as_written_not_as_markup() -> None:
    import io

    from kprofile.render.section import Section
    from kprofile.render.text import render_rich

    stream = io.StringIO()
    diff = "--- t.yaml\n+++ t.yaml\n@@ -1 +1 @@\n-params: [{M: 8}]\n+params: [{M: 8, BM: 64}]\n"
    table = pd.DataFrame({"[@M]": ["[bold]x"]})
    render_rich(
        [
            Section(
                "update-diff",
                "t.yaml [M=8]",
                None,
                (("k", "[1, 2]"),),
                table,
                notes=(diff,),
            )
        ],
        stream,
        colour=False,
    )
    text = stream.getvalue()
    for shown in ("t.yaml [M=8]", "[1, 2]", "[@M]", "[bold]x", diff.rstrip("\n")):
        assert shown in text
