"""YAML read as the reference reads it, and every YAML
problem an exit 2 with ``path:line``.

The reference loads manifests with ``yaml.safe_load``, PyYAML's pure-Python loader.
This project composes with libyaml where libyaml agrees with it (``yamlload``); the
property tests here compare the two on generated documents, and the tool with
``yaml.load(text, Loader=yaml.SafeLoader)`` itself.
"""

from __future__ import annotations

import math
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import BIN, examples

from tuning_codegen.cli import main
from tuning_codegen.errors import InputError
from tuning_codegen.manifest import parse_manifest
from tuning_codegen.yamlload import c_may_differ, compose, construct

pytestmark = pytest.mark.slow  # libyaml against safe_load on generated documents

TOOL = str(BIN / "tuning-codegen")
SNIPPET = "Cfg(M=[@M])\n"


@pytest.fixture
def table(tmp_path: Path) -> Path:
    """A folder for one table: m.yaml (written by each test), s.snippet, t.mojo."""
    (tmp_path / "s.snippet").write_text(SNIPPET)
    (tmp_path / "t.mojo").write_text("# BEGIN\n# END\n")
    return tmp_path


def codegen(
    folder: Path, *extra: str, snippet: str = "s.snippet"
) -> subprocess.CompletedProcess[str]:
    """The installed script, single-table mode, in ``folder``."""
    return subprocess.run(
        [TOOL, "--manifest", "m.yaml", "--snippet", snippet, "--target", "t.mojo",
         "--begin-marker", "BEGIN", "--end-marker", "END", *extra],
        cwd=folder, capture_output=True, text=True, check=False,
    )  # fmt: skip


def region(*bodies: str) -> str:
    """The target holding entries whose snippet rendered to ``bodies``."""
    entries = [
        f"        # Automatically generated from [m.yaml]\n"
        f"        # index: [{i}]\n        {body},\n"
        for i, body in enumerate(bodies)
    ]
    return "# BEGIN\n" + "".join(entries) + "# END\n"


# --- values the loader cannot construct, through the real command -----------

LONG_HEX = "0x" + "f" * 3600  # 4,335 decimal digits
UNCONSTRUCTABLE = [
    ("!!bool 1", "'1' is not a valid !!bool"),
    ("!!int ''", "'' is not a valid !!int"),
    ("!!timestamp x", "'x' is not a valid !!timestamp"),
    (
        "!!timestamp 2001-13-45",
        "'2001-13-45' is not a valid !!timestamp (month must be in 1..12)",
    ),
    (
        "!!float x",
        "'x' is not a valid !!float (could not convert string to float: 'x')",
    ),
    (
        "!!int 0:1",
        "'0:1' is not a valid !!int (invalid literal for int() with base 8: '0:1')",
    ),
    ("!!set 1", "expected a mapping node, but found scalar"),
    ("!!omap 1", "while constructing an ordered map expected a sequence, but found scalar"),
    ("!!pairs x", "while constructing pairs expected a sequence, but found scalar"),
    ("!!seq x", "expected a sequence node, but found scalar"),
    ("!!map x", "expected a mapping node, but found scalar"),
    ("!!str [1]", "expected a scalar node, but found sequence"),
    (
        "!!binary é",
        "failed to convert base64 data into ascii: 'ascii' codec can't encode "
        "character '\\xe9' in position 0: ordinal not in range(128)",
    ),
    ("!!merge x", "could not determine a constructor for the tag 'tag:yaml.org,2002:merge'"),
    ("!foo x", "could not determine a constructor for the tag '!foo'"),
    (
        LONG_HEX,
        "'0xfffffffffffffffffffffffffffffffffff...' is an integer of more than 4300 "
        "digits, the most Python writes as text",
    ),
    (
        "0b" + "1" * 14300,
        "'0b11111111111111111111111111111111111...' is an integer of more than 4300 "
        "digits, the most Python writes as text",
    ),
    (
        "1" + ":59" * 2420,
        "'1:59:59:59:59:59:59:59:59:59:59:59:59...' is an integer of more than 4300 "
        "digits, the most Python writes as text",
    ),
    (
        "7" * 4301,
        "'7777777777777777777777777777777777777...' is an integer of more than 4300 "
        "digits, the most Python writes as text",
    ),
    ('"\\U00110000"', "while parsing a quoted scalar found invalid Unicode character escape code"),
]  # fmt: skip


@pytest.mark.parametrize(("value", "problem"), UNCONSTRUCTABLE, ids=range(20))
def test_a_value_the_loader_cannot_construct_is_exit_2_with_its_line(
    table: Path, value: str, problem: str
) -> None:
    (table / "m.yaml").write_text(f"# a table\nparams:\n- M: 1\n- M: {value}\n")
    for extra in ([], ["--check"]):
        done = codegen(table, *extra)
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr == f"m.yaml:4: error: invalid YAML: {problem}\n"
    assert (table / "t.mojo").read_text() == "# BEGIN\n# END\n"


def test_the_largest_integers_python_writes_are_read(table: Path) -> None:
    biggest = "9" * 4300
    (table / "m.yaml").write_text(f"params:\n- M: {biggest}\n- M: 0x{'f' * 3500}\n")
    done = codegen(table)
    assert (done.returncode, done.stderr) == (0, "")
    assert f"Cfg(M={biggest})," in (table / "t.mojo").read_text()


TAGS = [
    "!!null", "!!bool", "!!int", "!!float", "!!str", "!!binary", "!!timestamp",
    "!!set", "!!omap", "!!pairs", "!!seq", "!!map", "!!merge", "!!value", "!!yaml",
    "!", "!local", "!<tag:yaml.org,2002:int>", "!<tag:yaml.org,2002:bool>", "",
]  # fmt: skip
SCALARS = [
    "", "1", "-1", "0x1F", "0b101", "017", "0o17", "1_000", "1:30", "190:20:30",
    "1.5", ".inf", "-.Inf", ".nan", "1e3", "yes", "No", "off", "~", "null", "x",
    "2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-13-45", "aGVsbG8=", "%%%",
    "é", "0x", "0b", "-", "+", "_", ":", "1:", "0:1", "9" * 30, "1" * 5000,
]  # fmt: skip
NODES = [
    "{tag} {scalar!r}", "{tag} {scalar}", "{tag} [{scalar}]", "{tag} {{a: {scalar}}}",
    "{tag} [{{a: {scalar}}}]",
]  # fmt: skip


@settings(max_examples=examples(600), deadline=None)
@given(
    tag=st.sampled_from(TAGS),
    scalar=st.one_of(st.sampled_from(SCALARS), st.text(max_size=8)),
    shape=st.sampled_from(NODES),
    where=st.sampled_from(["value", "key", "metadata"]),
)
def test_construction_fails_only_as_an_input_error_with_a_line(
    tag: str, scalar: str, shape: str, where: str
) -> None:
    node = shape.format(tag=tag, scalar=scalar)
    text = {
        "value": f"params:\n- N: 1\n  M: {node}\n",
        "key": f"params:\n- N: 1\n  ? {node}\n  : 1\n",
        "metadata": f"x: {node}\nparams:\n- N: 1\n",
    }[where]
    try:
        parse_manifest(text, "m.yaml")
    except InputError as exc:  # anything else fails the test
        assert exc.location.line is not None, str(exc)


# --- the semantics of yaml.safe_load -------------------------------------------

PIECES = [
    "a", "M", "1", "0x1F", "1_0", "017", "1:3", "1.5", ".inf", ".nan", "yes", "No",
    "~", "null", "", " ", "  ", "\t", "\n", "\r\n", "\r", "\x85", "\u2028", "\ufeff",
    "- ", ": ", ":", "? ", "#", " #", "[", "]", "{", "}", ", ", "'", '"', "\\", "\\n",
    "\\x4", "|", ">", "|-", ">+", "|2", "&x ", "*x", "<<: ", "!", "! ", "!!str ",
    "!!int ", "%YAML 1.1\n", "%FOO bar\n", "---", "...", "é", "\U0001f600", "@", "=",
]  # fmt: skip


@st.composite
def yaml_texts(draw: Any) -> str:
    """Lines of YAML-ish pieces at various indentations: many are invalid, some
    valid, a few where libyaml and the pure loader part ways."""
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        indent = " " * draw(st.sampled_from([0, 0, 1, 2, 4]))
        pieces = draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=6))
        lines.append(indent + "".join(pieces))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


@st.composite
def manifests(draw: Any) -> str:
    """Manifests with anchors, merge keys and values of every scalar kind."""
    keys = st.sampled_from(["M", "N", "yes", "1", "~", "'M'", '"N"', "CLUSTER", "é"])
    values = st.sampled_from([*SCALARS[:30], "'a b'", '"x\\ty"', "[1, 2]", "{a: 1}",
                              "*x", "!", "! 1", "!!str 1", "|\n    lit", ">\n    f"])  # fmt: skip
    out = ["x: &x 7", "d: &d {M: 0, K: 1}", "params:"]
    for _ in range(draw(st.integers(1, 4))):
        first = draw(st.sampled_from(["- <<: *d", "- "]))
        pairs = [
            f"{draw(keys)}: {draw(values)}" for _ in range(draw(st.integers(1, 3)))
        ]
        out.append(
            first + ("\n  " if first.endswith("*d") else "") + "\n  ".join(pairs)
        )
    text = "\n".join(out) + "\n"
    ending = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    return text.replace("\n", ending)


def safe_load(text: str) -> tuple[str, Any]:
    try:
        return "ok", yaml.load(text, Loader=yaml.SafeLoader)
    except Exception:  # whatever safe_load raises, the reference fails on it
        return "refused", None


def ours(text: str) -> tuple[str, Any]:
    try:
        node = compose(text)
        return "ok", None if node is None else construct(node)
    except yaml.YAMLError:
        return "refused", None


def same(a: Any, b: Any) -> bool:
    """Equal values, NaN included, types too (1 is not True)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return bool(a == b)


@settings(
    max_examples=examples(1500),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(text=st.one_of(yaml_texts(), manifests()))
def test_documents_read_as_safe_load_reads_them(text: str) -> None:
    (theirs_verdict, theirs), (our_verdict, mine) = safe_load(text), ours(text)
    assert our_verdict == theirs_verdict, text
    assert same(mine, theirs), text


def tree(node: yaml.Node | None, seen: dict[int, int] | None = None) -> Any:
    """A node graph as plain data: tags, values, start positions, shared nodes."""
    seen = {} if seen is None else seen
    if node is None:
        return None
    if id(node) in seen:
        return ("alias", seen[id(node)])
    seen[id(node)] = len(seen)
    where = (node.start_mark.line, node.start_mark.column)
    if isinstance(node, yaml.ScalarNode):
        return (node.tag, node.value, where)
    if isinstance(node, yaml.SequenceNode):
        return (node.tag, [tree(kid, seen) for kid in node.value], where)
    pairs = [(tree(k, seen), tree(v, seen)) for k, v in node.value]
    return (node.tag, pairs, where)


def composed(text: str, loader: type[yaml.SafeLoader]) -> tuple[str, Any]:
    instance = loader(text)
    try:
        return "ok", tree(instance.get_single_node())
    except yaml.YAMLError:
        return "refused", None
    finally:
        instance.dispose()


@pytest.mark.skipif(not hasattr(yaml, "CSafeLoader"), reason="PyYAML without libyaml")
@settings(
    max_examples=examples(1500),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(text=st.one_of(yaml_texts(), manifests()).filter(lambda t: not c_may_differ(t)))
def test_libyaml_composes_only_texts_where_it_agrees_with_safe_load(text: str) -> None:
    """Where ``c_may_differ`` lets libyaml compose, whatever it accepts the pure
    loader accepts too, as the same nodes at the same lines (libyaml's refusals go to
    the pure loader, whose verdict stands: the other property)."""
    verdict, nodes = composed(text, yaml.CSafeLoader)
    if verdict == "ok" and not (isinstance(nodes, tuple) and nodes[1] == ""):
        assert composed(text, yaml.SafeLoader) == (verdict, nodes), text


DISAGREEMENTS = [  # libyaml reads these otherwise than yaml.safe_load
    ("params:\n- M: !\n", "ok"),  # libyaml: '', safe_load: None
    ("params:\n- M: 1\t\n", "refused"),  # libyaml takes the tab, safe_load does not
    ("\ufeff\ufeffparams: []\n", "ok"),  # libyaml skips a second BOM, safe_load: text
    ("params:\n- M: 1\n\ufeff\n", "refused"),  # libyaml skips it, safe_load does not
    ("params: [a ? b]\n", "refused"),
    ("params:\n- M: |#\n", "refused"),
    ("%YAML 1.1\n---\nparams: [!a 1]\n", "refused"),  # a local tag: no constructor
]


@pytest.mark.parametrize(("text", "verdict"), DISAGREEMENTS)
def test_where_libyaml_disagrees_safe_load_decides(text: str, verdict: str) -> None:
    assert c_may_differ(text)
    assert safe_load(text)[0] == verdict
    assert ours(text)[0] == verdict
    assert same(ours(text)[1], safe_load(text)[1])


@pytest.mark.parametrize(
    "text",
    ["%FOO bar\n---\nparams: []\n", 'params: "\\ud800"\n'],
    ids=["directive", "surrogate"],
)
def test_what_libyaml_refuses_safe_load_may_read(text: str) -> None:
    """libyaml refuses an unknown directive and an escaped surrogate; safe_load does
    not, and its verdict stands."""
    assert composed(text, yaml.CSafeLoader)[0] == "refused"
    assert safe_load(text)[0] == ours(text)[0] == "ok"
    assert same(ours(text)[1], safe_load(text)[1])


def test_an_empty_tag_renders_none_as_in_the_reference(table: Path) -> None:
    (table / "m.yaml").write_text("params:\n- M: !\n- M: !!str\n")
    done = codegen(table)
    assert (done.returncode, done.stderr) == (0, "")
    # None for "!", as safe_load reads it (libyaml: ''); "!!str" alone is ''
    assert (table / "t.mojo").read_text() == region("Cfg(M=None)", "Cfg(M=)")


# --- keys, merges and templates as the reference reads them --------------------


def test_params_through_a_top_level_merge_key(table: Path) -> None:
    (table / "m.yaml").write_text("base: &base\n  params:\n  - M: 1\n<<: *base\n")
    done = codegen(table)
    assert (done.returncode, done.stderr) == (0, "")
    assert (table / "t.mojo").read_text() == region("Cfg(M=1)")
    (table / "m.yaml").write_text(
        "b: &b\n  params: [{M: 1}]\n<<: *b\nparams: [{M: 2}]\n"
    )
    assert codegen(table).returncode == 0  # the file's own params override the merge
    assert (table / "t.mojo").read_text() == region("Cfg(M=2)")


def test_a_yes_key_is_the_key_true_as_in_the_reference(table: Path) -> None:
    (table / "s.snippet").write_text("Cfg(on=[@True], off=[@False], none=[@None])\n")
    (table / "m.yaml").write_text("params:\n- yes: 1\n  Off: 2\n  ~: 3\n")
    done = codegen(table)
    assert (done.returncode, done.stderr) == (0, "")
    assert (table / "t.mojo").read_text() == region("Cfg(on=1, off=2, none=3)")


def test_two_keys_that_are_one_string_are_refused(table: Path) -> None:
    (table / "m.yaml").write_text("params:\n- yes: 1\n  'True': 2\n")
    done = codegen(table)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "m.yaml:3: error: keys 'yes' (line 2) and 'True' are both the key 'True' once "
        "made strings, as the reference tool makes them; keep one\n"
    )


def test_a_null_template_is_the_default_snippet(table: Path) -> None:
    (table / "v.snippet").write_text("Ranged(M=[@M])\n")
    (table / "m.yaml").write_text(
        "params:\n- {M: 1, _template: null}\n- {M: 2, _template: r}\n- {M: 3, _template:}\n"
    )
    done = codegen(table, "--snippet-variant", "r=v.snippet")
    assert (done.returncode, done.stderr) == (0, "")
    assert (table / "t.mojo").read_text() == region(
        "Cfg(M=1)", "Ranged(M=2)", "Cfg(M=3)"
    )


@pytest.mark.parametrize(
    ("registry", "line", "where"),
    [
        ("tables: []\n<<: {tables: []}\n", 2, "at the top level"),
        (
            "tables:\n  - &t {name: a, manifest: m.yaml, snippet: s.snippet, "
            "target: t.mojo, begin_marker: BEGIN, end_marker: END}\n"
            "  - <<: *t\n    name: b\n",
            3,
            "in a table",
        ),
    ],
    ids=["top-level", "table"],
)
def test_a_registry_merge_key_is_called_a_merge_key(
    table: Path,
    registry: str,
    line: int,
    where: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (table / "m.yaml").write_text("params: [{M: 1}]\n")
    (table / "reg.yaml").write_text(registry)
    assert main(["--config", str(table / "reg.yaml"), "--check"]) == 2
    assert capsys.readouterr().err == (
        f"{table / 'reg.yaml'}:{line}: error: a merge key ('<<') {where}: the "
        "registry takes none; write each table's settings out in full\n"
    )


@pytest.mark.parametrize("tag", ["", "!!str "], ids=["libyaml", "pure-python"])
def test_nesting_deeper_than_a_parser_goes_has_its_line(table: Path, tag: str) -> None:
    deep = "[" * 5000 + "]" * 5000
    (table / "m.yaml").write_text(f"params:\n- M: 1\nx: {tag}{deep}\n")
    done = codegen(table, "--check")
    assert (done.returncode, done.stdout) == (2, "")
    assert (
        done.stderr
        == "m.yaml:3: error: invalid YAML: nested more than 100 levels deep\n"
    )
