"""kprofile's outputs on the fixtures and the genuine kbench runs, byte for byte.

Each case runs the real command (``kprofile.cli.main``, as the console script does)
from the repository's root and compares its exit code, stdout, stderr and every file
it wrote with ``tests/golden/NAME.txt``, recorded before the analysis was made faster:
a speed-up must not change a byte. The temporary folder a case writes into is shown
as ``TMP``.

To record them again, deliberately (a change of output that was meant), run
``UPDATE_GOLDEN=1 python -m pytest tests/kprofile/test_golden.py`` and review the
diff of ``tests/golden/``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from kprofile.cli import main
from tests.support import PROJECT

GOLDEN = PROJECT / "tests" / "golden"
REAL = "fixtures/realkbench"
RUN1 = "fixtures/results/run1"
KB = "fixtures/kbench"
ENVS = (
    "py3.11-pandas1.5.3-numpy1.23.5",
    "py3.12-pandas2.2.3-numpy2.1.3-pyarrow18.1.0",
    "py3.12-pandas3.0.6-numpy2.2.6",
    "py3.13-pandas3.1.1-numpy2.4.6-pyarrow26.0.1",
)
KB_FILES = (
    "kbench_ms.pkl",
    "kbench_s.pkl",
    "categorical.pkl",
    "multiindex.pkl",
    "tuples.pkl",
    "sliced_rows.pkl",
    "kbench_ms.pkl.gz",
)
SHAPE = ("-p", "M,N,K")


def _real_cases() -> dict[str, tuple[str, ...]]:
    cases: dict[str, tuple[str, ...]] = {}
    for run in ("A", "B"):
        pkl, csv = f"{REAL}/{run}/out.pkl", f"{REAL}/{run}/out.csv"
        cases |= {
            f"real{run}_default": (pkl,),
            f"real{run}_shapes": (pkl, *SHAPE),
            f"real{run}_top": (pkl, *SHAPE, "--top", "0.05"),
            f"real{run}_top_verbose": (pkl, *SHAPE, "--top", "0.05", "-v"),
            f"real{run}_within": (pkl, *SHAPE, "--within", "0.02"),
            f"real{run}_top_fraction": (pkl, "--top-fraction", "0.1"),
            f"real{run}_head": (pkl, "--head", "5"),
            f"real{run}_tail": (pkl, *SHAPE, "--tail", "2"),
            f"real{run}_ratio": (pkl, "-r"),
            f"real{run}_best_o": (pkl, *SHAPE, "-o", "TMP/best"),
            f"real{run}_top_o": (pkl, *SHAPE, "--top", "0.05", "-o", "TMP/common"),
            f"real{run}_markdown": (pkl, *SHAPE, "--format", "markdown"),
            f"real{run}_json": (pkl, *SHAPE, "--format", "json"),
            f"real{run}_top_json": (pkl, "--top", "0.05", "--format", "json"),
            f"real{run}_csv": (csv,),
            f"real{run}_csv_top": (csv, *SHAPE, "--top", "0.05"),
        }
    return cases


def _fixture_cases() -> dict[str, tuple[str, ...]]:
    run1 = tuple(f"{RUN1}/{s}.pkl" for s in ("M256_N20480_K5376", "M4096_N4096_K4096"))
    run1 += (f"{RUN1}/M8_N7168_K2048.pkl",)
    cases: dict[str, tuple[str, ...]] = {
        "run1_default": run1,
        "run1_top": (*run1, "--top", "0.05", "-v"),
        "run1_within": (*run1, "--within", "0.02"),
        "run1_head_ratio": (*run1, "-r", "--head", "3"),
        "run1_tail": (run1[0], "--tail", "3"),
        "run1_o": (*run1, "-o", "TMP/best"),
        "run1_top_o": (*run1, "--top", "0.05", "-o", "TMP/common"),
        "run1_json": (*run1, "--top", "0.05", "--format", "json"),
        "run1_markdown": (*run1, "--format", "markdown"),
        "run1_csv": (f"{RUN1}/M256_N20480_K5376.csv", "--top", "0.05"),
        "run1_metric": (run1[0], "-m", "arith", "--head", "3"),
        "heldout_shapes": ("fixtures/heldout/run_a.pkl", *SHAPE),
        "heldout_top": ("fixtures/heldout/run_b.pkl", *SHAPE, "--top", "0.05"),
        "heldout_csv": ("fixtures/heldout/run_a.csv", "-p", "M", "--head", "1"),
        "heldout_o": ("fixtures/heldout/run_a.pkl", "-p", "M,N", "-o", "TMP/best"),
        "spec_yaml_merge": ("--merge", "fixtures/results/bench_matmul.yaml", *SHAPE),
    }
    for env in ENVS:
        tag = env.split("-")[1]
        for name in KB_FILES:
            key = f"kbench_{tag}{'_arrow' if 'pyarrow' in env else ''}_{name}"
            cases[key] = (f"{KB}/{env}/{name}", "--top", "0.05")
        cases[f"kbench_{tag}_all_json"] = (
            *(f"{KB}/{env}/{name}" for name in KB_FILES if name != "kbench_s.pkl"),
            *SHAPE,
            "--format",
            "json",
        )
    arrow = f"{KB}/py3.13-pandas3.1.1-numpy2.4.6-pyarrow26.0.1/arrow_backend.pkl"
    cases["kbench_arrow_backend"] = (arrow, "-r")
    return cases


CASES = _real_cases() | _fixture_cases()


def _record(code: int, out: str, err: str, tmp: Path) -> bytes:
    """The case's whole result as one text: exit code, streams, files written."""
    parts = [f"exit {code}\n", "--- stdout\n", out, "--- stderr\n", err]
    for path in sorted(tmp.rglob("*")):
        if path.is_file():
            parts += [f"--- file {path.relative_to(tmp)}\n", path.read_text("utf-8")]
    return "".join(parts).replace(str(tmp), "TMP").encode("utf-8")


@pytest.mark.parametrize("name", sorted(CASES))
def test_output_is_unchanged(
    name: str, tmp_path: Path, monkeypatch: Any, capsys: Any
) -> None:
    monkeypatch.chdir(PROJECT)
    args = [a.replace("TMP", str(tmp_path)) for a in CASES[name]]
    code = main(args)
    out, err = capsys.readouterr()
    got = _record(code, out, err, tmp_path)
    golden = GOLDEN / f"{name}.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_bytes(got)
    assert golden.exists(), f"no golden output; record it with UPDATE_GOLDEN=1: {name}"
    assert got == golden.read_bytes()


def test_every_golden_file_is_a_case() -> None:
    """A renamed or removed case leaves no stale golden file behind."""
    assert {p.stem for p in GOLDEN.glob("*.txt")} == set(CASES)
