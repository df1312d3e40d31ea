"""kbench spec expansion: cartesian product per group, groups concatenated, rules applied safely."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kprofile.errors import InvalidInputError, KprofileError
from kprofile.inputs.load import load_results
from kprofile.inputs.specyaml import expand_group, expand_spec

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
    assert expand_group(group) == expected


def test_groups_are_concatenated_and_rules_filter() -> None:
    doc = {
        "params": [{"A": [1, 2, 3]}, {"A": [10], "B": [1, 2]}],
        "rules": ["A < 3 or A == 10", "B != 2"],
    }
    assert expand_spec(doc, "s.yaml") == [{"A": 1}, {"A": 2}, {"A": 10, "B": 1}]


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
    assert str(caught.value).startswith(f"Invalid yaml [{path}]: {reason}")
