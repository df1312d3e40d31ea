"""A failed run shows its kind wherever its row is shown: ``failed (build)``,
``failed (execution)``, ``failed (timeout)`` as kbench recorded it, ``failed`` where
nothing recorded why (a metric of 0 or missing), in every format.

The oracle is kbench's record read with ``json`` (and the CSV with pandas), never
kprofile.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from support import FIXTURES, RESULTS, run

REAL = FIXTURES / "realkbench"
# C: numpy, execution and timeout; D: Mojo, build and execution; F, G: Mojo GEMM
# sweeps over problems N, K, build and execution.
RUNS = ("C", "D", "F", "G")
ROW = re.compile(r"^[* ]\s*(\d+)\s.*\s(ran|failed \(\w+\)|failed)$")


def _ratio_section(out: str) -> str:
    """The ratio view's lines of a report, without the sections after it (the
    per-shape table of a run of several shapes)."""
    after = out.split("ratio to best", 1)[1].split("\n", 1)[1]
    return re.split(r"^(?:== |#)", after, maxsplit=1, flags=re.M)[0]


def _kinds(run_set: str) -> dict[int, str]:
    """mesh_idx -> the kind kbench recorded, from its own record."""
    record = json.loads((REAL / run_set / "out.failures.json").read_text())
    return {f["mesh_idx"]: f["failure_type"] for f in record["failures"]}


def _status(run_set: str, mesh_idx: int) -> str:
    kind = _kinds(run_set).get(mesh_idx)
    return "ran" if kind is None else f"failed ({kind})"


@pytest.mark.parametrize("run_set", RUNS)
@pytest.mark.parametrize("pivots", [(), ("-p", "M,N,K")])
def test_every_row_of_the_ratio_view_says_whether_it_ran_or_how_it_failed_json(
    capsys: pytest.CaptureFixture[str], run_set: str, pivots: tuple[str, ...]
) -> None:
    code, out, err = run(
        capsys, str(REAL / run_set / "out.pkl"), "-r", *pivots, "-q", "--format", "json"
    )
    assert code == 0, err
    sections = [s for s in json.loads(out)["sections"] if s["view"] == "ratio"]
    shown = {}
    for section in sections:  # a group where every run ran needs no status
        failed = any(row["ratio"] is None for row in section["rows"])
        assert ("status" in section["columns"]) == failed
        for row in section["rows"]:
            shown[row["mesh_idx"]] = row.get("status", "ran")
            assert (row["ratio"] is None) == (shown[row["mesh_idx"]] != "ran")
    assert shown == {i: _status(run_set, i) for i in shown}
    assert {i for i, s in shown.items() if s != "ran"} == set(_kinds(run_set))


@pytest.mark.parametrize("run_set", RUNS)
def test_the_text_and_markdown_ratio_views_show_the_kind_of_each_failed_run(
    capsys: pytest.CaptureFixture[str], run_set: str
) -> None:
    path = str(REAL / run_set / "out.pkl")
    code, out, err = run(capsys, path, "-r", "-q")
    assert code == 0, err
    lines = _ratio_section(out).splitlines()
    text = {int(m[1]): m[2] for m in (ROW.match(line) for line in lines) if m}
    code, out, err = run(capsys, path, "-r", "-q", "--format", "markdown")
    assert code == 0, err
    table = _ratio_section(out)
    cells = [
        [c.strip().strip("*") for c in line.strip("|").split("|")]
        for line in table.splitlines()
        if line.startswith("| ") and not line.startswith("| mesh_idx")
    ]
    markdown = {int(c[0]): c[-1] for c in cells}
    expected = {i: _status(run_set, i) for i in markdown}
    assert text == markdown == expected
    assert len(expected) == len(pd.read_csv(REAL / run_set / "out.csv")) + len(
        _kinds(run_set)
    )


def test_the_ratio_view_of_run_c_reads_as_kbench_recorded_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, str(REAL / "C/out.pkl"), "-r", "-q")
    assert code == 0
    assert _ratio_section(out).rstrip("\n").splitlines()[-6:] == [
        "         7  128  128  64   64    0.0699  313.637  ran",
        "        16   96  192  64   64    0.0949  425.713  ran",
        "        11   96  192  16  128         -        -  failed (execution)",
        "        14   96  192  32  128         -        -  failed (execution)",
        "        15   96  192  64   32         -        -  failed (timeout)",
        "        17   96  192  64  128         -        -  failed (execution)",
    ]


def test_a_failure_nothing_recorded_is_said_plainly(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """No ``.failures.json`` beside the shipped CSV: a metric of 0 or missing is a
    failed run, of no kind."""
    path = RESULTS / "run1" / "M256_N20480_K5376.csv"
    metric = pd.read_csv(path)["met (ms)"]
    failed = int((~(metric > 0)).sum())
    code, out, err = run(capsys, str(path), "-r", "-q", "--format", "json")
    assert code == 0, err
    (ratio,) = [s for s in json.loads(out)["sections"] if s["view"] == "ratio"]
    statuses = [row["status"] for row in ratio["rows"]]
    assert statuses == ["ran"] * (len(metric) - failed) + ["failed"] * failed
    assert failed == 4


@pytest.mark.parametrize(
    "view", [("--head", "30"), ("--tail", "30"), ("--within", "50%", "-v")]
)
def test_views_of_runs_that_ran_add_no_status(
    capsys: pytest.CaptureFixture[str], view: tuple[str, ...]
) -> None:
    """``--head``, ``--tail`` and the ``-v`` lists show only runs that ran: no
    column says so."""
    code, out, err = run(
        capsys, str(REAL / "D/out.pkl"), *view, "-q", "--format", "json"
    )
    assert code == 0, err
    tables = [s for s in json.loads(out)["sections"] if "mesh_idx" in s["columns"]]
    assert tables and all("status" not in s["columns"] for s in tables)
    assert all(r["ratio"] is not None for s in tables for r in s["rows"])


def test_the_report_shows_the_kind_too(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "run.html"
    code, _, err = run(capsys, str(REAL / "D/out.pkl"), "-r", "-q", "--report",
                       str(report))  # fmt: skip
    assert code == 0, err
    page = report.read_text()
    assert page.count('<td class="text">failed (build)</td>') == 4
    assert page.count('<td class="text">failed (execution)</td>') == 2


@pytest.mark.parametrize("run_set", RUNS)
def test_a_table_whose_config_failed_says_how_in_the_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], run_set: str
) -> None:
    """--score's shapes without a ratio showed 'config failed' without the kind kbench
    recorded; the table here dispatches, per shape, a config of kbench's record."""
    record = json.loads((REAL / run_set / "out.failures.json").read_text())
    entries: dict[tuple[int, ...], dict[str, int]] = {}
    for failure in record["failures"]:
        point = {k.lstrip("$"): v for k, v in failure["params"].items()}
        shape = tuple(point[k] for k in ("M", "N", "K"))
        entries.setdefault(shape, {**point, "KIND": failure["failure_type"]})
    lines = [f"name: {record['spec_name']}", "params:"]
    for entry in entries.values():
        keys = [k for k in entry if k != "KIND"]
        lines += [f"- {keys[0]}: {entry[keys[0]]}"]
        lines += [f"  {k}: {entry[k]}" for k in keys[1:]]
    (tmp_path / "table.yaml").write_text("\n".join(lines) + "\n")
    code, out, err = run(capsys, "--score", str(tmp_path / "table.yaml"),
                         str(REAL / run_set / "out.pkl"), "--format", "json")  # fmt: skip
    assert code == 0, err
    (section,) = [s for s in json.loads(out)["sections"]
                  if s["view"] == "score-unscored"]  # fmt: skip
    shown = {(r["M"], r["N"], r["K"]): (r["status"], r["failure"])
             for r in section["rows"] if r["status"] != "no entry"}  # fmt: skip
    assert shown == {s: ("config failed", e["KIND"]) for s, e in entries.items()}
