"""kprofile.manifest.upsert: upserting chosen configs into a hand-curated manifest.

Every case compares whole texts. Spans of entries are found here independently of the
module under test (PyYAML node marks), and merged values are checked with
``tuning_codegen.manifest.parse_manifest``, which is what tuning-codegen reads.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import examples

from kprofile.manifest.outcome import ShapeChange, UpdateResult
from kprofile.manifest.upsert import upsert
from kprofile.sinks.update import update_section
from tuning_codegen.errors import InputError
from tuning_codegen.manifest import parse_manifest
from tuning_codegen.render import render_region

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "update"
EXAMPLE = (FIXTURES / "tuning_table_example.yaml").read_bytes().decode("utf-8")
COMMON = (FIXTURES / "tuning_table_common_list.yaml").read_bytes().decode("utf-8")
MNK = ("M", "N", "K")


def shape(m: float, n: int = 20480, k: int = 5376, **values: Any) -> dict[str, Any]:
    return {"M": m, "N": n, "K": k, **values}


def entry_spans(text: str) -> list[tuple[int, int]]:
    """0-based first and last line of each params entry's content."""
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    assert root is not None
    params = next(v for k, v in root.value if k.value == "params")
    spans = []
    for item in params.value:
        last = item.value[-1][1] if not item.flow_style else item
        end = last.end_mark.index
        while text[end - 1] in " \n\r":
            end -= 1
        spans.append((item.start_mark.line, text.count("\n", 0, end)))
    return spans


def expected_entries(
    old: str,
    selections: Sequence[Mapping[str, Any]],
    pivots: Sequence[str],
    defaults: Mapping[str, Any],
) -> list[dict[str, Any]]:
    entries = [dict(e.values) for e in parse_manifest(old, "old.yaml").entries]
    for sel in selections:
        hits = [e for e in entries if all(e.get(p) == sel[p] for p in pivots)]
        if hits:
            hits[0].update(sel)
        else:
            entries.append({**defaults, **sel})
    return entries


def check_result(
    old: str,
    result: UpdateResult,
    selections: Sequence[Mapping[str, Any]],
    pivots: Sequence[str],
    defaults: Mapping[str, Any],
) -> None:
    got = [dict(e.values) for e in parse_manifest(result.text, "new.yaml").entries]
    assert got == expected_entries(old, selections, pivots, defaults)
    again = upsert(result.text, selections, pivots=pivots, path="new.yaml")
    assert again.text == result.text
    assert {c.status for c in again.changes} <= {"unchanged"}


def changed_old_lines(old: str, new: str) -> list[tuple[str, int, int]]:
    matcher = difflib.SequenceMatcher(
        None, old.splitlines(True), new.splitlines(True), autojunk=False
    )
    return [
        (tag, i1, i2) for tag, i1, i2, _, _ in matcher.get_opcodes() if tag != "equal"
    ]


def assert_only_within(old: str, new: str, first: int, last: int) -> None:
    """Every changed old line lies in [first, last]; insertions at most right after last."""
    for tag, i1, i2 in changed_old_lines(old, new):
        if tag == "insert":
            assert first <= i1 <= last + 1, (tag, i1, i2)
        else:
            assert first <= i1 and i2 - 1 <= last, (tag, i1, i2)


EXAMPLE_DEFAULTS = parse_manifest(EXAMPLE, "x").document["defaults"]

# (id, selection on the example table, fragment before, fragment after)
IN_PLACE = [
    (
        "replace-int",
        shape(256, STAGES=3),
        "    MMA_N: 128\n    STAGES: 6\n\n",
        "    MMA_N: 128\n    STAGES: 3\n\n",
    ),
    (
        "equal-to-default-drops-override",
        shape(256, STAGES=4),
        "    MMA_N: 128\n    STAGES: 6\n\n",
        "    MMA_N: 128\n\n",
    ),
    (
        "new-key-at-end-of-entry",
        shape(256, CLUSTER_N=2),
        "    STAGES: 6\n\n  # One",
        "    STAGES: 6\n    CLUSTER_N: 2\n\n  # One",
    ),
    (
        "new-string-key-quoted-like-defaults",
        shape(8192, CLUSTER_N=2, SCHEDULE="ds_scheduler"),
        "    CLUSTER_N: 2\n    STAGES: 3\n\n",
        "    CLUSTER_N: 2\n    STAGES: 3\n    SCHEDULE: 'ds_scheduler'\n\n",
    ),
    (
        "double-quotes-kept",
        shape(512, SCHEDULE="ds_scheduler_v2"),
        'SCHEDULE: "ds_scheduler"\n',
        'SCHEDULE: "ds_scheduler_v2"\n',
    ),
    (
        "comment-after-value-kept",
        shape(1, MMA_N=32),
        "    MMA_N: 64\n    SWAP_AB: true       # measured",
        "    MMA_N: 32\n    SWAP_AB: true       # measured",
    ),
    (
        "override-with-its-comment-removed",
        shape(1, SWAP_AB=False),
        "    SWAP_AB: true       # measured 1.31x over the unswapped kernel\n",
        "",
    ),
    (
        "template-entry-keeps-hand-keys",
        shape(512, SCHEDULE="default", STAGES=5),
        '    M_END: 4096\n    N: 20480\n    K: 5376\n    SCHEDULE: "ds_scheduler"\n\n',
        "    M_END: 4096\n    N: 20480\n    K: 5376\n    STAGES: 5\n\n",
    ),
    (
        "last-entry-before-trailing-comment",
        shape(8192, 5376, 20480, K_GROUP_SIZE=1, BLOCK_K=128),
        "    CLUSTER_N: 2\n    K_GROUP_SIZE: 2\n\n# TODO",
        "    CLUSTER_N: 2\n    BLOCK_K: 128\n\n# TODO",
    ),
    (
        "several-keys",
        shape(16, MMA_N=256, SWAP_AB=True, STAGES=2, CLUSTER_M=1),
        "    MMA_N: 128\n    SWAP_AB: true\n\n",
        "    SWAP_AB: true\n    STAGES: 2\n    CLUSTER_M: 1\n\n",
    ),
]


@pytest.mark.parametrize(
    "selection, before, after", [c[1:] for c in IN_PLACE], ids=[c[0] for c in IN_PLACE]
)
def test_matching_entry_changes_in_place(
    selection: dict[str, Any], before: str, after: str
) -> None:
    assert EXAMPLE.count(before) == 1
    result = upsert(EXAMPLE, [selection], pivots=MNK, path="t.yaml")
    assert result.text == EXAMPLE.replace(before, after)
    [change] = result.changes
    assert change.status == "changed"
    index = change.index
    assert {
        k: v
        for k, v in parse_manifest(EXAMPLE, "t").entries[index].values.items()
        if k in MNK
    } == {k: selection[k] for k in MNK}
    first, last = entry_spans(EXAMPLE)[index]
    assert_only_within(EXAMPLE, result.text, first, last)
    check_result(EXAMPLE, result, [selection], MNK, EXAMPLE_DEFAULTS)


NO_OPS = [
    ("same-values", [shape(256, MMA_N=128, STAGES=6, SWAP_AB=False)]),
    ("only-pivots", [shape(1), shape(16)]),
    ("not-set-and-equal-to-default", [shape(8192, CLUSTER_M=2, SCHEDULE="default")]),
    ("float-equal-to-int", [shape(256, STAGES=6.0)]),
    ("whole-merged-entry", [dict(parse_manifest(EXAMPLE, "t").entries[3].values)]),
    ("nothing-selected", []),
]


@pytest.mark.parametrize(
    "selections", [c[1] for c in NO_OPS], ids=[c[0] for c in NO_OPS]
)
def test_update_that_changes_nothing_returns_the_input(
    selections: list[dict[str, Any]],
) -> None:
    result = upsert(EXAMPLE, selections, pivots=MNK, path="t.yaml")
    assert result.text == EXAMPLE
    assert [c.status for c in result.changes] == ["unchanged"] * len(selections)
    assert all(c.changed_keys == () for c in result.changes)


def test_new_shape_is_appended_after_the_last_entry_only() -> None:
    sel = shape(
        2048,
        1024,
        64,
        MMA_N=128,
        SWAP_AB=False,
        BLOCK_K=32,
        SCHEDULE="ds scheduler: v2",
    )
    result = upsert(EXAMPLE, [sel], pivots=MNK, path="t.yaml")
    at = EXAMPLE.index("    K_GROUP_SIZE: 2\n") + len("    K_GROUP_SIZE: 2")
    added = (
        "\n\n  - <<: *defaults\n    M: 2048\n    N: 1024\n    K: 64\n    MMA_N: 128\n    BLOCK_K: 32\n"
        "    SCHEDULE: 'ds scheduler: v2'"
    )
    assert result.text == EXAMPLE[:at] + added + EXAMPLE[at:]
    assert result.changes == (
        ShapeChange({"M": 2048, "N": 1024, "K": 64}, "added", 6, tuple(sel), {}, sel),
    )
    check_result(EXAMPLE, result, [sel], MNK, EXAMPLE_DEFAULTS)


def test_list_of_mappings_style_as_kprofile_writes_it() -> None:
    common = {
        "name": "bench_matmul_sm90",
        "AUTOTUNING_MODE": True,
        "dtype": "bfloat16",
        "BLOCK_K": 64,
        "STAGES": 4,
    }
    sels = [
        {"M": 1024, "N": 4096, "K": 4096, "BM": 128, "BN": 128, "STAGES": 4},
        {
            "M": 8,
            "N": 4096,
            "K": 4096,
            "BM": 64,
            "BN": 128,
            "STAGES": 4,
            "AUTOTUNING_MODE": True,
        },
    ]
    result = upsert(COMMON, sels, pivots=MNK, path="c.yaml")
    expected = COMMON.replace(
        "  BM: 128\n  BN: 256\n  STAGES: 3\n", "  BM: 128\n  BN: 128\n"
    ) + ("- <<: *common\n  M: 8\n  N: 4096\n  K: 4096\n  BM: 64\n  BN: 128\n")
    assert result.text == expected
    check_result(COMMON, result, sels, MNK, common)


CASES = [
    (
        "flow-entries",
        "d: &d {A: 1, B: 2}\nparams:\n  - {<<: *d,  M: 1, B: 3}   # c\n  - { <<: *d, M: 2 }\n",
        [{"M": 1, "B": 2, "C": "x,y"}, {"M": 2, "A": 5}, {"M": 3, "A": 1, "B": 7}],
        "d: &d {A: 1, B: 2}\nparams:\n  - {<<: *d,  M: 1, C: 'x,y'}   # c\n  - { <<: *d, M: 2, A: 5 }\n  - {<<: *d, M: 3, B: 7}\n",
    ),
    (
        "flow-params-no-final-newline",
        "d: &d {A: 1, B: 2}\nparams: [{<<: *d, M: 1, B: 3}, {<<: *d, M: 2}]",
        [{"M": 1, "B": 2}, {"M": 3, "A": 1, "B": 7}],
        "d: &d {A: 1, B: 2}\nparams: [{<<: *d, M: 1}, {<<: *d, M: 2}, {<<: *d, M: 3, B: 7}]",
    ),
    (
        "empty-params",
        "params: []  # none yet\n",
        [{"M": 3, "A": True}],
        "params: [{M: 3, A: true}]  # none yet\n",
    ),
    (
        "crlf-no-final-newline",
        "d: &d\r\n  A: 1\r\nparams:\r\n- <<: *d\r\n  M: 1\r\n  A: 2",
        [{"M": 1, "A": 1, "C": True}, {"M": 2}],
        "d: &d\r\n  A: 1\r\nparams:\r\n- <<: *d\r\n  M: 1\r\n  C: true\r\n- <<: *d\r\n  M: 2",
    ),
    (
        "removed-last-line-no-final-newline",
        "d: &d\n  A: 1\nparams:\n- <<: *d\n  M: 1\n  A: 2",
        [{"M": 1, "A": 1}],
        "d: &d\n  A: 1\nparams:\n- <<: *d\n  M: 1",
    ),
    (
        "last-override-removed-and-shape-appended",  # found by the property test: overlapping edits
        "d: &d\n  A: 1\nparams:\n- <<: *d\n  M: 1\n  A: 2\n  B: 3\n# end\n",
        [{"M": 1, "B": 1, "A": 1}, {"M": 2}],
        "d: &d\n  A: 1\nparams:\n- <<: *d\n  M: 1\n  B: 1\n- <<: *d\n  M: 2\n# end\n",
    ),
    (
        "removed-last-line-and-appended-no-final-newline",
        "d: &d\n  A: 1\nparams:\n- <<: *d\n  M: 1\n  A: 2",
        [{"M": 1, "A": 1, "B": 2}, {"M": 2}],
        "d: &d\n  A: 1\nparams:\n- <<: *d\n  M: 1\n  B: 2\n- <<: *d\n  M: 2",
    ),
    (
        "override-on-the-dash-line",
        "d: &d\n  A: 1\nparams:\n  - A: 2  # was 2\n    <<: *d\n    M: 1\n  - M: 2\n",
        [{"M": 1, "A": 1}],
        "d: &d\n  A: 1\nparams:\n  - <<: *d\n    M: 1\n  - M: 2\n",
    ),
    (
        "scalar-styles",
        'params:\n- M: 1\n  S: "x"\n  T: TRUE\n  U: False\n  Y: yes\n  H: 0x10\n  E:\n  L:\n  - 1\n  - 2\n  Z: |\n    text\n  Q: 1\n',
        [
            {
                "M": 1,
                "S": "y",
                "T": False,
                "U": True,
                "Y": False,
                "H": 32,
                "E": 4,
                "L": 3,
                "Z": "q",
                "Q": 2.5,
            }
        ],
        'params:\n- M: 1\n  S: "y"\n  T: FALSE\n  U: True\n  Y: no\n  H: 0x20\n  E: 4\n  L: 3\n  Z: q\n  Q: 2.5\n',
    ),
    (
        "strings-that-need-quotes",
        "params:\n- M: 1\n",
        [
            {
                "M": 1,
                "a": "yes",
                "b": "1.5",
                "c": "",
                "d": "it's",
                "e": "#x",
                "f": "tab\there",
                "g": "null",
                "h": "ok",
            }
        ],
        "params:\n- M: 1\n  a: 'yes'\n  b: '1.5'\n  c: ''\n  d: it's\n  e: '#x'\n  f: \"tab\\there\"\n  g: 'null'\n  h: ok\n",
    ),
    (
        "floats-and-null",
        "params:\n- M: 1\n",
        [{"M": 1, "a": 1e-05, "b": 2.0, "c": None, "d": float("inf")}],
        "params:\n- M: 1\n  a: 1.0e-05\n  b: 2.0\n  c: null\n  d: .inf\n",
    ),
    (
        "anchor-kept-alias-replaced",
        "x: &x 7\nparams:\n- M: 1\n  A: &a 1\n  B: *x\n",
        [{"M": 1, "A": 2, "B": 3}],
        "x: &x 7\nparams:\n- M: 1\n  A: &a 2\n  B: 3\n",
    ),
    (
        "yaml-header-and-document-markers",
        "%YAML 1.1\n---\nparams:\n- M: 1   # one\n...\n",
        [{"M": 1, "A": 1}, {"M": 2}],
        "%YAML 1.1\n---\nparams:\n- M: 1   # one\n  A: 1\n- M: 2\n...\n",
    ),
    (
        "long-lines-and-odd-spacing-kept",
        "name:   " + "x" * 120 + "\nparams:\n  -   M:    1\n      A:    1\n",
        [{"M": 1, "A": 2, "B": 3}, {"M": 2}],
        "name:   "
        + "x" * 120
        + "\nparams:\n  -   M:    1\n      A:    2\n      B: 3\n  - M: 2\n",
    ),
    (
        "comments-between-entries-stay-put",
        "params:\n# a\n- M: 1\n# b\n- M: 2\n  # inside\n# c\nother: 1  # d\n",
        [{"M": 1, "A": 1}, {"M": 3}],
        "params:\n# a\n- M: 1\n  A: 1\n# b\n- M: 2\n- M: 3\n  # inside\n# c\nother: 1  # d\n",
    ),
    (
        "merge-of-several-anchors",
        "a: &a {X: 1}\nb: &b {X: 2, Y: 2}\nparams:\n- <<: [*a, *b]\n  M: 1\n",
        [{"M": 1, "X": 1, "Y": 3}, {"M": 2, "X": 1, "Y": 2}],
        "a: &a {X: 1}\nb: &b {X: 2, Y: 2}\nparams:\n- <<: [*a, *b]\n  M: 1\n  Y: 3\n- <<: [*a, *b]\n  M: 2\n",
    ),
    (
        "entries-without-a-shared-merge-key",
        "d: &d {A: 1}\nparams:\n- <<: *d\n  M: 1\n- M: 2\n",
        [{"M": 3, "A": 1}],
        "d: &d {A: 1}\nparams:\n- <<: *d\n  M: 1\n- M: 2\n- M: 3\n  A: 1\n",
    ),
    (
        "unicode-and-bom",
        "\ufeffparams:\n- M: 1  # größe\n  N: é\n",
        [{"M": 1, "N": "ü"}, {"M": 2, "N": "\u2028"}],
        '\ufeffparams:\n- M: 1  # größe\n  N: ü\n- M: 2\n  N: "\\u2028"\n',
    ),
]


@pytest.mark.parametrize(
    "text, selections, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_styles(text: str, selections: list[dict[str, Any]], expected: str) -> None:
    result = upsert(text, selections, pivots=["M"], path="t.yaml")
    assert result.text == expected
    again = upsert(result.text, selections, pivots=["M"], path="t.yaml")
    assert again.text == result.text
    assert all(c.status == "unchanged" for c in again.changes)
    assert (
        parse_manifest(result.text, "t").document.keys()
        == parse_manifest(text, "t").document.keys()
    )


def test_hand_written_override_equal_to_default_is_left_alone() -> None:
    text = "d: &d\n  A: 1\nparams:\n- <<: *d\n  M: 1\n  A: 1  # pinned on purpose\n"
    result = upsert(text, [{"M": 1, "A": 1}], pivots=["M"], path="t.yaml")
    assert result.text == text


def test_numpy_scalars_from_a_dataframe_row_are_plain_values() -> None:
    import numpy as np

    sel = {
        "M": np.int64(256),
        "N": np.int64(20480),
        "K": np.int64(5376),
        "STAGES": np.int64(3),
        "SWAP_AB": np.bool_(True),
    }
    result = upsert(EXAMPLE, [sel], pivots=MNK, path="t.yaml")
    assert result.text == EXAMPLE.replace(
        "    STAGES: 6\n", "    STAGES: 3\n    SWAP_AB: true\n"
    )


ERRORS = [
    (
        "no-pivots",
        [shape(1)],
        (),
        "t.yaml: error: no pivot columns to match entries by (give them with -p, e.g. -p M,N,K)",
    ),
    (
        "missing-pivot",
        [{"M": 1, "N": 2}],
        MNK,
        "t.yaml: error: selection 1 (M=1/N=2) has no value for pivot K",
    ),
    (
        "same-shape-twice",
        [shape(1), shape(2), shape(1.0)],
        MNK,
        "t.yaml: error: configs 1 and 3 to put in are both for shape "
        "M=1.0/N=20480/K=5376; give one per shape (--combine median|min|mean joins "
        "repeated runs)",
    ),
    (
        "ambiguous-match",
        [{"M": 8192, "STAGES": 2}],
        ("M",),
        "t.yaml:65: error: params[4] and params[5] both match M=8192; add a pivot that tells them apart",
    ),
    (
        "unsupported-value",
        [shape(1, STAGES=[1, 2])],
        MNK,
        "t.yaml: error: cannot write STAGES=[1, 2]: only numbers, booleans, strings and null fit a manifest entry",
    ),
]


@pytest.mark.parametrize(
    "selections, pivots, message", [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS]
)
def test_user_errors(
    selections: list[dict[str, Any]], pivots: tuple[str, ...], message: str
) -> None:
    with pytest.raises(InputError) as info:
        upsert(EXAMPLE, selections, pivots=pivots, path="t.yaml")
    assert str(info.value) == message


def test_invalid_manifest_is_reported_as_parse_manifest_does() -> None:
    with pytest.raises(InputError) as info:
        upsert("params:\n- M: 1\n  M: 2\n", [{"M": 1}], pivots=["M"], path="t.yaml")
    assert (
        str(info.value)
        == "t.yaml:3: error: key 'M' appears twice in one mapping (first on line 2)"
    )


def test_edit_that_would_change_another_entry_is_refused() -> None:
    text = "params:\n- M: 1\n  A: &a 5\n- M: 2\n  A: *a\n"
    with pytest.raises(InputError) as info:
        upsert(text, [{"M": 1, "A": 6}], pivots=["M"], path="t.yaml")
    assert str(info.value) == (
        "t.yaml: error: cannot update in place: the edit would also change params[1] (a shared anchor?); nothing was written"
    )


def test_summary() -> None:
    sels = [
        shape(256, MMA_N=256, STAGES=4, NEW=1),
        shape(1),
        shape(64, 1024, 64, MMA_N=64),
    ]
    result = upsert(EXAMPLE, sels, pivots=MNK, path="t.yaml")
    section = update_section(result, path="t.yaml", pivots=MNK, state="updated")
    assert dict(section.facts)["added"] == 1 and dict(section.facts)["changed"] == 1
    assert section.table is not None
    rows = section.table.to_dict("records")
    assert [(r["shape"], r["status"], r["changes"]) for r in rows] == [
        ("M=256/N=20480/K=5376", "changed",
         "MMA_N: 128 -> 256, STAGES: 6 -> 4, NEW: unset -> 1"),
        ("M=1/N=20480/K=5376", "unchanged", ""),
        ("M=64/N=1024/K=64", "added", "MMA_N=64"),
    ]  # fmt: skip
    assert rows[2]["entry"] == 6


def test_codegen_renders_the_updated_manifest() -> None:
    sels = [shape(256, STAGES=3), shape(2048, 1024, 64, MMA_N=128)]
    text = upsert(EXAMPLE, sels, pivots=MNK, path="t.yaml").text
    entries = parse_manifest(text, "tuning_table_example.yaml").entries
    snippets = {
        None: "Cfg(M=[@M], N=[@N], K=[@K], STAGES=[@STAGES])",
        "ranged": "Cfg(M=[@M]..[@M_END])",
    }
    region = render_region(
        entries,
        snippets,
        source_label="tuning_table_example.yaml",
        manifest_path="t.yaml",
    )
    assert "Cfg(M=256, N=20480, K=5376, STAGES=3)," in region
    assert region.endswith("# index: [6]\n        Cfg(M=2048, N=1024, K=64, STAGES=4),")
    assert "Cfg(M=512..4096)," in region


# ---------------------------------------------------------------------------------
# Large manifests: entries are found by an index of their pivot values, the manifest is
# read once for the default pivots and the update, and the check of the result still
# covers every entry and every key outside params.


def block_table(count: int, entry: Any) -> str:
    """``params`` with one block entry per ``entry(i)`` (a list of key lines)."""
    lines = ["params:"]
    for i in range(count):
        first, *rest = entry(i)
        lines += ["- " + first, *("  " + line for line in rest)]
    return "\n".join(lines) + "\n"


def test_two_entries_of_a_large_manifest_matching_one_shape_are_both_named() -> None:
    text = block_table(
        3000, lambda i: [f"M: {7 if i in (1200, 2750) else 100 + i}", f"N: {i}"]
    )
    with pytest.raises(InputError) as info:
        upsert(text, [{"M": 7, "N": 1}], pivots=["M"], path="t.yaml")
    assert str(info.value) == (
        "t.yaml:5502: error: params[1200] and params[2750] both match M=7; "
        "add a pivot that tells them apart"
    )
    change = upsert(text, [{"M": 7, "N": 1200}], pivots=["M", "N"], path="t")
    assert [(c.status, c.index) for c in change.changes] == [("unchanged", 1200)]


def test_entries_match_numbers_by_value_and_booleans_and_strings_apart() -> None:
    text = "params:\n- {M: 256.0}\n- {M: true}\n- {M: 1}\n- {M: '1'}\n"
    sels: list[dict[str, Any]] = [
        {"M": "1", "A": 4},
        {"M": 256, "A": 1},  # 256 is 256.0
        {"M": True, "A": 2},  # true is not 1
        {"M": 1.0, "A": 3},
        {"M": False, "A": 5},
    ]
    result = upsert(text, sels, pivots=["M"], path="t.yaml")
    assert [(c.status, c.index) for c in result.changes] == [
        ("changed", 3),
        ("changed", 0),
        ("changed", 1),
        ("changed", 2),
        ("added", 4),
    ]
    assert result.text == (
        "params:\n- {M: 256.0, A: 1}\n- {M: true, A: 2}\n- {M: 1, A: 3}\n"
        "- {M: '1', A: 4}\n- {M: false, A: 5}\n"
    )


def test_an_update_reads_the_manifest_once_and_its_result_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The sink reads the manifest once for the default pivots and the edit, then the
    edit's result once for its check: one reader (tuning_codegen.positions)."""
    from kprofile.manifest.change import Upserts
    from kprofile.sinks.update import apply_update
    from tuning_codegen import positions

    texts: list[str] = []
    read = positions.read

    def counted(text: str, **options: Any) -> Any:
        texts.append(text)
        return read(text, **options)

    monkeypatch.setattr(positions, "read", counted)
    text = block_table(500, lambda i: [f"M: {i}", "A: 1"]).replace("A: 1", "A: 2", 1)
    path = tmp_path / "t.yaml"
    path.write_text(text)
    change = Upserts(({"M": 0, "K": 1, "A": 3},), ("M", "K"))
    report = apply_update(str(path), change, dry_run=False, pivots_given=False)
    assert report.written
    new = path.read_text()
    assert new == text.replace("- M: 0\n  A: 2\n", "- M: 0\n  A: 3\n  K: 1\n", 1)
    assert texts == [text, new]  # the manifest, then the result's check


def test_edit_that_would_change_a_key_outside_params_is_refused() -> None:
    text = "params:\n- M: 1\n  A: &a 5\nother: *a\n"
    with pytest.raises(InputError) as info:
        upsert(text, [{"M": 1, "A": 6}], pivots=["M"], path="t.yaml")
    assert str(info.value) == (
        "t.yaml: error: cannot update in place: the edit would also change keys "
        "outside params (a shared anchor?); nothing was written"
    )


def test_edit_that_would_turn_a_far_entry_from_1_to_true_is_refused() -> None:
    def entry(i: int) -> list[str]:
        value = {0: "&a 1", 1999: "*a"}.get(i, "1")
        return [f"M: {i}", f"A: {value}"]

    text = block_table(2000, entry)
    with pytest.raises(InputError) as info:  # 1 == True, but not to a tuning table
        upsert(text, [{"M": 0, "A": True}], pivots=["M"], path="t.yaml")
    assert "the edit would also change params[1999] (a shared anchor?)" in str(
        info.value
    )


def test_yaml_the_reader_leaves_to_parse_manifest_is_updated_alike() -> None:
    # PyYAML 6.0.4 gives params[0] X=1 here (a merged one-letter key that the anchor
    # overrides): the update must go by what tuning-codegen reads
    text = (
        "e: &e {X: 1}\nd: &d {<<: *e, X: 2}\ns: !!set {a}\nparams:\n- {<<: *d, M: 1}\n"
    )
    want = parse_manifest(text, "t").entries[0].values["X"]
    result = upsert(text, [{"M": 1, "X": 2}], pivots=["M"], path="t.yaml")
    [change] = result.changes
    if want == 2:
        assert (change.status, result.text) == ("unchanged", text)
    else:
        assert (change.status, dict(change.before)) == ("changed", {"X": want})
        assert result.text == text.replace("M: 1}", "M: 1, X: 2}")
    assert parse_manifest(result.text, "t").entries[0].values["X"] == 2


# ---------------------------------------------------------------------------------
# Property: random updates keep the manifest valid, other entries byte-identical, and
# applying the same update twice changes nothing the second time.

KEYS = [
    "MMA_N",
    "STAGES",
    "SWAP_AB",
    "SCHEDULE",
    "CLUSTER_M",
    "CLUSTER_N",
    "K_GROUP_SIZE",
    "BLOCK_K",
    "NEW_KEY",
    "odd key",
    "q'k",
]
VALUES = st.one_of(
    st.integers(-5, 300),
    st.sampled_from([64, 128, 256, 4, 1, 2]),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False, allow_infinity=True, width=32),
    st.text(st.sampled_from("ab :#'\",[]{}-é\t1."), max_size=6),
    st.sampled_from(
        ["default", "ds_scheduler", "yes", "null", "1.5", "~", "<<", "*x", "&y", "!t"]
    ),
)


def _example_update(
    draw: st.DrawFn, text: str, pivots: Sequence[str]
) -> list[dict[str, Any]]:
    entries = parse_manifest(text, "t").entries
    chosen = draw(
        st.lists(
            st.sampled_from(range(len(entries))), unique=True, max_size=len(entries)
        )
    )
    sels: list[dict[str, Any]] = []
    for index in chosen:
        keys = draw(st.lists(st.sampled_from(KEYS), unique=True, max_size=5))
        sels.append(
            {
                **{p: entries[index].values[p] for p in pivots},
                **{k: draw(VALUES) for k in keys},
            }
        )
    for m in draw(st.lists(st.integers(3, 99), unique=True, max_size=2)):
        keys = draw(st.lists(st.sampled_from(KEYS), unique=True, max_size=4))
        sels.append({**{p: m for p in pivots}, **{k: draw(VALUES) for k in keys}})
    return draw(st.permutations(sels))


@st.composite
def example_updates(draw: st.DrawFn) -> list[dict[str, Any]]:
    return _example_update(draw, EXAMPLE, MNK)


@st.composite
def common_updates(draw: st.DrawFn) -> list[dict[str, Any]]:
    return _example_update(draw, COMMON, MNK)


def check_property(
    old: str, sels: list[dict[str, Any]], defaults: Mapping[str, Any]
) -> None:
    result = upsert(old, sels, pivots=MNK, path="t.yaml")
    got = [dict(e.values) for e in parse_manifest(result.text, "t").entries]
    want = expected_entries(old, sels, MNK, defaults)
    assert [e.keys() for e in got] == [e.keys() for e in want]
    assert all(_same(g[k], w[k]) for g, w in zip(got, want) for k in g)
    old_lines, new_lines = old.splitlines(True), result.text.splitlines(True)
    old_spans, new_spans = entry_spans(old), entry_spans(result.text)
    touched = {c.index for c in result.changes if c.status == "changed"}
    for i, ((a, b), (c, d)) in enumerate(zip(old_spans, new_spans)):
        if i not in touched:
            assert old_lines[a : b + 1] == new_lines[c : d + 1]
    assert old_lines[: old_spans[0][0]] == new_lines[: new_spans[0][0]]
    tail = len(old_lines) - old_spans[-1][1] - 1
    assert old_lines[len(old_lines) - tail :] == new_lines[len(new_lines) - tail :]
    again = upsert(result.text, sels, pivots=MNK, path="t.yaml")
    assert again.text == result.text
    assert all(c.status == "unchanged" for c in again.changes)


def _same(a: Any, b: Any) -> bool:
    """256 == 256.0, but True is not 1 and '1' is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(example_updates())
def test_random_updates_on_the_hand_curated_table(sels: list[dict[str, Any]]) -> None:
    check_property(EXAMPLE, sels, EXAMPLE_DEFAULTS)


@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(common_updates())
def test_random_updates_on_the_list_style_table(sels: list[dict[str, Any]]) -> None:
    common = {
        "name": "bench_matmul_sm90",
        "AUTOTUNING_MODE": True,
        "dtype": "bfloat16",
        "BLOCK_K": 64,
        "STAGES": 4,
    }
    check_property(COMMON, sels, common)
