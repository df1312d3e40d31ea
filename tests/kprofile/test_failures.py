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
from support import COMPRESSIONS, FIXTURES, compress, run

from kprofile.inputs.limits import MAX_FAILURES_BYTES

REAL = FIXTURES / "realkbench"
SECONDS = "met (s)"
NOTE = "kprofile: no 'met (ms)' column; metric 'met (s)' (lower is better); -m chooses another\n"
SHAPE = ("M", "N", "K")
# The genuine runs: A and B (numpy, 12 points fail at execution), C (numpy, 3 fail at
# execution and 1 times out), D (Mojo: 4 fail to build, 2 at execution).
RUNS = ("A", "B", "C", "D")


def _failures(run_set: str = "A") -> list[dict[str, Any]]:
    record = json.loads((REAL / run_set / "out.failures.json").read_text())
    return list(record["failures"])


def _point(failure: dict[str, Any]) -> dict[str, Any]:
    return {k.lstrip("$"): v for k, v in failure["params"].items()}


def _tuning(run_set: str) -> tuple[str, ...]:
    return tuple(p for p in _point(_failures(run_set)[0]) if p not in SHAPE)


def _metric(run_set: str) -> str:
    return "met (ms)" if run_set == "D" else SECONDS


def _measured(run_set: str = "A") -> pd.DataFrame:
    """The rows of the CSV kbench wrote, with the parameters of each spec string
    and the shape each is of."""
    raw = pd.read_csv(REAL / run_set / "out.csv")
    params = pd.DataFrame(
        [
            {k.lstrip("$"): int(v) for k, v in (t.split("=") for t in s.split("/")[1:])}
            for s in raw["spec"]
        ]
    )
    table = raw.join(params)
    return table.assign(shape=[_shape(r) for r in table.to_dict("records")])


def _shape(values: dict[str, Any]) -> str:
    return "/".join(f"{k}={values[k]}" for k in SHAPE)


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code, out, err = run(capsys, *args, "--format", "json")
    assert code == 0, err
    return dict(json.loads(out))


def _sections(document: dict[str, Any], view: str) -> list[dict[str, Any]]:
    return [s for s in document["sections"] if s["view"] == view]


def test_the_genuine_runs_hold_every_kind_of_failure() -> None:
    kinds = {r: [f["failure_type"] for f in _failures(r)] for r in RUNS}
    assert {r: len(k) for r, k in kinds.items()} == {"A": 12, "B": 12, "C": 4, "D": 6}
    assert set(kinds["C"]) == {"execution", "timeout"}
    assert set(kinds["D"]) == {"build", "execution"}


@pytest.mark.parametrize("kind", ["pkl", "csv"])
@pytest.mark.parametrize("run_set", RUNS)
def test_the_summary_counts_each_shapes_failed_points_by_kind(
    capsys: pytest.CaptureFixture[str], run_set: str, kind: str
) -> None:
    failures, measured = _failures(run_set), _measured(run_set)
    document = _json(capsys, str(REAL / run_set / f"out.{kind}"), "-p", "M,N,K")
    summaries = _sections(document, "summary")
    assert len(summaries) == measured["shape"].nunique()
    for section in summaries:
        facts = section["facts"]
        kinds = [
            f["failure_type"] for f in failures if _shape(_point(f)) == facts["shape"]
        ]
        ran = measured[measured["shape"] == facts["shape"]]
        assert facts["entries"] == len(ran) + len(kinds)
        assert facts["failed"] == len(kinds)
        assert facts["failed build"] == kinds.count("build")
        assert facts["failed execution"] == kinds.count("execution")
        assert facts["failed timeout"] == kinds.count("timeout")
        assert facts[f"best {_metric(run_set)}"] == ran[_metric(run_set)].min()


@pytest.mark.parametrize("run_set", RUNS)
def test_the_whole_file_summary_counts_every_failed_point(
    capsys: pytest.CaptureFixture[str], run_set: str
) -> None:
    kinds = [f["failure_type"] for f in _failures(run_set)]
    document = _json(capsys, str(REAL / run_set / "out.pkl"))
    facts = _sections(document, "summary")[0]["facts"]
    assert facts["entries"] == len(_measured(run_set)) + len(kinds)
    assert facts["failed"] == len(kinds)
    for kind in ("build", "execution", "timeout"):
        assert facts[f"failed {kind}"] == kinds.count(kind)


@pytest.mark.parametrize("run_set", RUNS)
def test_a_config_is_ranked_last_at_every_shape_where_it_failed(
    capsys: pytest.CaptureFixture[str], run_set: str
) -> None:
    """--ratio per shape: every failed point after every one that ran, with no
    ratio and no measurement; --head never shows one."""
    tuning, metric = _tuning(run_set), _metric(run_set)
    path = str(REAL / run_set / "out.pkl")
    document = _json(capsys, path, "-p", "M,N,K", "-r", "--head", "3")
    heads = _sections(document, "head")
    for ratio, head in zip(_sections(document, "ratio"), heads, strict=True):
        rows = ratio["rows"]
        ran = [r for r in rows if r["ratio"] is not None]
        failed = rows[len(ran) :]
        shape = ratio["title"].split("[")[1].split("]")[0]
        here = [_point(f) for f in _failures(run_set) if _shape(_point(f)) == shape]
        assert rows[: len(ran)] == ran
        assert sorted(tuple(r[p] for p in tuning) for r in failed) == sorted(
            tuple(f[p] for p in tuning) for f in here
        )
        assert all(r[metric] is None for r in failed)
        assert all(r["ratio"] is not None for r in head["rows"])


def test_the_best_config_of_one_shape_that_timed_out_at_another_is_last_there(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Run C: the best config at M=128 is the one that hung at M=96 (a timeout)."""
    measured = _measured("C")
    first = measured[measured["shape"] == "M=128/N=128/K=128"]
    best = first.loc[first[SECONDS].idxmin()]
    config = {p: int(best[p]) for p in ("BM", "BN")}
    (timed_out,) = [f for f in _failures("C") if f["failure_type"] == "timeout"]
    assert {p: _point(timed_out)[p] for p in config} == config
    document = _json(capsys, str(REAL / "C/out.pkl"), "-p", "M,N,K", "-r")
    ratio = [s for s in _sections(document, "ratio") if "M=96/" in s["title"]][0]
    failed_here = [f for f in _failures("C") if _point(f)["M"] == 96]
    same = [r for r in ratio["rows"] if {p: r[p] for p in config} == config]
    assert len(same) == 1
    assert same[0] in ratio["rows"][-len(failed_here) :]  # among the failed, last
    assert same[0]["ratio"] is None and same[0][SECONDS] is None


@pytest.mark.parametrize("run_set", ["A", "C", "D"])
def test_importance_never_calls_a_value_that_fails_at_a_shape_best(
    capsys: pytest.CaptureFixture[str], run_set: str
) -> None:
    failures, measured = _failures(run_set), _measured(run_set)
    document = _json(capsys, str(REAL / run_set / "out.pkl"), "--importance")
    (ranked,) = _sections(document, "importance")
    (values,) = _sections(document, "importance-values")
    shapes = measured["shape"].unique().tolist()
    for param in _tuning(run_set):
        best = next(r["best value"] for r in ranked["rows"] if r["param"] == param)
        for row in (r for r in values["rows"] if r["param"] == param):
            # the shapes where the value failed and never ran (the oracle)
            ran = set(measured["shape"][measured[param] == row["value"]])
            failed = {
                _shape(_point(f)) for f in failures if _point(f)[param] == row["value"]
            }
            fails = [s for s in shapes if s in failed and s not in ran]
            assert row["fails"] == len(fails), (param, row["value"])
            if fails:
                assert best != row["value"]


def test_importance_of_the_mojo_run_picks_the_one_tile_that_always_builds_and_runs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """D: BN=128 never builds, BN=64 fails at N=96; BN=32 is the only safe value."""
    document = _json(capsys, str(REAL / "D/out.pkl"), "--importance")
    (ranked,) = _sections(document, "importance")
    bn = next(r for r in ranked["rows"] if r["param"] == "BN")
    assert bn["best value"] == 32


def test_importance_of_run_a_does_not_pick_the_tile_that_fails_at_n_192(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """BN=128 reaches 1.030 of the best where it runs, and fails at N=192."""
    document = _json(capsys, str(REAL / "A/out.pkl"), "--importance")
    (ranked,) = _sections(document, "importance")
    assert next(r for r in ranked["rows"] if r["param"] == "BN")["best value"] == 64


@pytest.mark.parametrize(
    "mode", [("--cover", "0.3"), ("--cover", "0"), ("--budget", "1"), ("--budget", "2")]
)
@pytest.mark.parametrize("run_set", ["A", "C", "D"])
def test_cover_and_budget_never_give_a_shape_a_config_that_failed_there(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    run_set: str,
    mode: tuple[str, str],
) -> None:
    out = tmp_path / "table.yaml"
    path = str(REAL / run_set / "out.pkl")
    code, _, err = run(capsys, path, "-p", "M,N,K", *mode, "-o", str(out))
    assert code == 0, err
    tuning = _tuning(run_set)
    entries = yaml.safe_load(out.read_text())["params"]
    failed = {
        (_shape(_point(f)), tuple(_point(f)[p] for p in tuning))
        for f in _failures(run_set)
    }
    measured = _measured(run_set)
    ran = {
        (r["shape"], tuple(int(r[p]) for p in tuning))
        for r in measured.to_dict("records")
    }
    assert len(entries) == measured["shape"].nunique()
    for entry in entries:
        pair = (_shape(entry), tuple(entry[p] for p in tuning))
        assert pair not in failed and pair in ran


@pytest.mark.parametrize("run_set", RUNS)
def test_score_names_a_config_kbench_recorded_as_failed_and_the_gate_fails(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, run_set: str
) -> None:
    """A table that dispatches, at each shape where kbench recorded a failure, one of
    the configs that failed there: each such shape is ``config failed`` (not a config
    the results lack), and ``--fail-above`` fails on them."""
    tuning = _tuning(run_set)
    picked: dict[str, dict[str, Any]] = {}
    for failure in _failures(run_set):
        point = _point(failure)
        picked.setdefault(_shape(point), point)
    table = tmp_path / "t.yaml"
    table.write_text(yaml.safe_dump({"params": list(picked.values())}))
    path = str(REAL / run_set / "out.pkl")
    args = ("--score", str(table), path, "-p", "M,N,K", "--fail-above", "1.05")
    code, out, err = run(capsys, *args, "--format", "json")
    assert code == 1, err
    document = json.loads(out)
    facts = document["sections"][0]["facts"]
    assert (facts["config failed"], facts["not measured"]) == (len(picked), 0)
    unscored = _sections(document, "score-unscored")[0]["rows"]
    rows = [r for r in unscored if r["status"] != "no entry"]  # shapes that all ran
    assert sorted(_shape(r) for r in rows) == sorted(picked)
    assert {r["status"] for r in rows} == {"config failed"}
    for row in rows:
        assert tuple(row[p] for p in tuning) == tuple(
            picked[_shape(row)][p] for p in tuning
        )
    assert f"{len(picked)} where the table's config failed (config failed)" in err


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
    "more names than a file may have": (
        _with(
            lambda r: (
                r["failures"][:2]
                == [
                    f["params"].update({f"P{i}_{j}": 1 for j in range(600)})
                    for i, f in enumerate(r["failures"][:2])
                ]
            )
        ),
        "its points do not fit the results (spec strings name more than 1,000 "
        "distinct parameters (the limit))",
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
    document = json.loads(out)
    facts = [s["facts"] for s in _sections(document, "summary")]
    assert sum(f["entries"] for f in facts) == len(_measured())
    assert all(f["failed"] == 0 and "failed execution" not in f for f in facts)
    (shapes,) = _sections(document, "shapes")
    assert [r["failed"] for r in shapes["rows"]] == [0, 0, 0]
    assert shapes["columns"][-1] == "failed"  # no kind: no record was read
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
    facts = [s["facts"] for s in _sections(json.loads(out), "summary")]
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


def test_a_run_where_nothing_ran_says_what_kbench_recorded(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Run E: every config failed to build; kbench wrote no merged_df, no CSV."""
    path = REAL / "E/out.pkl"
    kinds = [f["failure_type"] for f in _failures("E")]
    assert not (REAL / "E/out.csv").exists() and kinds == ["build", "build"]
    code, out, err = run(capsys, str(path))
    assert (code, out) == (2, "")
    assert err == (
        f"Invalid pkl [{path}]: no 'merged_df': nothing ran "
        f"({REAL / 'E/out.failures.json'} records 2 failed points: build 2)\n"
        "kprofile: error: no usable input (1 file skipped)\n"
    )


@pytest.mark.parametrize("suffix", COMPRESSIONS)
@pytest.mark.parametrize("run_set", RUNS)
def test_a_compressed_pickle_reads_the_record_kbench_wrote_beside_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, run_set: str, suffix: str
) -> None:
    """``out.pkl.gz`` (any compression kprofile reads) is kbench's ``out.pkl``:
    its record is ``out.failures.json``, not ``out.pkl.failures.json``."""
    shutil.copy(REAL / run_set / "out.failures.json", tmp_path)
    path = tmp_path / f"out.pkl{suffix}"
    path.write_bytes(compress((REAL / run_set / "out.pkl").read_bytes(), suffix))
    kinds = [f["failure_type"] for f in _failures(run_set)]
    facts = _sections(_json(capsys, str(path)), "summary")[0]["facts"]
    assert facts["entries"] == len(_measured(run_set)) + len(kinds)
    assert facts["failed"] == len(kinds)
    for kind in ("build", "execution", "timeout"):
        assert facts[f"failed {kind}"] == kinds.count(kind)


def test_a_compressed_run_where_nothing_ran_says_what_kbench_recorded(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    shutil.copy(REAL / "E/out.failures.json", tmp_path)
    path = tmp_path / "out.pkl.gz"
    path.write_bytes(compress((REAL / "E/out.pkl").read_bytes(), ".gz"))
    code, out, err = run(capsys, str(path))
    assert (code, out) == (2, "")
    assert err == (
        f"Invalid pkl [{path}]: no 'merged_df': nothing ran "
        f"({tmp_path / 'out.failures.json'} records 2 failed points: build 2)\n"
        "kprofile: error: no usable input (1 file skipped)\n"
    )
