"""A comment at the end of a line whose value ``--update`` replaces or removes goes
with the old value, and is reported; every other comment stays where it is."""

from __future__ import annotations

from typing import Any

import pytest

from kprofile.manifest.outcome import Dropped
from kprofile.manifest.upsert import upsert
from tuning_codegen.manifest import parse_manifest

TABLE = """\
defaults: &defaults
  STAGES: 4
  SCHEDULE: default
params:
# prefill
- <<: *defaults
  M: 256
  BM: 128  # from sweep A
  BN: 64   # 64 fits the epilogue
  STAGES: 5 # more stages paid off
  SCHEDULE: 'ws' # the pingpong one
- {<<: *defaults, M: 512, BM: 64}  # a flow entry
"""


def updated(text: str, **values: Any) -> tuple[str, tuple[Dropped, ...]]:
    result = upsert(text, [values], pivots=("M",), path="t.yaml")
    return result.text, result.dropped


CASES = [
    (
        "a replaced value's comment goes, with the spaces before it",
        {"M": 256, "BM": 256},
        "  BM: 128  # from sweep A\n",
        "  BM: 256\n",
        (Dropped(0, "BM", "# from sweep A"),),
    ),
    (
        "a quoted value's comment",
        {"M": 256, "SCHEDULE": "ds"},
        "  SCHEDULE: 'ws' # the pingpong one\n",
        "  SCHEDULE: 'ds'\n",
        (Dropped(0, "SCHEDULE", "# the pingpong one"),),
    ),
    (
        "a removed override takes its comment with its line",
        {"M": 256, "STAGES": 4},
        "  STAGES: 5 # more stages paid off\n",
        "",
        (Dropped(0, "STAGES", "# more stages paid off"),),
    ),
    (
        "a comment after a flow entry's brace stays",
        {"M": 512, "BM": 32},
        "- {<<: *defaults, M: 512, BM: 64}  # a flow entry\n",
        "- {<<: *defaults, M: 512, BM: 32}  # a flow entry\n",
        (),
    ),
]


@pytest.mark.parametrize(
    ("values", "before", "after", "dropped"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_a_comment_goes_with_the_value_it_described(
    values: dict[str, Any], before: str, after: str, dropped: tuple[Dropped, ...]
) -> None:
    assert TABLE.count(before) == 1
    text, said = updated(TABLE, **values)
    assert (text, said) == (TABLE.replace(before, after), dropped)


def test_the_comments_of_lines_left_alone_stay() -> None:
    text, said = updated(TABLE, M=256, BM=256)
    for kept in ("# prefill", "# 64 fits the epilogue", "# more stages paid off"):
        assert kept in text
    assert [d.comment for d in said] == ["# from sweep A"]


def test_a_crlf_line_keeps_its_line_break() -> None:
    crlf = TABLE.replace("\n", "\r\n")
    text, said = updated(crlf, M=256, BM=256)
    assert text == crlf.replace("  BM: 128  # from sweep A\r\n", "  BM: 256\r\n")
    assert said == (Dropped(0, "BM", "# from sweep A"),)


def test_a_comment_on_the_last_line_without_a_final_newline() -> None:
    table = "params:\n- M: 1\n  BM: 128   # old"
    text, said = updated(table, M=1, BM=64)
    assert text == "params:\n- M: 1\n  BM: 64"
    assert said == (Dropped(0, "BM", "# old"),)
    assert parse_manifest(text, "t.yaml").entries[0].values == {"M": 1, "BM": 64}


def test_a_hash_inside_a_quoted_value_is_no_comment() -> None:
    table = "params:\n- M: 1\n  TAG: 'a # b'\n"
    text, said = updated(table, M=1, TAG="c")
    assert (text, said) == ("params:\n- M: 1\n  TAG: 'c'\n", ())
