"""One tolerance rule for every mode: a run exactly at the tolerance (2.10 against 2.00
at 5%) is within it for ``--within``, ``--cover``, ``--ranges --tol`` and the shares
of ``--score`` alike, and ``--ranges``' borderline (above half the tolerance) follows
the same rule.

The results are genuine kbench output (``fixtures/heldout/run_a.csv``, what kbench
writes beside its pickle) with the times of two shapes set: config A takes 2.00 at
M=16 and 2.10 at M=32, config B the reverse, every other config 25% or more from the best. Whether
a config is within the tolerance is decided here in exact decimal arithmetic
(``fractions.Fraction`` of the times as the CSV spells them), not by the code under
test.
"""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import run, sections
from table_support import HELDOUT

SHAPES = ("16", "32")
CONFIG_A = "BM=64/BN=64/STAGES=3/SWAP_AB=False"
CONFIG_B = "BM=64/BN=128/STAGES=3/SWAP_AB=False"
TIMES = {  # (config, M) -> the time kbench wrote, as text
    (CONFIG_A, "16"): "2.0",
    (CONFIG_A, "32"): "2.1",
    (CONFIG_B, "16"): "2.1",
    (CONFIG_B, "32"): "2.0",
}
# every other config: 25% or more from the best, within no tolerance here
OTHER = {False: "2.5", True: "1.5"}  # by direction: higher is better?


def _shape_and_config(spec: str) -> tuple[str, str, str]:
    """``M``, ``N`` and the tuning part of a heldout spec string."""
    tokens = spec.split("/")
    values = dict(t.lstrip("$").split("=", 1) for t in tokens[1:])
    return values["M"], values["N"], "/".join(tokens[4:])


@pytest.fixture
def at_the_edge(tmp_path: Path, higher: bool) -> Path:
    """run_a.csv's rows of M=16 and M=32 at N=K=4096, times set as TIMES and OTHER
    say, written back as kbench writes its CSV (QUOTE_NONNUMERIC)."""
    source = (HELDOUT / "run_a.csv").read_text(encoding="utf-8")
    rows = list(csv.reader(io.StringIO(source)))
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
    writer.writerow(rows[0])
    kept = 0
    for name, _met, iters, spec, kfilter in rows[1:]:
        m, n, config = _shape_and_config(spec)
        if m not in SHAPES or n != "4096":
            continue
        met = TIMES.get((config, m), OTHER[higher])
        writer.writerow([name, float(met), int(iters), spec, kfilter])
        kept += 1
    assert kept > 4 and len({c for c, _ in TIMES}) == 2
    path = tmp_path / "edge.csv"
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


def _within(value: str, best: str, tol: str, higher: bool) -> bool:
    """Exactly: value / best <= 1 + tol (best / value when higher is better)."""
    ratio = (
        Fraction(best) / Fraction(value) if higher else Fraction(value) / Fraction(best)
    )
    return ratio <= 1 + Fraction(tol)


def _best(m: str, higher: bool) -> str:
    times = [t for (_, shape), t in TIMES.items() if shape == m]
    return max(times, key=Fraction) if higher else min(times, key=Fraction)


def _served(config: str, tol: str, higher: bool) -> list[bool]:
    return [_within(TIMES[config, m], _best(m, higher), tol, higher) for m in SHAPES]


DIRECTIONS = [
    pytest.param(False, [], id="lower-is-better"),
    pytest.param(True, ["--higher-is-better"], id="higher-is-better"),
]


def _json(capsys: Any, *args: str) -> dict[str, dict[str, Any]]:
    code, out, err = run(capsys, *args, "--format", "json")
    assert code == 0, err
    return sections(out)


@pytest.mark.parametrize(("higher", "flag"), DIRECTIONS)
def test_within_keeps_the_run_at_the_tolerance(
    at_the_edge: Path, capsys: Any, higher: bool, flag: list[str]
) -> None:
    code, out, err = run(
        capsys, str(at_the_edge), *flag, "-p", "M", "--within", "0.05", "--format",
        "json",
    )  # fmt: skip
    assert code == 0, err
    kept = [s["facts"]["entries"] for s in json.loads(out)["sections"]
            if s["view"] == "within"]  # fmt: skip
    ran = sum(1 for _ in at_the_edge.open()) // len(SHAPES)  # rows of a shape
    want = [
        sum(_within(TIMES[c, m], _best(m, higher), "0.05", higher)
            for c in (CONFIG_A, CONFIG_B))
        for m in SHAPES
    ]  # fmt: skip
    assert want == [2, 2]  # the oracle: 2.10 / 2.00 is 1.05 exactly
    assert kept == [f"{n} of {ran} that ran" for n in want]


@pytest.mark.parametrize(("higher", "flag"), DIRECTIONS)
def test_cover_shares_a_config_whose_runs_are_at_the_tolerance(
    at_the_edge: Path, capsys: Any, higher: bool, flag: list[str]
) -> None:
    assert all(_served(CONFIG_A, "0.05", higher))  # one config serves both
    found = _json(capsys, str(at_the_edge), *flag, "--cover", "0.05")
    assert found["cover"]["facts"]["configs"] == 1
    assert found["cover"]["facts"]["own config"] == 0


@pytest.mark.parametrize(("higher", "flag"), DIRECTIONS)
def test_ranges_make_one_range_of_points_at_the_tolerance(
    at_the_edge: Path, capsys: Any, higher: bool, flag: list[str]
) -> None:
    assert all(_served(CONFIG_A, "0.05", higher))
    found = _json(capsys, str(at_the_edge), *flag, "--ranges", "M", "--tol", "0.05")
    assert found["ranges"]["facts"]["entries"] == 1


@pytest.mark.parametrize(("higher", "flag"), DIRECTIONS)
def test_a_ratio_at_half_the_tolerance_is_not_borderline(
    at_the_edge: Path, capsys: Any, higher: bool, flag: list[str]
) -> None:
    """--ranges marks a point borderline when it is not within half the tolerance:
    1.05 is exactly half of 10%, so no point is."""
    assert all(_served(CONFIG_A, "0.05", higher))
    found = _json(capsys, str(at_the_edge), *flag, "--ranges", "M", "--tol", "0.1")
    (row,) = found["ranges-group"]["rows"]
    assert row["borderline"] in ("", None)


@pytest.mark.parametrize(("higher", "flag"), DIRECTIONS)
def test_score_counts_the_shape_at_five_percent_within_five_percent(
    at_the_edge: Path, tmp_path: Path, capsys: Any, higher: bool, flag: list[str]
) -> None:
    config = dict(t.split("=") for t in CONFIG_A.split("/"))
    entries = [
        {"M": int(m), "N": 4096, "K": 4096, **{k: yaml.safe_load(v) for k, v in
                                               config.items()}}
        for m in SHAPES
    ]  # fmt: skip
    table = tmp_path / "table.yaml"
    table.write_text(yaml.safe_dump({"params": entries}, sort_keys=False))
    found = _json(capsys, "--score", str(table), str(at_the_edge), *flag)
    facts = found["score"]["facts"]
    want = sum(_served(CONFIG_A, "0.05", higher))
    assert want == 2
    assert facts["within 5%"] == f"{want} of 2 (100.0%)"
