"""kprofile.manifest.replace: a group's range entries replaced in place, every other byte
kept. Expected texts are written out by hand."""

from __future__ import annotations

from typing import Any

import pytest

from kprofile.manifest.change import GroupRanges, RangeTable
from kprofile.manifest.ranges import replace_ranges
from tuning_codegen.errors import InputError
from tuning_codegen.manifest import parse_manifest

CURATED = """\
# Curated table: hand-tuned, then ranged by kprofile.
defaults: &defaults
  BN: 128
  SWAP_AB: false
params:
# the 4096 x 4096 shapes
- <<: *defaults
  N: 4096
  K: 4096
  M: 1
  M_END: 64
  BM: 64
  SWAP_AB: true   # skinny M
- <<: *defaults
  N: 1024
  K: 1024
  M: 1
  M_END: 4096
  BM: 128
- <<: *defaults   # no M: not a range entry, kept
  N: 4096
  K: 4096
  BM: 256
- <<: *defaults
  N: 4096
  K: 4096
  M: 64
  M_END: 8192
  BM: 128
"""

NEW_4096 = (
    {"N": 4096, "K": 4096, "M": 16, "M_END": 144, "BM": 64, "BN": 256, "SWAP_AB": True},
    {
        "N": 4096,
        "K": 4096,
        "M": 144,
        "M_END": 961,
        "BM": 128,
        "BN": 128,
        "SWAP_AB": False,
    },
)

# The new ranges keep the curated outer bounds (M from 1, M_END to 8192): the sweep
# measured only from 16 to 960.
REPLACED = """\
# Curated table: hand-tuned, then ranged by kprofile.
defaults: &defaults
  BN: 128
  SWAP_AB: false
params:
# the 4096 x 4096 shapes
- <<: *defaults
  N: 4096
  K: 4096
  M: 1
  M_END: 144
  BM: 64
  BN: 256
  SWAP_AB: true
- <<: *defaults
  N: 4096
  K: 4096
  M: 144
  M_END: 8192
  BM: 128
- <<: *defaults
  N: 1024
  K: 1024
  M: 1
  M_END: 4096
  BM: 128
- <<: *defaults   # no M: not a range entry, kept
  N: 4096
  K: 4096
  BM: 256
"""


def table(*groups: tuple[dict[str, Any], tuple[dict[str, Any], ...]]) -> RangeTable:
    return RangeTable(
        "M", ("N", "K"), tuple(GroupRanges(g, e) for g, e in groups), "M_END"
    )


def replace(text: str, *groups: Any, match: tuple[str, ...] = ("N", "K")) -> Any:
    return replace_ranges(text, table(*groups), match=match, path="t.yaml")


def test_a_group_s_ranges_take_the_place_of_its_first_range_entry() -> None:
    result = replace(CURATED, ({"N": 4096, "K": 4096}, NEW_4096))
    assert result.text == REPLACED
    (change,) = result.changes
    assert (change.status, change.removed, change.entries) == (
        "replaced",
        (0, 3),
        (0, 1),
    )


@pytest.mark.parametrize("final_newline", [True, False])
def test_crlf_and_a_missing_final_newline_are_kept(final_newline: bool) -> None:
    text = CURATED.replace("\n", "\r\n")
    expected = REPLACED.replace("\n", "\r\n")
    if not final_newline:
        text, expected = text.rstrip("\r\n"), expected.rstrip("\r\n")
    result = replace(text, ({"N": 4096, "K": 4096}, NEW_4096))
    assert result.text == expected


def test_a_new_group_goes_after_the_last_entry_and_reads_back() -> None:
    new = ({"N": 8, "K": 8, "M": 1, "M_END": 2, "BM": 64, "BN": 128, "SWAP_AB": False},)
    result = replace(CURATED, ({"N": 8, "K": 8}, new))
    assert (
        result.text
        == CURATED + "- <<: *defaults\n  N: 8\n  K: 8\n  M: 1\n  M_END: 2\n  BM: 64\n"
    )
    assert [(c.status, c.entries) for c in result.changes] == [("added", (4,))]
    assert dict(parse_manifest(result.text, "t").entries[-1].values) == new[0]


def test_the_same_ranges_change_nothing() -> None:
    once = replace(CURATED, ({"N": 4096, "K": 4096}, NEW_4096)).text
    again = replace(once, ({"N": 4096, "K": 4096}, NEW_4096))
    assert again.text == once
    assert [(c.status, c.removed, c.entries) for c in again.changes] == [
        ("unchanged", (0, 1), (0, 1))
    ]


def test_blank_lines_flow_entries_and_an_empty_list() -> None:
    text = (
        "params:\n\n"
        "- {N: 1, K: 1, M: 1, M_END: 9, BM: 64}\n\n"
        "- {N: 2, K: 2, M: 1, M_END: 9, BM: 64}\n"
    )
    one = (
        {"N": 1, "K": 1, "M": 1, "M_END": 5, "BM": 32},
        {"N": 1, "K": 1, "M": 5, "M_END": 9, "BM": 64},
    )
    three = ({"N": 3, "K": 3, "M": 1, "M_END": 5, "BM": 32},)
    result = replace(text, ({"N": 1, "K": 1}, one), ({"N": 3, "K": 3}, three))
    assert result.text == (
        "params:\n\n"
        "- {N: 1, K: 1, M: 1, M_END: 5, BM: 32}\n\n"
        "- {N: 1, K: 1, M: 5, M_END: 9, BM: 64}\n\n"
        "- {N: 2, K: 2, M: 1, M_END: 9, BM: 64}\n\n"
        "- {N: 3, K: 3, M: 1, M_END: 5, BM: 32}\n"
    )
    assert [(c.status, c.entries) for c in result.changes] == [
        ("replaced", (0, 1)), ("added", (3,)),
    ]  # fmt: skip
    empty = replace("name: x\nparams: []\n", ({"N": 3, "K": 3}, three))
    assert (
        empty.text == "name: x\nparams:\n- N: 3\n  K: 3\n  M: 1\n  M_END: 5\n  BM: 32\n"
    )


def test_key_and_dash_columns_and_scalar_styles_follow_the_neighbour() -> None:
    text = "params:\n  -   N: 1\n      M: 1\n      M_END: 2\n      SWAP: True\n"
    result = replace(
        text, ({"N": 1}, ({"N": 1, "M": 1, "M_END": 3, "SWAP": False},)), match=("N",)
    )
    assert (
        result.text
        == "params:\n  -   N: 1\n      M: 1\n      M_END: 3\n      SWAP: False\n"
    )


def test_refusals() -> None:
    with pytest.raises(InputError, match="not a flow list"):
        replace("params: [{N: 1, K: 1, M: 1}]\n", ({"N": 1, "K": 1}, ({"N": 1},)))
    with pytest.raises(InputError) as info:
        replace(
            CURATED,
            ({"N": 4096}, NEW_4096),
            ({"N": 4096, "K": 1}, NEW_4096),
            match=("N",),
        )
    assert info.value.message == (
        "params[0] matches both N=4096 and N=4096/K=1; name the columns that tell "
        "them apart with -p"
    )
    anchored = "params:\n- &first\n  N: 1\n  M: 1\n  M_END: 2\n- N: 2\n  M: 1\n  M_END: 2\n  X: *first\n"
    with pytest.raises(InputError) as info:
        replace(anchored, ({"N": 1}, ({"N": 1, "M": 1, "M_END": 5},)), match=("N",))
    assert info.value.message.startswith("the update would not be a valid manifest (")
    assert info.value.message.endswith("; nothing was written")


def test_an_unchanged_group_is_reported_where_its_entries_stand() -> None:
    """Group N=1 is unchanged but its entries are not neighbours; group N=2 before it
    shrinks from two entries to one."""
    text = (
        "params:\n"
        "- {N: 2, M: 1, M_END: 5, B: 1}\n"
        "- {N: 1, M: 1, M_END: 5, B: 1}\n"
        "- {N: 2, M: 5, M_END: 9, B: 2}\n"
        "- {N: 1, M: 5, M_END: 9, B: 2}\n"
    )
    one = ({"N": 1, "M": 1, "M_END": 5, "B": 1}, {"N": 1, "M": 5, "M_END": 9, "B": 2})
    two = ({"N": 2, "M": 1, "M_END": 9, "B": 3},)
    result = replace(text, ({"N": 1}, one), ({"N": 2}, two), match=("N",))
    assert result.text == (
        "params:\n"
        "- {N: 2, M: 1, M_END: 9, B: 3}\n"
        "- {N: 1, M: 1, M_END: 5, B: 1}\n"
        "- {N: 1, M: 5, M_END: 9, B: 2}\n"
    )
    assert [(c.status, c.removed, c.entries) for c in result.changes] == [
        ("unchanged", (1, 3), (1, 2)),
        ("replaced", (0, 2), (0,)),
    ]
