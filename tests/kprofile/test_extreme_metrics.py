"""Metrics at the edges of float64 (1e308, the largest float, subnormals down to
5e-324) in every mode: no numpy (or matplotlib) warning reaches stderr, and the values
are numbers: a finite float is a JSON number, a ratio beyond the largest float is
``"inf"``, and ``null`` stays "no value".

Through the real command: ``main`` in this process with every warning recorded (a
warning anywhere is a failure), and the console script in fresh processes, whose stderr
must hold no warning."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from support import run, sections

from kprofile.render.cells import cell, column_cells

pytestmark = pytest.mark.slow  # the console script on extreme values

EXTREMES = [1e308, 5e-324, 1.7976931348623157e308, 2.2250738585072014e-308 / 3, 1.0]
EXTREMES += [4e-320]
LOWER, HIGHER = "met (ms)", "throughput (GElems/s)"


@pytest.fixture
def extreme(kb_write: Callable[..., Path], tmp_path: Path) -> Path:
    """Three shapes of 6 configs each, per metric direction (a ``base`` and a ``new``
    run), and one sweep over M, every metric value an extreme."""
    for metric, tag in ((LOWER, "low"), (HIGHER, "high")):
        for m in (1, 2, 3):
            configs = list(itertools.product([64, 128, 256], [32, 64]))
            for run_name, shift in (("base", 0), ("new", 2)):
                rows = [
                    {"M": m, "N": 4096, "BM": bm, "BN": bn,
                     metric: EXTREMES[(i + m + shift) % len(EXTREMES)]}
                    for i, (bm, bn) in enumerate(configs)
                ]  # fmt: skip
                kb_write(f"{tag}-{run_name}-{m}.pkl", rows, metric=metric)
        sweep = [
            {"M": m, "N": 8, "BM": bm, metric: EXTREMES[i % len(EXTREMES)]}
            for i, (m, bm) in enumerate(itertools.product([1, 2, 4, 8], [64, 128]))
        ]
        kb_write(f"{tag}-sweep.pkl", sweep, metric=metric)
    (tmp_path / "table.yaml").write_text("params:\n- {M: 1, N: 4096, BM: 1, BN: 1}\n")
    (tmp_path / "out").mkdir()
    return tmp_path


def _modes(tag: str) -> list[list[str]]:
    base = [f"{tag}-base-{m}.pkl" for m in (1, 2, 3)]
    new = [f"{tag}-new-{m}.pkl" for m in (1, 2, 3)]
    return [
        [base[0], "-r", "--head", "2", "--tail", "2", "-t", "0.5", "-v"],
        [base[0], "--within", "1e11%", "-v", "-o", "out/within"],
        # base and new are runs of the same shapes: -o takes them joined
        [*base, *new, "-p", "M", "-r", "--combine", "min", "-o", "out/best"],
        [*base, "--update", "table.yaml"],
        ["-d", *base, *new, "--out-dir", "out"],
        ["--cover", "0.02", *base, "-o", "out/cover"],
        ["--cover", "1e302%", *base],
        ["--importance", *base, "--plot", "out/plots"],
        ["--ranges", "M", f"{tag}-sweep.pkl", "-o", "out/ranges"],
        ["-c", *base, *new, "--out-dir", "out"],
    ]


CASES = [
    (tag, metric, number, fmt)
    for tag, metric in (("low", LOWER), ("high", HIGHER))
    for number in range(len(_modes(tag)))
    for fmt in ("text", "json", "markdown")
]


@pytest.mark.parametrize(("tag", "metric", "number", "fmt"), CASES)
def test_no_warning_in_any_mode(
    extreme: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tag: str,
    metric: str,
    number: int,
    fmt: str,
) -> None:
    monkeypatch.chdir(extreme)
    args = [*_modes(tag)[number], "-m", metric, "--format", fmt]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code, out, err = run(capsys, *args)
    assert code == 0, err
    assert [str(w.message) for w in caught] == []
    assert "Warning" not in err
    if fmt == "json":
        json.loads(out)  # valid JSON: no NaN or Infinity literal


def _facts(out: str, view: str) -> dict[str, Any]:
    facts: dict[str, Any] = sections(out)[view]["facts"]
    return facts


@pytest.mark.parametrize(("tag", "metric"), [("low", LOWER), ("high", HIGHER)])
def test_extremes_are_numbers_and_an_overflowed_ratio_is_inf(
    extreme: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tag: str,
    metric: str,
) -> None:
    monkeypatch.chdir(extreme)
    path = f"{tag}-base-1.pkl"
    code, out, _ = run(capsys, path, "-r", "-m", metric, "--format", "json")
    assert code == 0
    facts = _facts(out, "summary")
    worst, best = (5e-324, 1.7976931348623157e308)[:: 1 if tag == "high" else -1]
    assert facts[f"worst {metric}"] == worst
    assert facts[f"best {metric}"] == best
    assert facts["best/worst" if tag == "high" else "worst/best"] == "inf"
    rows = sections(out)["ratio"]["rows"]
    assert all(r["ratio"] is not None for r in rows)  # no run failed: no null
    assert rows[0]["ratio"] == 1.0
    assert sum(r["ratio"] == "inf" for r in rows) >= 1
    finite = [r["ratio"] for r in rows if r["ratio"] != "inf"]
    assert all(isinstance(r, float) and r >= 1.0 for r in finite)


def test_the_console_script_prints_no_warning(extreme: Path) -> None:
    """Fresh processes, where Python shows every warning once on stderr: the ratio
    views (numpy's overflow in the division) and the charts (matplotlib's)."""
    script = Path(sys.executable).parent / "kprofile"
    for tag, metric in (("low", LOWER), ("high", HIGHER)):
        for args in (_modes(tag)[0], _modes(tag)[7]):
            done = subprocess.run(
                [str(script), *args, "-m", metric],
                cwd=extreme,
                capture_output=True,
                text=True,
                check=False,
            )
            assert done.returncode == 0, (args, done.stderr)
            assert "Warning" not in done.stderr, (args, done.stderr)


@pytest.mark.parametrize(
    ("value", "shown"),
    [(5e-324, "4.94e-324"), (1e308, "1e+308"), (0.0004, "0.0004"), (0.0005, "0.000500"),
     (12.3456, "12.346"), (-2e-5, "-2e-05"), (0.0, "0.000"), (0.5, "0.500"),
     (0.01834, "0.0183"), (0.05, "0.0500"), (-0.0797, "-0.0797"), (0.09996, "0.100")],
)  # fmt: skip
def test_extreme_numbers_are_shown_as_numbers(value: float, shown: str) -> None:
    """Three places would show 5e-324 as 0.000 and 1e308 as 309 digits."""
    assert cell(value) == shown
    assert column_cells(pd.Series([value, float("nan")])) == [shown, "-"]


def test_short_and_long_float_columns_are_spelled_alike() -> None:
    """Short columns are formatted value by value, long ones with numpy: one text."""
    values = [5e-324, 1e308, 0.0004, 12.3456, -2e-5, 0.0, float("inf"), -float("inf")]
    values.append(float("nan"))
    long = column_cells(pd.Series(values * 10))
    assert long[: len(values)] == column_cells(pd.Series(values))
    assert long[: len(values)] == [cell(v) for v in values]
