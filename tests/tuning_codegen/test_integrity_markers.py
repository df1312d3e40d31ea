"""Nothing a user writes can break the markers of a target.

- A value, source label or indent is one line and holds no marker of any table
  sharing the target; the last guard re-finds every region in the new text.
- A marker line is a comment line of the target's language.
- Regions that nest, overlap or share lines: test_integrity_regions.py.

Every case runs in the four-table repository of ``conftest.py`` with two tables made
stale, and checks that no file changed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import PY, REG, SMALL, make_stale, refused
from support import run_codegen as run

from tuning_codegen.errors import InputErrors
from tuning_codegen.generate import check_regions_intact
from tuning_codegen.languages import LANGUAGES
from tuning_codegen.table import Table

MOJO = "kernels/tuning_configs.mojo"
# the line-break characters of str.splitlines, as YAML double-quoted escapes
LINE_BREAKS = [
    ("\\n", "000A"),
    ("\\r", "000D"),
    ("\\v", "000B"),
    ("\\f", "000C"),
    ("\\x1c", "001C"),
    ("\\x1d", "001D"),
    ("\\x1e", "001E"),
    ("\\N", "0085"),
    ("\\L", "2028"),
    ("\\P", "2029"),
]


@pytest.fixture
def repo(codegen_repo: object) -> object:
    return make_stale(codegen_repo)


@pytest.mark.parametrize(
    ("escape", "code"), LINE_BREAKS, ids=[c for _, c in LINE_BREAKS]
)
def test_value_with_a_line_break_is_refused(
    repo: object, capsys: pytest.CaptureFixture[str], escape: str, code: str
) -> None:
    repo.edit(SMALL, "EXTRA: '\"wide\"'", f'EXTRA: "x{escape}# END-SMALL"')  # type: ignore[attr-defined]
    refused(
        repo,
        capsys,
        f"{SMALL}:5: error: params[1]: value of EXTRA contains a line break "
        f"(U+{code}); a value must fit on one line",
    )


def test_value_holding_a_marker_of_another_table_of_the_target_is_refused(
    repo: object, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = "kernels/tuning_table_sm100_bf16.yaml"
    repo.edit(manifest, "RASTER_ORDER: AlongM", "RASTER_ORDER: AlongM  # END-SMALL")  # type: ignore[attr-defined]
    assert run(["--check", "--table", "sm100-bf16"], capsys)[0] == 1  # a YAML comment
    repo.edit(  # type: ignore[attr-defined]
        manifest,
        "RASTER_ORDER: AlongM  # END-SMALL",
        "RASTER_ORDER: 'AlongM  # END-TUNING-LIST-SM90-FP8'",
    )
    code, _, err = run(["--check"], capsys)
    assert code == 2
    assert err.startswith(
        f"{manifest}:13: error: params[0]: value of RASTER_ORDER contains the end "
        "marker 'END-TUNING-LIST-SM90-FP8' of table 'sm90-fp8'\n"
    )


def test_marker_made_of_snippet_text_and_a_value_is_refused(
    repo: object, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.edit("python/small.py.snippet", "extra=[@EXTRA])", "extra=[@EXTRA]SMALL)")  # type: ignore[attr-defined]
    repo.edit(SMALL, "EXTRA: '\"wide\"'", "EXTRA: '# END-'")  # type: ignore[attr-defined]
    refused(
        repo,
        capsys,
        f"{SMALL}:5: error: params[1]: the rendered entry contains the end marker "
        "'END-SMALL' of table 'small-py'",
    )


def test_snippet_holding_a_marker_is_refused(
    repo: object, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.edit("python/small.py.snippet", "Config(", "Config(  # END-SMALL\n")  # type: ignore[attr-defined]
    refused(
        repo,
        capsys,
        "python/small.py.snippet:1: error: contains the end marker 'END-SMALL' "
        "of table 'small-py'",
    )


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        (
            '    source_label: "a\\n# END-SMALL"\n',
            "table 'small-py': 'source_label' contains a line break (U+000A)",
        ),
        (
            "    source_label: x BEGIN-SMALL\n",
            "table 'small-py': source_label contains the begin marker 'BEGIN-SMALL' "
            "of table 'small-py'",
        ),
        (
            '    name: "a\\u2028b"\n',
            "table 'a\\u2028b': 'name' contains a line break (U+2028)",
        ),
        (
            '    source_label: "a\\e[2Jb"\n',
            "table 'small-py': 'source_label' contains a control character (U+001B)",
        ),
    ],
    ids=["label-line-break", "label-marker", "name-line-break", "label-escape"],
)
def test_registry_settings_that_would_break_lines(
    repo: object, capsys: pytest.CaptureFixture[str], setting: str, message: str
) -> None:
    repo.edit(REG, '    indent: "    "\n', '    indent: "    "\n' + setting)  # type: ignore[attr-defined]
    if setting.startswith("    name:"):
        repo.edit(REG, "  - name: small-py\n", "  -\n")  # type: ignore[attr-defined]
    code, out, err = run(["--check"], capsys)
    assert (code, out) == (2, "")
    assert err.split(": error: ", 1)[1] == message + "\n"


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        (
            "--indent",
            "\n# END-T",
            "--indent: error: 'indent' must be a string of spaces or tabs",
        ),
        (
            "--source-label",
            "a\rb",
            "--source-label: error: 'source_label' contains a line break (U+000D)",
        ),
        (
            "--begin-marker",
            "END-T-X",
            "--end-marker: error: begin marker 'END-T-X' and end marker 'END-T': neither may contain the other (each must occur on exactly one line)",
        ),
    ],
)
def test_single_table_flags_that_would_break_lines(
    git_repo: Path,
    capsys: pytest.CaptureFixture[str],
    flag: str,
    value: str,
    message: str,
) -> None:
    (git_repo / "m.yaml").write_text("params:\n- {M: 1}\n")
    (git_repo / "s.snippet").write_text("C([@M])\n")
    (git_repo / "t.py").write_text("# BEGIN-T\n# END-T\n")
    args = ["--manifest", "m.yaml", "--snippet", "s.snippet", "--target", "t.py"]
    args += ["--begin-marker", "BEGIN-T", "--end-marker", "END-T", flag, value]
    assert run(args, capsys) == (2, "", message + "\n")
    assert (git_repo / "t.py").read_text() == "# BEGIN-T\n# END-T\n"


def test_last_guard_finds_a_marker_doubled_by_generated_text() -> None:
    table = Table(
        "t", "m", "s", "t.py", "BEGIN-T", "END-T", "m", language=LANGUAGES["python"]
    )
    check_regions_intact("# BEGIN-T\nx\n# END-T\n", [table], "t.py")
    with pytest.raises(InputErrors) as info:
        check_regions_intact("# BEGIN-T\n# END-T\n# END-T\n", [table], "t.py")
    assert [str(e) for e in info.value.errors] == [
        "t.py:3: error: regenerating would break the regions: end marker 'END-T' "
        "occurs 2 times (lines 2 and 3); it must occur once; nothing was written"
    ]


# --- marker lines are comment lines -----------------------------------------


@pytest.mark.parametrize(
    ("begin", "end", "line", "what", "marker"),
    [
        ('a = "BEGIN-SMALL"', 'b = "END-SMALL"', 2, "begin", "BEGIN-SMALL"),
        ("    # BEGIN-SMALL", 'b = "END-SMALL"', 9, "end", "END-SMALL"),
        ("x = 1  # BEGIN-SMALL", "# END-SMALL", 2, "begin", "BEGIN-SMALL"),
        ("    // BEGIN-SMALL", "    # END-SMALL", 2, "begin", "BEGIN-SMALL"),
    ],
    ids=["code-code", "comment-code", "comment-after-code", "wrong-prefix"],
)
def test_marker_outside_a_comment_line_is_refused(
    repo: object,
    capsys: pytest.CaptureFixture[str],
    begin: str,
    end: str,
    line: int,
    what: str,
    marker: str,
) -> None:
    repo.edit(PY, "    # BEGIN-SMALL", begin)  # type: ignore[attr-defined]
    repo.edit(PY, "    # END-SMALL", end)  # type: ignore[attr-defined]
    refused(
        repo,
        capsys,
        f"{PY}:{line}: error: {what} marker '{marker}' is not on a comment line: "
        "only indentation may come before '#'",
    )


def test_indented_comment_markers_with_tabs_and_crlf_are_accepted(
    repo: object, capsys: pytest.CaptureFixture[str]
) -> None:
    path = Path.cwd() / PY
    text = path.read_text().replace("    # BEGIN-SMALL", "\t # BEGIN-SMALL")
    path.write_bytes(text.replace("\n", "\r\n").encode())
    assert run(["--table", "small-py"], capsys) == (
        0,
        f"regenerated {PY} (tables: small-py)\n",
        "",
    )
    data = path.read_bytes()
    assert b"\t # BEGIN-SMALL\r\n    # Automatically generated" in data
    assert b"\n" not in data.replace(b"\r\n", b"")


def test_bom_before_a_marker_on_the_first_line_is_kept(
    repo: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """A UTF-8 BOM is not text before the comment prefix; it stays in place."""
    path = Path.cwd() / PY
    text = path.read_text()
    path.write_bytes(("\ufeff" + text[text.index("    # BEGIN-SMALL") :]).encode())
    assert run(["--table", "small-py"], capsys)[0] == 0
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf    # BEGIN-SMALL\n    # Automatically")
    assert run(["--check", "--table", "small-py"], capsys) == (0, "", "")
