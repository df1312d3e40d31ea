"""Nothing from an input forms a GitHub Actions workflow command in anything the code
generator prints, in any format: paths, table names, markers, values and the target's
own lines in a diff. The only commands are the ``--format github`` annotations the
tool means, and their file is the path as quoted. Oracle: ``github_commands``."""

from __future__ import annotations

from pathlib import Path

import pytest
from github_commands import FORMS, commands_in
from support import run_codegen

from tuning_codegen.annotate import escape_property
from tuning_codegen.printable import escape_commands, one_line, quote_path

SNIPPET = "Config(m=[@M], tag='[@TAG]')\n"


def lay_out(root: Path, form: str, index: int) -> str:
    """A registry whose table name, paths and a value carry ``form``, and a target
    whose lines next to the region do too; returns the target's path."""
    folder = root / ("##[warning]dir" if index % 2 else "::dir::x")
    folder.mkdir()
    target = folder / "t ##[error]x.py"
    target.write_text(f"X = [\n    # BEGIN\n    # END\n]\n{form}\n# {form}\n")
    (folder / "m.yaml").write_text(f"params:\n- M: 1\n  TAG: {form.strip()!r}\n")
    (folder / "s.snippet").write_text(SNIPPET)
    rel = folder.name
    name = form.strip().replace("\t", " ").replace("\u00a0", " ")
    (root / ".tuning-codegen.yaml").write_text(
        "tables:\n"
        f"  - name: {name!r}\n"
        f"    manifest: {rel + '/m.yaml'!r}\n"
        f"    snippet: {rel + '/s.snippet'!r}\n"
        f"    target: {rel + '/t ##[error]x.py'!r}\n"
        "    begin_marker: BEGIN\n    end_marker: END\n    language: python\n"
    )
    return f"{rel}/t ##[error]x.py"


@pytest.mark.slow  # every command form through every format and mode (a matrix)
@pytest.mark.parametrize("index", range(len(FORMS)))
@pytest.mark.parametrize("fmt", ["text", "github", "json"])
def test_no_output_of_any_format_forms_a_command(
    git_repo: Path, capsys: pytest.CaptureFixture[str], index: int, fmt: str
) -> None:
    form = FORMS[index]
    target = lay_out(git_repo, form, index)
    outputs = []
    for args in (["--check"], ["--list"], ["--check", "--list"], [], ["--check"]):
        _, out, err = run_codegen([*args, "--format", fmt], capsys)
        outputs.append(out + err)
    (git_repo / target).write_text("X = [\n    # BEGIN\n]\n")  # a broken region
    _, out, err = run_codegen(["--check", "--format", fmt], capsys)
    outputs.append(out + err)
    log = "".join(outputs)
    assert "planted" in log  # the inputs' text is shown, escaped
    for name, line in commands_in(log):
        assert fmt == "github" and name == "error", line
        shown = escape_property(quote_path(target))
        assert f"file={shown}," in line or "file=" not in line, line


@pytest.mark.parametrize("form", FORMS)
def test_the_escapes_leave_no_command_and_keep_the_text(form: str) -> None:
    for text in (form, f"a\n{form}\rb", f"{form}\r\n{form}"):
        assert commands_in(escape_commands(text)) == []
        assert commands_in(one_line(text)) == []
        assert commands_in(quote_path(text)) == []
    assert escape_commands("::") == ":\\:"
    assert escape_commands("a ::b::c") == "a ::b::c"  # not first on its line: kept
    assert escape_commands("x ##[y]") == "x ##\\[y]"
