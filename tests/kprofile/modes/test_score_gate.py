"""``--fail-above`` means what it says, through the real command: a shape where the
table's config failed, or where no config ran, fails the gate (the geomean of the
shapes that ran cannot speak for them) unless ``--allow-failed`` is given, and the
report says how many shapes each reason covers. A shape no entry covers is outside
the table: counted apart, never a failure of the gate.

Results are kbench pickles whose failed points are missing rows (as kbench leaves
them) or a metric of 0 (as some harnesses write them)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from support import run

SHAPES = 13


def _rows(crashed: set[int], nothing_ran: frozenset[int]) -> list[dict[str, object]]:
    """13 shapes (M = 16, 32, ...) x two configs; the table's config (BM=128) is the
    best wherever it runs. At ``crashed`` shapes BM=128 failed (odd ones: no row,
    even ones: a metric of 0); at ``nothing_ran`` shapes both did (a metric of 0:
    a shape with no row at all is no shape of the results)."""
    rows: list[dict[str, object]] = []
    for i in range(SHAPES):
        m = 16 * (i + 1)
        for bm, met in ((64, 2.0), (128, 1.0)):
            failed = i in nothing_ran or (bm == 128 and i in crashed)
            if failed and i % 2 and i not in nothing_ran:
                continue
            rows.append({"M": m, "BM": bm, "met (ms)": 0.0 if failed else met})
    return rows


@pytest.fixture
def gate_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kb_write: Callable[..., Path]
) -> Callable[..., list[str]]:
    monkeypatch.chdir(tmp_path)

    def make(crashed: set[int], nothing_ran: frozenset[int] = frozenset()) -> list[str]:
        kb_write("r.pkl", _rows(crashed, nothing_ran))
        table = "".join(f"- {{M: {16 * (i + 1)}, BM: 128}}\n" for i in range(SHAPES))
        (tmp_path / "t.yaml").write_text("params:\n" + table)
        return ["--score", "t.yaml", "r.pkl", "-p", "M", "--fail-above", "1.05"]

    return make


def test_a_table_whose_config_crashed_at_12_of_13_shapes_fails(
    gate_case: Callable[..., list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: exit 0, the gate judged the one shape that ran (ratio 1.000). Of the
    12 crashed shapes, the 6 even ones hold the failed run (config failed) and the 6
    odd ones no row of it (not measured): both fail the gate."""
    args = gate_case(crashed=set(range(1, SHAPES)))
    code, out, err = run(capsys, *args)
    assert code == 1
    assert "geomean ratio             1.000\n" in out
    assert "config failed             6\n" in out
    assert "not measured              6\n" in out
    assert (
        "fail above                1.05: fail (12 of 13 shapes without a ratio: 6 "
        "config failed, 6 not measured, 0 no successful run)\n"
    ) in out
    assert err == (
        "kprofile: fail: 12 of 13 shapes have no ratio: 6 where the table's config "
        "failed (config failed), 6 where it has no run (not measured), 0 where no "
        "config ran (no successful run); --allow-failed judges the scored shapes "
        "alone\n"
    )


def test_a_shape_where_nothing_ran_fails(
    gate_case: Callable[..., list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    args = gate_case(crashed={3}, nothing_ran=frozenset({5, 6}))
    code, out, err = run(capsys, *args, "--format", "json")
    assert code == 1
    document = json.loads(out)
    facts = document["sections"][0]["facts"]
    counts = ("scored", "config failed", "not measured", "no successful run")
    assert [facts[c] for c in counts] == [10, 0, 1, 2]  # shape 3 (odd): no row
    why = (
        "fail: 3 of 13 shapes have no ratio: 0 where the table's config failed "
        "(config failed), 1 where it has no run (not measured), 2 where no config "
        "ran (no successful run); --allow-failed judges the scored shapes alone"
    )
    assert document["failed"] == why
    assert err == f"kprofile: {why}\n"


def test_allow_failed_judges_the_scored_shapes_and_says_so(
    gate_case: Callable[..., list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    args = gate_case(crashed=set(range(1, SHAPES)), nothing_ran=frozenset())
    code, out, err = run(capsys, *args, "--allow-failed")
    assert (code, err) == (0, "")
    assert (
        "fail above                1.05: pass (--allow-failed: 12 of 13 shapes "
        "without a ratio: 6 config failed, 6 not measured, 0 no successful run)\n"
    ) in out


def test_allow_failed_still_fails_a_geomean_above_the_limit(
    gate_case: Callable[..., list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    args = gate_case(crashed={2})
    Path("t.yaml").write_text(  # BM=64 everywhere: ratio 2.0 at every shape
        "params:\n"
        + "".join(f"- {{M: {16 * (i + 1)}, BM: 64}}\n" for i in range(SHAPES))
    )
    code, _, err = run(capsys, *args, "--allow-failed")
    assert (code, err) == (
        1,
        # ratio 2 at 12 shapes, 1 at the one where BM=128 crashed (BM=64 is best)
        f"kprofile: fail: the geomean ratio {2 ** (12 / 13):.6g} is above "
        "--fail-above 1.05\n",
    )


def test_every_shape_run_passes_without_the_flag(
    gate_case: Callable[..., list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, *gate_case(crashed=set()))
    assert (code, err) == (0, "")
    assert "fail above                1.05: pass\n" in out


def test_a_shape_no_entry_covers_is_counted_and_does_not_fail(
    gate_case: Callable[..., list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    args = gate_case(crashed=set())
    table = Path("t.yaml").read_text().splitlines(keepends=True)
    Path("t.yaml").write_text("".join(table[:-2]))  # the last two shapes: no entry
    code, out, err = run(capsys, *args)
    assert (code, err) == (0, "")
    assert "no entry                  2\n" in out
    assert "fail above                1.05: pass\n" in out
