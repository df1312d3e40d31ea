"""Genuine kbench runs whose problem sizes are compile-time parameters
(``fixtures/realkbench/F`` to ``M``, made by ``fixtures/make_kbench_problems.py``):
spec strings read ``$M=64/N=256/K=128/BM=16/...``, M at run time and N, K fixed at
compile time like the tiles.

Each run loads with plain ``pickle`` and through kprofile's loader and gives the
figures pandas computed where kbench ran (``out.pkl.json``); every point of the spec
kbench ran (``spec.yaml``, beside the results) is a row of ``merged_df`` or a failure
kbench recorded, in kbench's order; and each set has the structure it was made for.
The oracles are the committed files read with ``pickle``, ``json`` and ``yaml``,
never kprofile.
"""

from __future__ import annotations

import itertools
import json
import math
import pickle
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import FIXTURES

from kprofile.inputs.load import load_results

REAL = FIXTURES / "realkbench"
# F: one spec group per problem (Mojo); G: two problems over one $M list (Mojo);
# H: F's spec run again; I, J: two runs of one numpy sweep; K: I's spec, pandas 2.
# L: one numpy problem (N, K compile-time); M: every size at run time ($N, $K).
SETS = ("F", "G", "H", "I", "J", "K", "L", "M")
MOJO = ("F", "G", "H")
NUMPY = ("I", "J", "K", "L", "M")
# K's arrays were pickled by numpy 1 (``numpy.core``): numpy 2 loads them, and warns.
pytestmark = pytest.mark.filterwarnings(
    "ignore:numpy.core.numeric is deprecated:DeprecationWarning"
)


def _pickled(run_set: str) -> dict[str, Any]:
    with (REAL / run_set / "out.pkl").open("rb") as handle:
        data: dict[str, Any] = pickle.load(handle)
    return data


def _json(run_set: str, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((REAL / run_set / name).read_text())
    return data


def _spec(run_set: str) -> dict[str, Any]:
    spec: dict[str, Any] = yaml.safe_load((REAL / run_set / "spec.yaml").read_text())
    return spec


def _points(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """Every point of a kbench spec in kbench's order: each group's cartesian
    product over its keys in order (a scalar is a list of one), group after group."""
    points: list[dict[str, Any]] = []
    for group in spec["params"]:
        lists = [v if isinstance(v, list) else [v] for v in group.values()]
        points += [dict(zip(group, values)) for values in itertools.product(*lists)]
    return points


def _spec_string(stem: str, point: dict[str, Any]) -> str:
    return "/".join([stem, *(f"{name}={value}" for name, value in point.items())])


def _figures(specs: list[str], values: list[float], metric: str) -> dict[str, Any]:
    """The figures of ``out.pkl.json``, in plain Python."""
    ran = [i for i, v in enumerate(values) if math.isfinite(v) and v > 0]
    best = min(ran, key=lambda i: values[i])
    return {
        "entries": len(values),
        "failed": len(values) - len(ran),
        "metric": metric,
        "best": values[best],
        "worst": max(values[i] for i in ran),
        "best_spec": specs[best],
    }


def _metric(run_set: str) -> str:
    return "met (ms)" if run_set in MOJO else "met (s)"


@pytest.mark.parametrize("run_set", SETS)
def test_a_plain_pickle_load_gives_the_figures_pandas_computed(run_set: str) -> None:
    data = _pickled(run_set)
    frame, metric = data["merged_df"], _metric(run_set)
    got = _figures(
        [str(s) for s in frame["spec"]], [float(v) for v in frame[metric]], metric
    )
    assert got == _json(run_set, "out.pkl.json")
    record = _json(run_set, "out.failures.json")
    assert data["name"] == record["spec_name"]
    assert str(data["file"]) == record["spec_file"]
    assert isinstance(data["file"], Path)
    assert len(data["build_df"]) == record["num_total"]


@pytest.mark.parametrize("run_set", SETS)
def test_every_point_kbench_ran_is_a_row_or_a_recorded_failure(run_set: str) -> None:
    """In kbench's order: a row's mesh_idx is its point's place in the spec; the
    spec string names that point; a failure's params are that point."""
    points, frame = _points(_spec(run_set)), _pickled(run_set)["merged_df"]
    record = _json(run_set, "out.failures.json")
    rows = [int(i) for i in frame["mesh_idx"]]
    failed = [f["mesh_idx"] for f in record["failures"]]
    assert sorted(rows + failed) == list(range(len(points)))
    assert rows == sorted(rows)  # rows in mesh order, failures left out
    stem = Path(record["spec_file"]).stem
    want = [_spec_string(stem, points[i]) for i in rows]
    assert [str(s) for s in frame["spec"]] == want
    assert [f["params"] for f in record["failures"]] == [points[i] for i in failed]
    assert (record["num_valid"], record["num_total"]) == (len(rows), len(points))


#: M passes every problem size at run time; the others N and K at compile time.
RUN_TIME_SIZES = ("M",)


def _sizes(run_set: str) -> list[str]:
    return ["$M", "$N", "$K"] if run_set in RUN_TIME_SIZES else ["$M", "N", "K"]


@pytest.mark.parametrize("run_set", SETS)
def test_spec_strings_mark_m_runtime_and_n_k_compile_time(run_set: str) -> None:
    frame = _pickled(run_set)["merged_df"]
    tiles = ["BM", "BN"] if run_set in MOJO else ["BM", "BN", "BK"]
    sizes = _sizes(run_set)
    for spec in frame["spec"]:
        names = [token.split("=")[0] for token in str(spec).split("/")[1:]]
        assert names == [*sizes, *tiles], spec
    for group in _spec(run_set)["params"]:
        assert list(group) == [*sizes, *tiles]
        if run_set not in RUN_TIME_SIZES:
            assert not isinstance(group["N"], list) and not isinstance(group["K"], list)


@pytest.mark.parametrize("run_set", SETS)
def test_kprofile_loads_the_run_and_its_record_of_failures(run_set: str) -> None:
    results = load_results(str(REAL / run_set / "out.pkl"))
    record, metric = _json(run_set, "out.failures.json"), _metric(run_set)
    tiles = ("BM", "BN") if run_set in MOJO else ("BM", "BN", "BK")
    assert results.params == ("M", "N", "K", *tiles)
    assert results.runtime == tuple(p.lstrip("$") for p in _sizes(run_set) if "$" in p)
    assert (results.name, results.file) == (record["spec_name"], record["spec_file"])
    assert results.failure is not None
    kinds = results.frame[results.failure]
    assert sorted(kinds.dropna()) == sorted(
        f["failure_type"] for f in record["failures"]
    )
    ran = results.frame[kinds.isna()]
    got = _figures(
        [str(s) for s in ran["spec"]], [float(v) for v in ran[metric]], metric
    )
    assert got == _json(run_set, "out.pkl.json")


def _problems(run_set: str) -> list[tuple[Any, Any, Any]]:
    """Each spec group's ($M, N, K)."""
    return [(g["$M"], g["N"], g["K"]) for g in _spec(run_set)["params"]]


def test_f_has_one_group_per_problem_and_fails_to_build_and_to_run() -> None:
    problems = _problems("F")
    assert len(problems) == 2
    assert len({(n, k) for _, n, k in problems}) == 2
    kinds = [f["failure_type"] for f in _json("F", "out.failures.json")["failures"]]
    assert sorted(kinds) == ["build", "build", "build", "execution"]


def test_g_holds_two_problems_over_one_m_list() -> None:
    problems = _problems("G")
    assert len(problems) == 2
    assert problems[0][0] == problems[1][0] == [16, 64, 128]
    assert problems[0][1:] != problems[1][1:]


@pytest.mark.parametrize(("first", "again"), [("F", "H"), ("I", "J"), ("I", "K")])
def test_a_repeat_ran_the_same_points_with_new_timings(first: str, again: str) -> None:
    assert (REAL / first / "spec.yaml").read_bytes() == (
        REAL / again / "spec.yaml"
    ).read_bytes()
    one, two = _pickled(first)["merged_df"], _pickled(again)["merged_df"]
    assert [str(s) for s in one["spec"]] == [str(s) for s in two["spec"]]
    metric = _metric(first)
    assert [float(v) for v in one[metric]] != [float(v) for v in two[metric]]
    failures = [_json(r, "out.failures.json")["failures"] for r in (first, again)]
    assert [f["params"] for f in failures[0]] == [f["params"] for f in failures[1]]


def test_the_numpy_sweep_has_three_problems_two_of_them_at_one_m() -> None:
    problems = _problems("I")
    assert len(problems) == len({(n, k) for _, n, k in problems}) == 3
    assert sorted(m for m, _, _ in problems) == [64, 128, 128]


def test_k_was_written_by_numpy_1_and_i_j_by_numpy_2() -> None:
    """numpy 2 moved ``numpy.core`` to ``numpy._core``: a pickle names the module
    that wrote its arrays."""
    for run_set in NUMPY:
        data = (REAL / run_set / "out.pkl").read_bytes()
        assert (b"numpy.core.multiarray" in data) == (run_set == "K"), run_set
        assert (b"numpy._core.multiarray" in data) == (run_set != "K"), run_set
