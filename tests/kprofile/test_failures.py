"""kbench's record of failures (``NAME.failures.json`` beside ``NAME.pkl``/``.csv``)
read through the real command on genuine kbench runs: the failed points counted by
kind, ranked last and never best in the views, ``--importance``, ``--cover`` and
``--budget``; a record that cannot be used is one warning and the results are read
without it; no record, no word.

The oracle is the record itself, read with ``json`` and pandas, never kprofile.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from support import FIXTURES, run

from kprofile.inputs.limits import MAX_FAILURES_BYTES

REAL = FIXTURES / "realkbench"
SECONDS = "met (s)"
NOTE = "kprofile: no 'met (ms)' column; metric 'met (s)' (lower is better); -m chooses another\n"
SHAPE = ("M", "N", "K")
TUNING = ("BM", "BN", "BK")


def _failures(run_set: str = "A") -> list[dict[str, Any]]:
    record = json.loads((REAL / run_set / "out.failures.json").read_text())
    return list(record["failures"])


def _point(failure: dict[str, Any]) -> dict[str, Any]:
    return {k.lstrip("$"): v for k, v in failure["params"].items()}


def _measured(run_set: str = "A") -> pd.DataFrame:
    """The rows of the CSV kbench wrote, with the parameters of each spec string."""
    raw = pd.read_csv(REAL / run_set / "out.csv")
    params = pd.DataFrame(
        [
            {k.lstrip("$"): int(v) for k, v in (t.split("=") for t in s.split("/")[1:])}
            for s in raw["spec"]
        ]
    )
    return raw.join(params)


def _shape(values: dict[str, Any]) -> str:
    return "/".join(f"{k}={values[k]}" for k in SHAPE)


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code, out, err = run(capsys, *args, "--format", "json")
    assert code == 0, err
    return dict(json.loads(out))


def _sections(document: dict[str, Any], view: str) -> list[dict[str, Any]]:
    return [s for s in document["sections"] if s["view"] == view]


@pytest.mark.parametrize("name", ["A/out.pkl", "B/out.pkl", "A/out.csv", "B/out.csv"])
def test_the_summary_counts_each_shapes_failed_points_by_kind(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    run_set = name[0]
    failures = _failures(run_set)
    measured = _measured(run_set)
    document = _json(capsys, str(REAL / name), "-p", "M,N,K")
    summaries = _sections(document, "summary")
    assert len(summaries) == 3
    for section in summaries:
        facts = section["facts"]
        here = [f for f in failures if _shape(_point(f)) == facts["shape"]]
        kinds = [f["failure_type"] for f in here]
        shapes = [_shape(r) for r in measured.to_dict("records")]
        ran = measured[[s == facts["shape"] for s in shapes]]
        assert facts["entries"] == len(ran) + len(here)
        assert facts["failed"] == len(here)
        assert facts["failed build"] == kinds.count("build")
        assert facts["failed execution"] == kinds.count("execution")
        assert facts["failed timeout"] == kinds.count("timeout")
        assert facts["best met (s)"] == ran[SECONDS].min()


def test_the_whole_file_summary_counts_every_failed_point(
    capsys: pytest.CaptureFixture[str],
) -> None:
    failures = _failures()
    facts = _sections(_json(capsys, str(REAL / "A/out.pkl")), "summary")[0]["facts"]
    assert len(failures) == 12
    assert (facts["entries"], facts["failed"]) == (len(_measured()) + 12, 12)
    assert facts["failed execution"] == 12
    assert (facts["failed build"], facts["failed timeout"]) == (0, 0)


def test_the_best_config_of_the_file_is_ranked_last_where_it_failed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The file's best row alone (mesh_idx 59: BN=128) failed at N=192: in that
    shape's --ratio view its config comes after every point that ran, with no
    ratio, and --head never shows it."""
    measured = _measured()
    best = measured.loc[measured[SECONDS].idxmin()]
    config = {p: int(best[p]) for p in TUNING}
    failed_at = [
        _shape(_point(f))
        for f in _failures()
        if {p: _point(f)[p] for p in TUNING} == config
    ]
    assert failed_at == ["M=384/N=192/K=320"]
    document = _json(
        capsys, str(REAL / "A/out.pkl"), "-p", "M,N,K", "-r", "--head", "3"
    )
    ratio = next(
        s
        for s in _sections(document, "ratio")
        if s["title"].endswith(f"[{failed_at[0]}]: ratio to best")
    )
    rows = ratio["rows"]
    ran = [r for r in rows if r["ratio"] is not None]
    assert rows[: len(ran)] == ran  # every failed point after every one that ran
    assert len(rows) - len(ran) == 12
    same = [r for r in rows if {p: r[p] for p in TUNING} == config]
    assert len(same) == 1 and same[0]["ratio"] is None and same[0][SECONDS] is None
    head = next(s for s in _sections(document, "head") if failed_at[0] in s["title"])
    assert all(r["ratio"] is not None for r in head["rows"])


def test_importance_never_calls_a_value_that_fails_at_a_shape_best(
    capsys: pytest.CaptureFixture[str],
) -> None:
    failures, measured = _failures(), _measured()
    document = _json(capsys, str(REAL / "A/out.pkl"), "--importance")
    (ranked,) = _sections(document, "importance")
    (values,) = _sections(document, "importance-values")
    shapes = measured[list(SHAPE)].drop_duplicates().to_dict("records")
    for param in TUNING:
        best = next(r["best value"] for r in ranked["rows"] if r["param"] == param)
        for row in (r for r in values["rows"] if r["param"] == param):
            # the shapes where the value failed and never ran (the oracle)
            fails = [
                s
                for s in shapes
                if any(
                    _point(f)[param] == row["value"] and _shape(_point(f)) == _shape(s)
                    for f in failures
                )
                and not (
                    (measured[param] == row["value"])
                    & (measured[list(SHAPE)] == pd.Series(s)).all(axis=1)
                ).any()
            ]
            assert row["fails"] == len(fails), (param, row["value"])
            if fails:
                assert best != row["value"]
    bn = next(r for r in ranked["rows"] if r["param"] == "BN")
    assert bn["best value"] == 64  # BN=128 reaches 1.030 where it runs, fails at N=192


@pytest.mark.parametrize(
    "mode", [("--cover", "0.3"), ("--cover", "0"), ("--budget", "1"), ("--budget", "2")]
)
def test_cover_and_budget_never_give_a_shape_a_config_that_failed_there(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, mode: tuple[str, str]
) -> None:
    out = tmp_path / "table.yaml"
    code, _, err = run(
        capsys, str(REAL / "A/out.pkl"), "-p", "M,N,K", *mode, "-o", str(out)
    )
    assert code == 0, err
    entries = yaml.safe_load(out.read_text())["params"]
    failed = {
        (_shape(_point(f)), tuple(_point(f)[p] for p in TUNING)) for f in _failures()
    }
    measured = _measured()
    ran = {
        (_shape(r), tuple(int(r[p]) for p in TUNING))
        for r in measured.to_dict("records")
    }
    assert len(entries) == 3
    for entry in entries:
        pair = (_shape(entry), tuple(entry[p] for p in TUNING))
        assert pair not in failed and pair in ran


# ------------------------------------------------------------------ bad records


def _copy(tmp_path: Path, record: bytes | None) -> Path:
    shutil.copy(REAL / "A/out.pkl", tmp_path / "out.pkl")
    if record is not None:
        (tmp_path / "out.failures.json").write_bytes(record)
    return tmp_path / "out.pkl"


def _genuine() -> dict[str, Any]:
    return dict(json.loads((REAL / "A/out.failures.json").read_text()))


def _with(change: Any) -> bytes:
    record = _genuine()
    change(record)
    return json.dumps(record, indent=2).encode()


BAD = {
    "not JSON": (
        b'{"failures": [',
        "not valid JSON (Expecting value: line 1 column 15 (char 14))",
    ),
    "not UTF-8": (b'{"failures": []}\xff', "not valid UTF-8 (byte offset 16)"),
    "deep": (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    "a list": (b"[]", "not a kbench failures record (no 'failures' list)"),
    "no failures": (
        b'{"spec_name": "np_blocked_matmul"}',
        "not a kbench failures record (no 'failures' list)",
    ),
    "mesh_idx text": (
        _with(lambda r: r["failures"][0].update(mesh_idx="105")),
        "failure 0: mesh_idx is not a point's index",
    ),
    "params nested": (
        _with(lambda r: r["failures"][1]["params"].update(BM={"x": [1]})),
        "failure 1: BM is not a scalar",
    ),
    "a slash in a value": (
        _with(lambda r: r["failures"][2]["params"].update(BK="../../x")),
        "failure 2: the value of BK cannot be part of a spec",
    ),
    "twice": (
        _with(lambda r: r["failures"].append(r["failures"][0])),
        "mesh_idx 105 failed twice",
    ),
    "another run": (
        _with(lambda r: r["failures"][0].update(mesh_idx=0)),
        "mesh_idx 0 is a measured row too (a record of another run)",
    ),
    "another benchmark": (
        _with(lambda r: r.update(spec_name="other")),
        "it names another benchmark than the results do",
    ),
    "NaN": (
        b'{"failures": [], "num_valid": NaN}',
        "not valid JSON (NaN is no JSON number)",
    ),
}


@pytest.mark.parametrize("case", list(BAD))
def test_a_record_that_cannot_be_used_is_one_warning_and_the_results_are_read(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, case: str
) -> None:
    data, reason = BAD[case]
    path = _copy(tmp_path, data)
    before = (tmp_path / "out.failures.json").read_bytes()
    code, out, err = run(capsys, str(path), "-p", "M,N,K", "--format", "json")
    assert code == 0
    warning = (
        f"{tmp_path / 'out.failures.json'}: warning: {reason}; "
        "its failed points are not counted\n"
    )
    assert err == warning + NOTE  # loading warns before the metric is chosen
    facts = [s["facts"] for s in json.loads(out)["sections"]]
    assert sum(f["entries"] for f in facts) == len(_measured())
    assert all(f["failed"] == 0 and "failed execution" not in f for f in facts)
    assert (tmp_path / "out.failures.json").read_bytes() == before


def test_a_record_over_the_size_limit_is_one_warning(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = _copy(tmp_path, b" " * (MAX_FAILURES_BYTES + 1))
    code, _, err = run(capsys, str(path), "-p", "M,N,K")
    assert code == 0
    assert err.count("\n") == 2
    assert f"larger than the limit of {MAX_FAILURES_BYTES:,} bytes" in err


def test_a_folder_where_the_record_goes_is_one_warning(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = _copy(tmp_path, None)
    (tmp_path / "out.failures.json").mkdir()
    code, _, err = run(capsys, str(path), "-p", "M,N,K")
    assert code == 0
    assert err.count("\n") == 2
    assert f"{tmp_path / 'out.failures.json'}: warning: " in err


def test_no_record_no_word(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = _copy(tmp_path, None)
    code, out, err = run(capsys, str(path), "-p", "M,N,K", "--format", "json")
    assert (code, err) == (0, NOTE)
    facts = [s["facts"] for s in json.loads(out)["sections"]]
    assert [f["failed"] for f in facts] == [0, 0, 0]
    assert all("failed build" not in f for f in facts)


def test_kinds_kbench_writes_are_each_counted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The genuine record with kinds the Python sweep did not produce (build,
    timeout) given to some of its points, as kbench labels them."""
    kinds = ["build", "timeout", "timeout"] + ["execution"] * 9

    def relabel(record: dict[str, Any]) -> None:
        for failure, kind in zip(record["failures"], kinds):
            failure["failure_type"] = kind

    path = _copy(tmp_path, _with(relabel))
    (facts,) = [s["facts"] for s in _sections(_json(capsys, str(path)), "summary")]
    assert (facts["failed build"], facts["failed timeout"]) == (1, 2)
    assert (facts["failed execution"], facts["failed"]) == (9, 12)
