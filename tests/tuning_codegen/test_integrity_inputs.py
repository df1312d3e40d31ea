"""Inputs that are not what they seem.

- Registry discovery never leaves the repository.
- Placeholder values are scalars, free of controls and invisible characters.
- Snippets: every ``[@`` is a placeholder; not empty; BOM and CR handled.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import PY, REG, SMALL, SNIPPET
from support import run_codegen as run

from tuning_codegen.errors import InputError
from tuning_codegen.manifest import parse_manifest
from tuning_codegen.render import render_region
from tuning_codegen.snippet import parse_snippet

# --- discovery stops at the repository root ---------------------------------


def test_registry_planted_above_a_folder_outside_any_repository_is_not_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "shared"
    (shared / "me" / "work").mkdir(parents=True)
    (shared / "victim.py").write_text("# BEGIN-X\nkeep = 1\n# END-X\n")
    (shared / "m.yaml").write_text("params:\n- {A: 1}\n")
    (shared / "s.snippet").write_text("x = [@A]\n")
    (shared / REG).write_text(
        "tables:\n- {name: x, manifest: m.yaml, snippet: s.snippet, "
        "target: victim.py, begin_marker: BEGIN-X, end_marker: END-X}\n"
    )
    monkeypatch.chdir(shared / "me" / "work")
    for args in ([], ["--check"], ["--list"]):
        assert run(args, capsys) == (
            2,
            "",
            f"{shared / 'me' / 'work'}: error: not inside a git repository, so no "
            f"{REG} is searched for: pass --config PATH, or use the single-table "
            "flags (see --help)\n",
        )
    assert (shared / "victim.py").read_text() == "# BEGIN-X\nkeep = 1\n# END-X\n"
    assert run(["--config", f"../../{REG}", "--check"], capsys)[0] == 1  # if asked


def test_registry_symlinked_from_outside_the_repository_is_not_used(
    codegen_repo: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A committed link to a registry elsewhere would apply that folder's tables."""
    elsewhere = tmp_path / "elsewhere.yaml"
    elsewhere.write_text("tables: []\n")
    codegen_repo.registry.unlink()
    codegen_repo.registry.symlink_to(elsewhere)
    assert run(["--check"], capsys) == (
        2,
        "",
        f"{codegen_repo.registry}: error: resolves outside the repository "
        f"({codegen_repo.root}); a registry found by searching must be the "
        "repository's own (or pass --config)\n",
    )


# --- placeholder values are scalars -------------------------------------------

VALUES = [
    ("[1, 2]", "a list"),
    ("{a: 1}", "a mapping"),
    ("!!set {a, b}", "a set"),
    ("2024-01-02", "a date"),
    ("2024-01-02 03:04:05", "a datetime"),
    ("!!binary aGVsbG8=", "binary data"),
]


@pytest.mark.parametrize(("yaml_value", "kind"), VALUES, ids=[k for _, k in VALUES])
def test_value_that_is_not_a_scalar_is_refused(yaml_value: str, kind: str) -> None:
    manifest = parse_manifest(f"params:\n- M: 1\n  X: {yaml_value}\n", "m.yaml")
    with pytest.raises(Exception) as info:
        render_region(
            manifest.entries,
            {None: "f([@M], [@X])"},
            source_label="m",
            manifest_path="m.yaml",
        )
    assert str(info.value) == (
        f"m.yaml:2: error: params[0]: value of X is {kind}; a placeholder value must "
        "be a string, number, boolean or null"
    )


CONTROL_VALUES = [("\\e[31m", "001B"), ("\\0", "0000"), ("\\x7F", "007F"),
                  ("\\x9B", "009B")]  # fmt: skip
# Invisible and direction-changing characters ("Trojan Source", look-alike text): the
# bidirectional controls and marks, the Arabic letter mark, zero-width characters,
# the word joiner, a BOM inside a value, tag characters, a soft hyphen.
INVISIBLE_VALUES = ["202E", "2066", "200F", "061C", "200B", "200C", "200D", "2060",
                    "FEFF", "E0041", "E007F", "00AD", "180E"]  # fmt: skip


@pytest.mark.parametrize(("escape", "code"), CONTROL_VALUES)
def test_value_with_a_control_character_is_refused(escape: str, code: str) -> None:
    """Escapes and NUL stay out of code."""
    manifest = parse_manifest(f'params:\n- {{X: "a{escape}b"}}\n', "m.yaml")
    with pytest.raises(Exception) as info:
        render_region(
            manifest.entries, {None: "[@X]"}, source_label="m", manifest_path="m.yaml"
        )
    assert str(info.value) == (
        f"m.yaml:2: error: params[0]: value of X contains a control character "
        f"(U+{code})"
    )


@pytest.mark.parametrize("code", INVISIBLE_VALUES)
def test_value_with_an_invisible_character_is_refused(code: str) -> None:
    """Before, U+061C (Arabic letter mark) was written into the source while U+200F
    was refused."""
    escape = f"\\U{int(code, 16):08X}"
    manifest = parse_manifest(f'params:\n- {{X: "a{escape}b"}}\n', "m.yaml")
    with pytest.raises(Exception) as info:
        render_region(
            manifest.entries, {None: "[@X]"}, source_label="m", manifest_path="m.yaml"
        )
    assert str(info.value) == (
        "m.yaml:2: error: params[0]: value of X contains an invisible or "
        f"direction-changing character (U+{code})"
    )


def test_every_format_character_of_this_python_is_invisible() -> None:
    """The one definition covers Unicode's format category as this interpreter's
    unicodedata knows it (the hook runs under 3.10-3.13: Unicode 13-15.1)."""
    import unicodedata

    from tuning_codegen.printable import INVISIBLE

    cf = {chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Cf"}
    assert cf <= INVISIBLE
    tags = {chr(c) for c in range(0xE0000, 0xE0080)}
    assert INVISIBLE - cf <= tags | {chr(c) for c in range(0x13439, 0x13440)}


def test_unused_non_scalar_values_are_fine_and_scalars_render() -> None:
    text = 'params:\n- {M: 1, F: 2.5, S: "x\\ty", B: true, N: null, L: [1, 2]}\n'
    manifest = parse_manifest(text, "m.yaml")
    region = render_region(
        manifest.entries,
        {None: "[@M] [@F] [@S] [@B] [@N]"},
        source_label="m",
        manifest_path="m",
    )
    assert region.endswith("        1 2.5 x\ty True None,")


def test_set_value_in_a_repository_names_entry_and_key(
    codegen_repo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    codegen_repo.edit(SMALL, "EXTRA: '\"wide\"'", "EXTRA: !!set {b, a, c}")
    before = codegen_repo.snapshot()
    assert run([], capsys) == (
        2,
        "",
        f"{SMALL}:5: error: params[1]: value of EXTRA is a set; a placeholder value "
        "must be a string, number, boolean or null\n",
    )
    assert codegen_repo.snapshot() == before


# --- snippets ---------------------------------------------------------------

BAD_SNIPPETS = [
    ("f([@M)\n", 1, "'[@M)' is not a placeholder"),
    ("a\nf([@M\n", 2, "'[@M' is not a placeholder"),
    ("f([@ M])", 1, "'[@ M])' is not a placeholder"),
    ("f([@M-1])", 1, "'[@M-1])' is not a placeholder"),
    ("f([@Mé])", 1, "'[@Mé])' is not a placeholder"),
    ("f([@9x])", 1, "'[@9x])' is not a placeholder"),
    ("f([@M] [@])", 1, "'[@])' is not a placeholder"),
    ("x\r\ny\rf([@ M])", 3, "'[@ M])' is not a placeholder"),
]


@pytest.mark.parametrize(("text", "line", "message"), BAD_SNIPPETS)
def test_malformed_placeholder_is_an_error_with_its_line(
    text: str, line: int, message: str
) -> None:
    with pytest.raises(InputError) as info:
        parse_snippet(text, "s.snippet")
    assert str(info.value) == (
        f"s.snippet:{line}: error: {message}: write [@NAME], NAME made of ASCII "
        "letters, digits and _ (not starting with a digit)"
    )


@pytest.mark.parametrize("text", ["", "\n", "  \r\n\t\n", "\ufeff\n"])
def test_empty_snippet_is_an_error(text: str) -> None:
    with pytest.raises(InputError) as info:
        parse_snippet(text, "s.snippet")
    assert str(info.value) == (
        "s.snippet: error: empty snippet: it must hold the text of one entry"
    )


@pytest.mark.parametrize(
    "raw",
    [b"\xef\xbb\xbfC([@M]\r\n  [@N])\r\n", b"C([@M]\r  [@N])\r", b"C([@M]\n  [@N])\n"],
)
def test_bom_crlf_and_lone_cr_render_like_lf(
    codegen_repo: Any, capsys: pytest.CaptureFixture[str], raw: bytes
) -> None:
    (codegen_repo.root / SNIPPET).write_bytes(raw.replace(b"[@N]", b"[@EXTRA]"))
    assert run(["--table", "small-py"], capsys)[0] == 0
    text = (codegen_repo.root / PY).read_text()
    assert (
        "    C(1\n      None),\n" in text and "\ufeff" not in text and "\r" not in text
    )


def test_bad_snippet_in_a_repository(
    codegen_repo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    (codegen_repo.root / SNIPPET).write_text("Config(m=[@M], x=[@M-1])\n")
    assert run(["--check"], capsys) == (
        2,
        "",
        f"{SNIPPET}:1: error: '[@M-1])' is not a placeholder: write [@NAME], NAME "
        "made of ASCII letters, digits and _ (not starting with a digit)\n",
    )
