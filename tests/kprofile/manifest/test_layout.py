"""kprofile.manifest.layout, read by the code generator's reader
(``tuning_codegen.positions``: one pass over libyaml's events).

The values must be what tuning-codegen reads, so every case compares them with
``tuning_codegen.manifest.parse_manifest`` (types and key order included, through
``repr``), or compares the error messages when it refuses the text. Offsets are
compared with the marks of PyYAML's pure-Python nodes, found here independently.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kprofile.manifest.layout import Layout, read_entries, read_layout
from tuning_codegen.errors import InputError
from tuning_codegen.manifest import parse_manifest

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
MANIFESTS = sorted(FIXTURES.glob("**/*.yaml"))

# YAML the reader constructs itself, YAML it leaves to parse_manifest, and YAML
# parse_manifest refuses: the values (or the error) must be the same.
TEXTS = [
    "params:\n- {M: 1, S: !!set {a, b}}\n",
    "params:\n- M: 1\n  O: !!omap [{a: 1}, {b: 2}]\n",
    "params:\n- M: 1\n  '=': 2\n",
    "params:\n- M: 1\n  =: 2\n",
    "k: &k M\nparams:\n- *k : 1\n",
    "p: &p\n- M: 1\nparams: *p\n",
    "e: &e {M: 1}\nparams:\n- *e\n- {M: 2}\n",
    "params:\n- M: 1\n  M: 2\n",
    "params:\n- M: 1\n- M: 1\n",
    "params:\n- M: 1\n- M: 1.0\n",
    "params:\n- M: 1\n- M: true\n",
    "params:\n- M: .nan\n- M: .NaN\n",
    "params:\n- M: [1]\n- M: [1]\n",
    "params:\n- M: [1]\n- M: [true]\n",
    "params:\n- M: 1\n  T: 2001-12-14\n  B: !!binary aGVsbG8=\n",
    "params:\n- M: !!int x\n",
    "params:\n- M: !foo x\n",
    "params:\n- <<: 1\n  M: 1\n",
    "params:\n- <<: [1]\n  M: 1\n",
    "a: &a {X: 1, <<: {Y: 2}}\nb: &b {Z: 3}\nparams:\n- <<: [*a, *b]\n  M: 1\n",
    "a: &a {X: 1}\nb: &b {Z: 3}\nparams:\n- <<: *b\n  <<: *a\n  M: 2\n",
    "a: &a {X: 1}\nparams:\n- M: 1\n  <<: *a\n  X: 5\n",
    # PyYAML 6.0.4 keeps a merged X here (a one-letter key) but the overriding XY
    "e: &e {X: 1, XY: 1}\nd: &d {<<: *e, X: 2, XY: 2}\nparams:\n- {<<: *d, M: 1}\n",
    "a: &a {X: 1, XY: 1}\nb: &b {X: 2, XY: 2, Z: 3}\nparams:\n- {<<: [*a, *b], M: 1}\n",
    "a: &a {X: 1}\nb: &b {Y: 2}\nparams:\n- {<<: [*a, *b], M: 1}\n- {<<: [], M: 2}\n",
    "a: &a [1, *a]\nparams:\n- M: 1\n",
    "a: &a {b: *a}\nparams:\n- M: 1\n",
    "---\nparams: []\n---\nparams: []\n",
    "",
    "- 1\n",
    "params: 3\n",
    "params:\n- 3\n",
    "x: *nope\nparams: []\n",
    "a: &x 1\nb: &x 2\nparams: []\n",
    "params:\n- {M: 1, [1, 2]: 3}\n",
    "params:\n- M: 1\n  L:\n    - {x: 1}\n    - {y: 'q'}\n  S: {x: \"z\"}\n",
    "s: &s 'quoted'\nparams:\n- M: 1\n  S: *s\n",
    "params:\n- M: 1\n  x: ~\n  y:\n  z: !!null ''\n",
    "\ufeffparams:\n- M: 1  # größe\n  N: é\n",
    "params:\n- ? M\n  : 1\n",
    "!!map\nparams: !!seq\n- !!map {M: 1}\n",
    "params: !!set {a}\n",
    "params:\n- M: 1\n  A: 'x\n",
]


def check_against_parse_manifest(text: str) -> Layout | None:
    """The reader's values are parse_manifest's, or both refuse ``text`` alike."""
    try:
        manifest = parse_manifest(text, "t.yaml")
    except InputError as exc:
        with pytest.raises(InputError) as info:
            read_layout(text, "t.yaml")
        assert str(info.value) == str(exc)
        with pytest.raises(InputError) as info:
            read_entries(text, "t.yaml")
        assert str(info.value) == str(exc)
        return None
    layout = read_layout(text, "t.yaml")
    want = [repr(e.values) for e in manifest.entries]
    assert [repr(item.merged) for item in layout.items] == want
    assert repr(layout.document) == repr(manifest.document)
    assert [item.line for item in layout.items] == [e.line for e in manifest.entries]
    merged, document = read_entries(text, "t.yaml")
    assert [repr(values) for values in merged] == want
    assert repr(document) == repr(manifest.document)
    return layout


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_fixture_manifests_read_as_parse_manifest_reads_them(path: Path) -> None:
    check_against_parse_manifest(path.read_bytes().decode("utf-8"))


@pytest.mark.parametrize("text", TEXTS)
def test_unusual_yaml_reads_as_parse_manifest_reads_it(text: str) -> None:
    check_against_parse_manifest(text)


def test_params_through_a_top_level_merge_are_read_but_not_edited() -> None:
    text = "<<: {params: [{M: 1}]}\nx: 1\n"  # safe_load merges at the top level too
    assert [dict(e.values) for e in parse_manifest(text, "t.yaml").entries] == [
        {"M": 1}
    ]
    with pytest.raises(InputError) as info:
        read_layout(text, "t.yaml")
    assert str(info.value) == (
        "t.yaml: error: kprofile cannot edit this manifest: its 'params' list comes "
        "through a top-level merge key (<<); write 'params:' in the file itself"
    )


def test_merge_defaults_are_what_the_merge_key_alone_gives() -> None:
    text = (
        "d: &d {A: 1, B: 2}\nl: &l [{C: 3}, {D: 4}]\nparams:\n"
        "- {<<: *d, M: 1, A: 5}\n- {<<: *l, M: 2}\n- {M: 3}\n"
    )
    layout = read_layout(text, "t.yaml")
    assert [dict(item.defaults) for item in layout.items] == [
        {"A": 1, "B": 2},
        {"C": 3, "D": 4},
        {},
    ]
    assert [item.merge_text for item in layout.items] == ["*d", "*l", None]


def pure_python_pairs(text: str) -> list[list[tuple[int, int, int, int]]]:
    """Per entry, each pair's key and value offsets from PyYAML's pure-Python nodes
    (an alias value: ``None`` offsets, as the node is the anchor's)."""
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    assert root is not None
    params = next(v for k, v in root.value if k.value == "params")
    out = []
    for entry in params.value:
        pairs = []
        for key, value in entry.value:
            alias = value.start_mark.index < key.end_mark.index
            span = (-1, -1) if alias else (value.start_mark.index, value.end_mark.index)
            pairs.append((key.start_mark.index, key.end_mark.index, *span))
        out.append(pairs)
    return out


OFFSET_TEXTS = [
    "\ufeffd: &d {A: 1}\nparams:\n- <<: *d\n  M: 1  # größe\n  N: 'é'\n",
    "params:\r\n  -   M:    1\r\n      L: [1, 2]\r\n      S: |\r\n        x\r\n\r\n",
    "x: &x 7\nparams: [{M: 1, B: *x}, {M: 2, C: {D: 'q'}}]",
    "params:\n- M: 1\n  E:\n  Z: >-\n    folded\n    text\n\n# end\n",
]


def accepted(path: Path) -> bool:
    try:
        parse_manifest(path.read_bytes().decode("utf-8"), str(path))
    except InputError:
        return False
    return True


@pytest.mark.parametrize(
    "text",
    OFFSET_TEXTS + [p.read_bytes().decode("utf-8") for p in MANIFESTS if accepted(p)],
)
def test_offsets_are_pyyaml_marks(text: str) -> None:
    layout = read_layout(text, "t.yaml")
    got = []
    for item in layout.items:
        pairs = []
        for pair in item.pairs:
            if pair.value_alias:
                assert text[pair.value_start] == "*"
                assert " " not in text[pair.value_start : pair.value_end]
                span = (-1, -1)
            else:
                span = (pair.value_start, pair.value_end)
            pairs.append((pair.key_start, pair.key_end, *span))
        got.append(pairs)
    assert got == pure_python_pairs(text)


# Random manifests: scalars in many spellings, both merge styles, flow and block
# entries, anchors on values; the reader must agree with parse_manifest every time.
KEYS = ["M", "N", "BM", "BLOCK_K", "S", "'q k'", "1", "true", "<<"]
SPELLINGS = [
    "1", "0x1F", "-7", "1.5", "1e3", "1.0e+3", ".inf", "-.inf", ".nan", "true",
    "True", "yes", "off", "null", "~", "", "'1'", '"x\\ty"', "abc", "2001-12-14",
    "!!str 5", "!!float 3", "'it''s'", "*v", "[1, a]", "{p: 1}", "&w 9",
]  # fmt: skip


@st.composite
def manifests(draw: st.DrawFn) -> str:
    style = draw(st.sampled_from(["none", "mapping", "list"]))
    lines = ["v: &v 42"]
    if style == "mapping":
        lines += ["defaults: &d", "  BM: 64", "  S: 'x'"]
    elif style == "list":
        lines += ["common: &d", "- BM: 64", "- S: 'x'"]
    lines.append("params:")
    for _ in range(draw(st.integers(0, 5))):
        keys = draw(st.lists(st.sampled_from(KEYS), max_size=5))
        pairs = [
            f"{k}: {'*d' if k == '<<' else draw(st.sampled_from(SPELLINGS))}"
            for k in keys
            if k != "<<" or style != "none"
        ] or ["M: 0"]
        if draw(st.booleans()):
            lines.append("- {" + ", ".join(pairs) + "}")
        else:
            lines += ["- " + pairs[0], *("  " + p for p in pairs[1:])]
    return "\n".join(lines) + "\n"


@pytest.mark.slow  # a property run, or a real process under a limit
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(manifests())
def test_random_manifests_read_as_parse_manifest_reads_them(text: str) -> None:
    check_against_parse_manifest(text)


def test_styles_are_the_first_scalar_written_for_each_key() -> None:
    text = (
        "a:\n  S: \"x\"\n  T:\n    S: 'y'\n    U: |\n      block\nS: plain\n"
        "params:\n- {T: 'z', U: u}\n"
    )
    styles: dict[str, Any] = {
        k: (v.value, v.style) for k, v in read_layout(text, "t.yaml").styles.items()
    }
    # a mapping's own keys count before those of the mappings inside it
    assert styles == {"S": ("plain", None), "T": ("z", "'"), "U": ("u", None)}
