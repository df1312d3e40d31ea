"""YAML that is hostile, and messages that stay one line.

- YAML is bounded: aliases, merge keys, nesting, self-reference, for every
  YAML file either tool reads.
- Messages are one line with a line number and readable keys.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support import REG, SMALL
from support import run_codegen as run

from tuning_codegen.errors import InputError
from tuning_codegen.manifest import parse_manifest
from tuning_codegen.yamlbounds import node_budget

# --- bounded YAML ---------------------------------------------------------------

LAUGHS = "".join(
    f"{a}: &{a} [{', '.join([f'*{b}'] * 10)}]\n" for a, b in zip("bcdefg", "abcdef")
)
BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + LAUGHS + "params:\n- {M: *g}\n"
MERGE_BOMB = (
    "a: &a {x: 1, y: 2}\n"
    + "".join(
        f"{a}: &{a} {{<<: [{', '.join([f'*{b}'] * 10)}]}}\n"
        for a, b in zip("bcdefg", "abcdef")
    )
    + "params:\n- {<<: *g, M: 1}\n"
)


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        (BOMB, 6, f"aliases expand it to more than {node_budget(BOMB)} nodes"),
        (
            MERGE_BOMB,
            7,
            f"aliases expand it to more than {node_budget(MERGE_BOMB)} nodes",
        ),
        (
            "x: " + "[" * 150 + "]" * 150 + "\nparams: []\n",
            1,
            "nested more than 100 levels deep",
        ),
        ("x: &a [1, *a]\nparams: []\n", 1, "an anchor is used inside itself"),
        ("x: &a {k: *a}\nparams: []\n", 1, "an anchor is used inside itself"),
    ],
    ids=["billion-laughs", "merge-keys", "nesting", "recursive-list", "recursive-map"],
)
def test_hostile_yaml_fails_cleanly(text: str, line: int, problem: str) -> None:
    with pytest.raises(InputError) as info:
        parse_manifest(text, "m.yaml")
    assert str(info.value) == f"m.yaml:{line}: error: invalid YAML: {problem}"


def test_the_bomb_is_small_and_expands_to_ten_million_nodes() -> None:
    """What makes the case hostile (counted on the graph, never constructed)."""
    import yaml

    root = yaml.compose(BOMB, Loader=yaml.SafeLoader)
    g = dict((k.value, v) for k, v in root.value)["g"]

    def expanded(node: yaml.Node) -> int:  # all children of a level are one alias
        if isinstance(node, yaml.SequenceNode):
            return 1 + expanded(node.value[0]) * len(node.value)
        return 1

    assert len(BOMB) < 444
    assert expanded(g) > 10**7


def test_a_20000_entry_manifest_merging_defaults_still_loads() -> None:
    defaults = "".join(f"  D{i}: {i}\n" for i in range(12))
    entries = "".join(f"- <<: *d\n  M: {i}\n  N: {i % 7}\n" for i in range(20_000))
    manifest = parse_manifest(f"d: &d\n{defaults}params:\n{entries}", "m.yaml")
    assert len(manifest.entries) == 20_000
    assert manifest.entries[-1].values["D11"] == 11


def test_bomb_in_registry_and_for_kprofile(
    codegen_repo: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    registry = BOMB.replace("params:\n- {M: *g}\n", "tables: *g\n")
    codegen_repo.registry.write_text(registry)
    assert run(["--check"], capsys) == (
        2,
        "",
        f"{REG}:6: error: invalid YAML: aliases expand it to more than "
        f"{node_budget(registry)} nodes\n",
    )
    (tmp_path / "bomb.yaml").write_text(BOMB)
    done = subprocess.run(
        [str(Path(sys.executable).with_name("kprofile")), str(tmp_path / "bomb.yaml")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "bomb.yaml:6: error: invalid YAML: aliases expand it" in done.stderr


# --- one line, a line number, readable keys ---------------------------------------


def test_nul_byte_is_one_line_with_its_line(
    codegen_repo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    codegen_repo.edit(SMALL, "FAST: false", "FAST: fal\x00se")
    assert run(["--check"], capsys) == (
        2,
        "",
        f"{SMALL}:6: error: invalid YAML: character U+0000 is not allowed (column 12)\n",
    )
    codegen_repo.registry.write_text("tables:\n  - \x07\n")
    assert run(["--check"], capsys)[2] == (
        f"{REG}:2: error: invalid YAML: character U+0007 is not allowed (column 5)\n"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "tables: []\n[a, b]: 1\n",
            "2: error: unknown top-level key (a list) (expected 'tables', and optionally 'defaults')",
        ),
        (
            "{x: 1}: 2\n",
            "1: error: unknown top-level key (a mapping) (expected 'tables', and optionally 'defaults')",
        ),
        (
            "tables:\n  - {name: a, [k]: v}\n",
            "2: error: unknown key (a list) in table; known keys: name, manifest, snippet, "
            "target, begin_marker, end_marker, snippet_variants, source_label, indent, language, format",
        ),
        (
            'tables:\n  - {? "a\\nb" : v}\n',
            "2: error: unknown key 'a\\nb' in table; known keys: name, manifest, snippet, target, begin_marker, end_marker, snippet_variants, source_label, indent, language, format",
        ),
    ],
    ids=["list-key", "mapping-key", "list-key-in-table", "key-with-newline"],
)
def test_registry_keys_are_readable(
    codegen_repo: Any, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    codegen_repo.registry.write_text(text)
    assert run(["--check"], capsys) == (2, "", f"{REG}:{message}\n")


def test_path_with_a_newline_is_still_one_line(
    codegen_repo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    codegen_repo.edit(
        REG,
        "manifest: python/tuning_small.yaml",
        'manifest: "python/a\\nb.yaml"\n    source_label: small',
    )
    assert run(["--check"], capsys) == (
        2,
        "",
        '"python/a\\nb.yaml": error: no such file\n',
    )
    codegen_repo.edit(REG, "\n    source_label: small", "")  # the default label
    assert run(["--check"], capsys)[2] == (
        f"{REG}:22: error: table 'small-py': 'source_label' contains a line break "
        "(U+000A)\n"
    )


# --- a mistake named at its line, in both tools -------------------------------------------

CONFLICTED = """\
params:
- M: 1
<<<<<<< HEAD
  N: 2
=======
  N: 3
>>>>>>> retune
"""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # the key without its ':' is on line 3; the scanner notices on line 4
        ("params:\n- M: 1\n  MMA_M 256\n  N: 2\n",
         "m.yaml:3: error: invalid YAML: while scanning a simple key could not find "
         "expected ':'"),
        ('params:\n- M: "unclosed\n  N: 2\n',
         "m.yaml:2: error: invalid YAML: while scanning a quoted scalar found "
         "unexpected end of stream"),
        (CONFLICTED,
         "m.yaml:3: error: unresolved merge conflict (git's <<<<<<< line): resolve "
         "it, then run again"),
        (CONFLICTED.replace("<<<<<<< HEAD\n", ""),
         "m.yaml:4: error: unresolved merge conflict (git's ======= line): resolve "
         "it, then run again"),
    ],
)  # fmt: skip
def test_a_yaml_mistake_is_named_at_its_line(text: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        parse_manifest(text, "m.yaml")
    assert str(info.value) == message


def test_a_conflicted_registry_and_manifest_are_said_so_by_both_tools(
    codegen_repo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from kprofile.cli import main as kprofile

    codegen_repo.path(SMALL).write_text(CONFLICTED)
    code, out, err = run(["--check"], capsys)
    assert (code, out) == (2, "")
    assert err == (
        f"{SMALL}:3: error: unresolved merge conflict (git's <<<<<<< line): resolve it, "
        "then run again\n"
    )
    assert kprofile([SMALL, "--merge"]) == 2
    err = capsys.readouterr().err
    assert f"{SMALL}:3: error: unresolved merge conflict (git's <<<<<<< line)" in err
