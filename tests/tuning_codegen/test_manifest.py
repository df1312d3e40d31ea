"""Manifest loading: both anchor styles, order, and every malformed case with its line."""

from __future__ import annotations

import pytest

from tuning_codegen.errors import InputError
from tuning_codegen.manifest import load_manifest, parse_manifest

MAPPING_ANCHOR = """\
defaults: &defaults
  MMA_K: 16
  SWAP_AB: false
params:
- <<: *defaults
  M: 256
  SWAP_AB: true
- <<: *defaults
  M: 1
"""

LIST_ANCHOR = """\
name: tuning
common: &common
- name: bench_matmul
  AUTOTUNING_MODE: true
params:
- <<: *common
  M: 1
- <<: *common
  M: 2
  AUTOTUNING_MODE: false
"""


def values(text: str) -> list[dict[str, object]]:
    return [dict(e.values) for e in parse_manifest(text, "m.yaml").entries]


def test_mapping_anchor_merges_and_entries_override() -> None:
    assert values(MAPPING_ANCHOR) == [
        {"MMA_K": 16, "SWAP_AB": True, "M": 256},
        {"MMA_K": 16, "SWAP_AB": False, "M": 1},
    ]


def test_list_of_mappings_anchor_merges() -> None:
    assert values(LIST_ANCHOR) == [
        {"name": "bench_matmul", "AUTOTUNING_MODE": True, "M": 1},
        {"name": "bench_matmul", "AUTOTUNING_MODE": False, "M": 2},
    ]


def test_order_index_and_line_are_kept() -> None:
    manifest = parse_manifest("params:\n- {M: 3}\n- {M: 1}\n\n- {M: 2}\n", "m.yaml")
    assert [(e.position, e.line, e.values["M"]) for e in manifest.entries] == [
        (0, 2, 3),
        (1, 3, 1),
        (2, 5, 2),
    ]


def test_other_top_level_keys_are_metadata() -> None:
    manifest = parse_manifest(
        "name: x\nfile: y.mojo\nmetadata: {a: 1}\nparams: []\n", "m.yaml"
    )
    assert manifest.entries == ()
    assert manifest.document["name"] == "x"


def test_duplicates_through_a_later_override_are_not_errors() -> None:
    text = "d: &d {A: 1}\nparams:\n- <<: *d\n  A: 2\n- <<: *d\n"
    assert values(text) == [{"A": 2}, {"A": 1}]


BAD = [
    (
        "params:\n- M: 1\n  M: 2\n",
        3,
        "key 'M' appears twice in one mapping (first on line 2)",
    ),
    (
        "defaults: &d\n  A: 1\n  A: 1\nparams: []\n",
        3,
        "key 'A' appears twice in one mapping (first on line 2)",
    ),
    (
        "params: []\nparams: []\n",
        2,
        "key 'params' appears twice in one mapping (first on line 1)",
    ),
    ("- 1\n- 2\n", 1, "expected a mapping with a 'params' list, got a list"),
    (
        "just text\n",
        1,
        "expected a mapping with a 'params' list, got the scalar 'just text'",
    ),
    ("", None, "expected a mapping with a 'params' list, got an empty document"),
    ("name: x\n", 1, "no 'params' key: a manifest lists its entries under 'params'"),
    ("params: {M: 1}\n", 1, "'params' must be a list of mappings, got a mapping"),
    ("params:\n- {M: 1}\n- 7\n", 3, "params[1] must be a mapping, got the scalar '7'"),
    (
        "params:\n- {M: 1, K: 2}\n- {K: 2, M: 1}\n",
        3,
        "params[1] is identical to params[0] after merging",
    ),
    (
        "d: &d {M: 1}\nparams:\n- <<: *d\n- M: 1\n",
        4,
        "params[1] is identical to params[0] after merging",
    ),
    (
        "params: [\n",
        2,
        "invalid YAML: while parsing a flow node did not find expected node content",
    ),
    ("params:\n- <<: *nowhere\n", 2, "invalid YAML: found undefined alias"),
]


@pytest.mark.parametrize(("text", "line", "message"), BAD)
def test_malformed_manifests(text: str, line: int | None, message: str) -> None:
    with pytest.raises(InputError) as info:
        parse_manifest(text, "m.yaml")
    where = "m.yaml" if line is None else f"m.yaml:{line}"
    assert str(info.value) == f"{where}: error: {message}"


def test_missing_file(tmp_path: object) -> None:
    with pytest.raises(InputError, match=r"nowhere\.yaml: error: no such file"):
        load_manifest("nowhere.yaml")
