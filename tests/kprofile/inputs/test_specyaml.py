"""kbench spec expansion: cartesian product per group, groups concatenated, rules applied safely."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from kprofile.errors import InvalidInputError, KprofileError
from kprofile.inputs.exprlang.limits import Budget
from kprofile.inputs.load import load_results
from kprofile.inputs.specgroup import parse_group
from kprofile.inputs.specrules import kept_rows, parse_rules
from kprofile.inputs.specyaml import expand_spec

FIXTURES = Path(__file__).parents[3] / "fixtures"

GROUPS = [
    (
        {"A": [1, 2], "B": ["x", "y"]},
        [
            {"A": 1, "B": "x"},
            {"A": 1, "B": "y"},
            {"A": 2, "B": "x"},
            {"A": 2, "B": "y"},
        ],
    ),
    ({"A": 1, "B": [True, False]}, [{"A": 1, "B": True}, {"A": 1, "B": False}]),
    ({"$M": [8, 16], "metadata": {"x": 1}}, [{"M": 8}, {"M": 16}]),
    ({"A": []}, []),
    ({"A": 3}, [{"A": 3}]),
]


@pytest.mark.parametrize(("group", "expected"), GROUPS)
def test_expand_group(group: dict[str, Any], expected: list[dict[str, Any]]) -> None:
    assert expand_spec({"params": [group]}, "s.yaml").records() == expected


def test_groups_are_concatenated_and_rules_filter() -> None:
    doc = {
        "params": [{"A": [1, 2, 3]}, {"A": [10], "B": [1, 2]}],
        "rules": ["A < 3 or A == 10", "B != 2"],
    }
    assert expand_spec(doc, "s.yaml").records() == [
        {"A": 1},
        {"A": 2},
        {"A": 10, "B": 1},
    ]


def test_a_rule_naming_an_unknown_parameter_is_an_error() -> None:
    with pytest.raises(
        KprofileError, match=r"rule 'C > 1' uses 'C', which no params group defines"
    ):
        expand_spec({"params": [{"A": 1}], "rules": ["C > 1"]}, "s.yaml")


@pytest.mark.parametrize(
    "rule", ["__import__('os').system('true')", "open('x')", "A.__class__", "[A]"]
)
def test_rules_never_run_code(rule: str) -> None:
    with pytest.raises(KprofileError, match="not allowed"):
        expand_spec({"params": [{"A": 1}], "rules": [rule]}, "s.yaml")


def test_the_fixture_spec_expands_like_the_results_it_describes() -> None:
    spec = load_results(str(FIXTURES / "results" / "bench_matmul.yaml"))
    assert len(spec.frame) == 3 * 192
    run = load_results(str(FIXTURES / "results" / "run1" / "M256_N20480_K5376.pkl"))
    first_shape = spec.frame[spec.frame["M"] == 256].reset_index(drop=True)
    for column in run.params:
        assert first_shape[column].tolist() == run.frame[column].tolist(), column


def test_manifest_yaml_loads_with_merge_keys() -> None:
    manifest = load_results(str(FIXTURES / "results" / "tuning_sm100.yaml"))
    assert manifest.params[:2] == ("STAGES", "SCHEDULE")
    assert manifest.frame["STAGES"].tolist() == [4, 4, 4]
    assert manifest.frame["SWAP_AB"].tolist() == [False, False, True]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("params: 3\n", "line 1: 'params' must be a list of mappings"),
        (
            "name: x\n",
            "line 1: no 'params' key: a manifest lists its entries under 'params'",
        ),
        (
            "params:\n- {A: 1}\n- {A: 1}\n",
            "line 3: params[1] is identical to params[0] after merging",
        ),
        (
            "params:\n- {A: [1, 2]}\nrules: [A > 5]\n",
            "no parameter instances (empty params, or every instance excluded by rules)",
        ),
        ("params: [\n", "line 2: invalid YAML"),
    ],
)
def test_invalid_yaml_inputs_are_reported(
    tmp_path: Path, text: str, reason: str
) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(text)
    with pytest.raises(InvalidInputError) as caught:
        load_results(str(path))
    if reason.startswith("line "):  # located: path:N: error: message
        line, _, message = reason.partition(": ")
        expected = f"{path}:{line.split()[1]}: error: {message}"
    else:
        expected = f"Invalid yaml [{path}]: {reason}"
    assert str(caught.value).startswith(expected)


def _reference(document: dict[str, Any]) -> list[dict[str, Any]]:
    """kbench's expansion written the obvious way (small grids only)."""
    import itertools

    from kprofile.inputs.expr import compile_expr, evaluate

    rules = [compile_expr(r) for r in document.get("rules", [])]
    out = []
    for group in document["params"]:
        keys = [str(k).removeprefix("$") for k in group if k != "metadata"]
        choices = [
            v if isinstance(v, list) else [v]
            for k, v in group.items()
            if k != "metadata"
        ]
        for combo in itertools.product(*choices):
            instance = dict(zip(keys, combo))
            verdicts = [
                evaluate(r, instance) for r in rules if r.names <= instance.keys()
            ]
            if all(v is not False for v in verdicts):
                out.append({k: v for k, v in instance.items() if v is not None})
    return out


@pytest.mark.parametrize(
    "document",
    [
        {"params": [{"A": [1, 2, 3], "B": ["x", "y"], "C": [True, False]}]},
        {"params": [{"$M": [1, 2], "M": [3, 4, 5]}]},  # one name spelled twice
        {"params": [{"A": [1, 2]}, {}, {"B": [], "A": 9}, {"B": 1, "A": [7, 8]}]},
        {
            "params": [{"A": [0, 1, 2, 3], "B": [0, 1, 2]}, {"A": [5, 6]}],
            "rules": ["B != 0 and A // B > 0", "A % 2 == 0", "B < 2"],
        },
        {
            "params": [{"A": a, "B": b} for a in range(4) for b in ([0, 1], 2)],
            "rules": ["A + B != 3", "A != 2 or B > 1"],  # one-row groups mixed in
        },
        {
            "params": [{"A": [1, None, 3], "B": [2**62, 2**62 + 1]}],
            "rules": ["A < 3", "B * 4 > 2**64"],  # exact beyond int64; null: no say
        },
    ],
)
def test_columnar_expansion_matches_kbench_order(document: dict[str, Any]) -> None:
    assert expand_spec(document, "s.yaml").records() == _reference(document)


def test_a_rule_fails_only_for_instances_it_reaches() -> None:
    doc = {"params": [{"A": [1, 2], "B": [0, 1]}], "rules": ["B != 0", "A / B > 1"]}
    assert expand_spec(doc, "s.yaml").records() == [{"A": 2, "B": 1}]
    doc["rules"] = ["A / B > 1"]
    with pytest.raises(KprofileError) as caught:
        expand_spec(doc, "s.yaml")
    assert str(caught.value) == (
        "s.yaml: error: rules: cannot evaluate 'A / B > 1': division by zero"
    )


def test_rules_are_exact_and_vectorized_on_big_grids() -> None:
    doc = {
        "params": [{f"P{i}": list(range(10)) for i in range(6)}],
        "rules": ["P0 * 2**62 * 2 > 2**63 or P5 == 9", "P1 + P2 < 3"],
    }
    grid = expand_spec(doc, "s.yaml")
    p0, p5 = grid.columns["P0"], grid.columns["P5"]
    assert grid.size == 10**6 * 82 // 100 * 6 // 100  # rule 1 keeps 82%, rule 2 6%
    assert ((p0 > 1) | (p5 == 9)).all()
    assert ((grid.columns["P1"] + grid.columns["P2"]) < 3).all()


@pytest.mark.parametrize(
    ("params", "max_rows", "message"),
    [
        (
            [{f"P{i}": list(range(10)) for i in range(10)}],
            10**7,
            "params expand to 10,000,000,000 rows, over the limit of 10,000,000 "
            "(see --max-rows)",
        ),
        (
            [{f"P{i}": list(range(10)) for i in range(200)}],
            10**7,
            "params expand to about 10^200 rows, over the limit of 10,000,000 "
            "(see --max-rows)",
        ),
        (
            [{"A": list(range(50))}, {"A": list(range(51))}],
            100,
            "params expand to 101 rows, over the limit of 100 (see --max-rows)",
        ),
        (
            [{**{f"K{i}": i for i in range(20)}, "A": list(range(51))}],
            100,
            "params expand to 51 rows of 21 parameters, over the limit of 1,000 "
            "values (10 per row of --max-rows)",
        ),
    ],
)
def test_the_grid_size_is_checked_before_expanding(
    params: list[dict[str, Any]], max_rows: int, message: str
) -> None:
    with pytest.raises(KprofileError) as caught:
        expand_spec({"params": params}, "s.yaml", max_rows=max_rows)
    assert str(caught.value) == f"s.yaml: error: {message}"


def test_max_rows_is_a_parameter(tmp_path: Path) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text("params:\n- {A: [1, 2, 3], B: [1, 2]}\n")
    assert len(load_results(str(path), max_rows=6).frame) == 6
    with pytest.raises(InvalidInputError) as caught:
        load_results(str(path), max_rows=5)
    assert str(caught.value) == (
        f"Invalid yaml [{path}]: params expand to 6 rows, over the limit of 5 "
        "(see --max-rows)"
    )


def test_a_289_byte_bomb_is_refused_cleanly(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    lines = [f"  P{i}: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]" for i in range(10)]
    path.write_text("params:\n- " + "\n".join(lines)[2:] + "\n")
    with pytest.raises(InvalidInputError, match="10,000,000,000 rows"):
        load_results(str(path))


def test_too_many_rules_are_refused() -> None:
    doc = {"params": [{"A": 1}], "rules": ["A > 0"] * 1001}
    with pytest.raises(KprofileError, match="at most 1,000 rules"):
        expand_spec(doc, "s.yaml")


@pytest.mark.parametrize(
    ("values", "dtype", "expected"),
    [
        ([1, 2], "int64", [1, 2]),
        ([True, False], "bool", [True, False]),
        ([1.5, 2.0], "float64", [1.5, 2.0]),
        # exactly what YAML read: a null and a .nan are values, 1 stays an int
        ([1, None], "object", [1, None]),
        ([True, None], "object", [True, None]),
        ([1.5, float("inf")], "float64", [1.5, float("inf")]),
        ([1, 2.5], "object", [1, 2.5]),
        ([2**63, 1], "object", [2**63, 1]),
        ([10**400, 1.5], "object", [10**400, 1.5]),
        ([1, "x"], "object", [1, "x"]),
        ([True, 1], "object", [True, 1]),
        ([[1, 2], {"a": 1}], "object", [[1, 2], {"a": 1}]),
    ],
)
def test_columns_keep_yaml_types(
    values: list[Any], dtype: str, expected: list[Any]
) -> None:
    column = expand_spec({"params": [{"A": values}]}, "s.yaml").columns["A"]
    assert str(column.dtype) == dtype
    assert list(column) == expected
    if dtype == "object":  # the very values: 1 is no 1.0, 2**63 no float
        assert [type(v) for v in column] == [type(v) for v in expected]


@pytest.mark.parametrize(
    ("groups", "dtype", "expected"),
    [
        ([{"A": 1}, {"B": 2}], "Int64", [1, pd.NA]),
        ([{"A": True}, {"B": 2}], "boolean", [True, pd.NA]),
        ([{"A": 1.5}, {"B": 2}], "float64", [1.5, None]),  # NaN: missing
        ([{"A": float("nan")}, {"B": 2}], "object", [None, pd.NA]),  # .nan: a value
        ([{"A": None}, {"B": 2}], "object", [None, pd.NA]),
        ([{"A": "x"}, {"B": 2}], "object", ["x", pd.NA]),
    ],
)
def test_a_missing_value_is_never_a_yaml_value(
    groups: list[dict[str, Any]], dtype: str, expected: list[Any]
) -> None:
    column = expand_spec({"params": groups}, "s.yaml").columns["A"]
    assert str(column.dtype) == dtype
    got = list(column)
    if dtype == "float64":
        assert got[0] == expected[0] and got[1] != got[1]
    elif expected[0] is None and groups[0]["A"] is not None:
        assert got[0] != got[0] and got[1] is pd.NA  # NaN, then missing
    else:
        assert got == expected and got[1] is pd.NA


def test_an_exhausted_budget_is_a_clean_error() -> None:
    groups = [parse_group({"A": i}) for i in range(10)]
    rules = parse_rules(["A > 0"], "s.yaml")
    with pytest.raises(KprofileError) as caught:
        kept_rows(groups, rules, "s.yaml", Budget(work=100))
    assert str(caught.value) == (
        "s.yaml: error: rules: too costly to evaluate (more than 100 operations on "
        "values)"
    )


def test_max_rows_is_wired_to_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from kprofile.cli import main

    spec = tmp_path / "grid.yaml"
    spec.write_text("params:\n- A: [1, 2, 3, 4]\n  B: [1, 2, 3]\n")
    assert main(["--merge", str(spec), "--max-rows", "11"]) == 2
    _, err = capsys.readouterr()
    assert "12 rows, over the limit of 11 (see --max-rows)" in err
    assert main(["--merge", str(spec), "--max-rows", "12", "--format", "json"]) == 0
