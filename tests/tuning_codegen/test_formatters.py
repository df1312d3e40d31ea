"""Regions the repository's formatter leaves alone: ``format:`` with the real
``ruff format`` and ``clang-format`` (``mojo format`` runs in ``.ci/e2e_mojo.sh``, its
package being 700 MB). Codegen, then the formatter, then the check must converge;
only the regions' bytes are ever written; every failure is one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support import BIN, REG, run_codegen

RUFF = [str(BIN / "ruff"), "format", "--quiet"]
CLANG_FORMAT = [str(BIN / "clang-format")]

REGISTRY = """\
tables:
  - name: py
    manifest: m.yaml
    snippet: s.snippet
    target: t.py
    begin_marker: BEGIN-SMALL
    end_marker: END-SMALL
    language: python
    format: {py_format}
  - name: cc
    manifest: m.yaml
    snippet: c.snippet
    target: t.cc
    begin_marker: BEGIN-CC
    end_marker: END-CC
    language: cpp
    format: {cc_format}
"""
STDIN_FORMATS = {
    "py_format": '[ruff, format, --quiet, --stdin-filename, "{path}", "-"]',
    "cc_format": '[clang-format, "--assume-filename={path}"]',
}
FILE_FORMATS = {
    "py_format": '[ruff, format, --quiet, "{file}"]',
    "cc_format": '[clang-format, -i, "{file}"]',
}
MANIFEST = "params:\n- {M: 128, N: 2112, NAME: wide}\n- {M: 8, N: 7168, NAME: x}\n"
# Unformatted on purpose: single quotes, no spaces after commas, 8-space indent.
PY_SNIPPET = "Config(m=[@M],n=[@N],name='[@NAME]')\n"
CC_SNIPPET = "Cfg{[@M],[@N]}\n"
PY_TARGET = """\
CONFIGS = [
    # BEGIN-SMALL
    # END-SMALL
]


def   untouched( x ):   # outside the regions: the formatter's, when it runs
    return x
"""
CC_TARGET = """\
struct Cfg { int m, n; };
const Cfg configs[] = {
    // BEGIN-CC
    // END-CC
};
int  untouched( ) {return 0;}
"""
# What the formatters make of each region, written out by hand.
PY_REGION = """\
    # Automatically generated from [m.yaml]
    # index: [0]
    Config(m=128, n=2112, name="wide"),
    # Automatically generated from [m.yaml]
    # index: [1]
    Config(m=8, n=7168, name="x"),
"""
CC_REGION = """\
    // Automatically generated from [m.yaml]
    // index: [0]
    Cfg{128, 2112},
    // Automatically generated from [m.yaml]
    // index: [1]
    Cfg{8, 7168},
"""


@pytest.fixture
def formatted_repo(git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PATH", os.pathsep.join([str(BIN), os.environ["PATH"]]))
    lay_out(git_repo, STDIN_FORMATS)
    return git_repo


def lay_out(root: Path, formats: dict[str, str]) -> None:
    (root / REG).write_text(REGISTRY.format(**formats))
    (root / "m.yaml").write_text(MANIFEST)
    (root / "s.snippet").write_text(PY_SNIPPET)
    (root / "c.snippet").write_text(CC_SNIPPET)
    (root / "t.py").write_text(PY_TARGET)
    (root / "t.cc").write_text(CC_TARGET)


def region(text: str, begin: str, end: str) -> str:
    return text.split(begin + "\n", 1)[1].split(end, 1)[0].rsplit("\n", 1)[0] + "\n"


def with_region(target: str, begin: str, body: str) -> str:
    return target.replace(f"{begin}\n", f"{begin}\n{body}", 1)


@pytest.mark.parametrize(
    "formats", [STDIN_FORMATS, FILE_FORMATS], ids=["stdin", "file"]
)
def test_codegen_then_formatter_then_check_converges(
    formatted_repo: Path, capsys: pytest.CaptureFixture[str], formats: dict[str, str]
) -> None:
    lay_out(formatted_repo, formats)
    assert run_codegen([], capsys)[0] == 0
    py, cc = (
        (formatted_repo / "t.py").read_text(),
        (formatted_repo / "t.cc").read_text(),
    )
    assert py == with_region(PY_TARGET, "    # BEGIN-SMALL", PY_REGION)
    assert cc == with_region(CC_TARGET, "    // BEGIN-CC", CC_REGION)
    assert run_codegen(["--check"], capsys)[0] == 0
    subprocess.run([*RUFF, "t.py"], cwd=formatted_repo, check=True)
    subprocess.run([*CLANG_FORMAT, "-i", "t.cc"], cwd=formatted_repo, check=True)
    formatted_py = (formatted_repo / "t.py").read_text()
    assert "def untouched(x):" in formatted_py  # the formatter did its part
    assert region(formatted_py, "# BEGIN-SMALL", "# END-SMALL") == PY_REGION
    cc_after = (formatted_repo / "t.cc").read_text()
    assert region(cc_after, "// BEGIN-CC", "// END-CC") == CC_REGION
    assert run_codegen(["--check"], capsys) == (0, "", "")  # fresh: the loop ends
    before = {p.name: p.read_bytes() for p in formatted_repo.iterdir() if p.is_file()}
    assert run_codegen([], capsys) == (0, "", "")
    after = {p.name: p.read_bytes() for p in formatted_repo.iterdir() if p.is_file()}
    assert after == before
    assert not [
        p for p in formatted_repo.iterdir() if ".tuning-codegen-format" in p.name
    ]


def test_without_format_the_formatter_makes_the_region_stale(
    formatted_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The failure this feature exists for, shown with the real formatter."""
    lay_out(formatted_repo, {"py_format": "null", "cc_format": "null"})
    assert run_codegen([], capsys)[0] == 0
    subprocess.run([*RUFF, "t.py"], cwd=formatted_repo, check=True)
    code, out, _ = run_codegen(["--check"], capsys)
    assert code == 1
    assert '-    Config(m=128, n=2112, name="wide"),\n' in out
    assert "+        Config(m=128,n=2112,name='wide'),\n" in out


def test_only_the_regions_bytes_are_written(
    formatted_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The formatter reformats the whole text it is given; what it changes outside
    the regions is left to it, when it runs as the repository's formatter."""
    assert run_codegen([], capsys)[0] == 0
    py = (formatted_repo / "t.py").read_text()
    assert py.endswith(
        "\n\ndef   untouched( x ):   # outside the regions: the formatter's, when it runs\n    return x\n"
    )
    assert (
        (formatted_repo / "t.cc")
        .read_text()
        .endswith("int  untouched( ) {return 0;}\n")
    )


def test_the_written_regions_are_a_fixed_point_of_the_formatter(
    formatted_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_codegen([], capsys)[0] == 0
    for argv, name in ((RUFF, "t.py"), ([*CLANG_FORMAT, "-i"], "t.cc")):
        path = formatted_repo / name
        before = path.read_text()
        subprocess.run([*argv, name], cwd=formatted_repo, check=True)
        once = path.read_text()
        subprocess.run([*argv, name], cwd=formatted_repo, check=True)
        assert path.read_text() == once  # the formatter itself is idempotent
        markers = (
            ("# BEGIN-SMALL", "# END-SMALL")
            if name == "t.py"
            else ("// BEGIN-CC", "// END-CC")
        )
        assert region(once, *markers) == region(before, *markers)


def refused(root: Path, capsys: Any, message: str) -> None:
    before = {p.name: p.read_bytes() for p in root.iterdir() if p.is_file()}
    for args in ([], ["--check"]):
        code, out, err = run_codegen(args, capsys)
        assert (code, out) == (2, ""), err
        assert err == message + "\n"
    after = {p.name: p.read_bytes() for p in root.iterdir() if p.is_file()}
    assert after == before


def test_a_missing_formatter_is_one_line(
    formatted_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lay_out(formatted_repo, {**STDIN_FORMATS, "cc_format": "[no-such-formatter-zz]"})
    refused(
        formatted_repo,
        capsys,
        "t.cc: error: the formatter 'no-such-formatter-zz' is not installed (not "
        f"found on PATH); it is the 'format' of table 'cc' in {REG}",
    )


def test_a_failing_formatter_is_one_line_quoting_its_error(
    formatted_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ruff fails on text that is not Python: its own error line is quoted."""
    lay_out(
        formatted_repo,
        {
            **STDIN_FORMATS,
            "py_format": STDIN_FORMATS["py_format"].replace("--quiet, ", ""),
        },
    )
    (formatted_repo / "s.snippet").write_text("Config(m=[@M], n=[@N]\n")
    _, _, err = run_codegen(["--check"], capsys)
    assert err.startswith(
        "t.py: error: the formatter (ruff format --stdin-filename {path} -) failed "
        "(exit 2): error: Failed to parse t.py:"
    ), err
    assert err.endswith(f"; it is the 'format' of table 'py' in {REG}\n")
    assert err.count("\n") == 1


def test_a_formatter_that_does_not_finish_is_stopped(
    formatted_repo: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TUNING_CODEGEN_FORMAT_TIMEOUT", "0.5")
    lay_out(formatted_repo, {**STDIN_FORMATS, "cc_format": '[sleep, "30"]'})
    refused(
        formatted_repo,
        capsys,
        "t.cc: error: the formatter (sleep 30) did not finish in 0.5 s; it is the "
        f"'format' of table 'cc' in {REG}",
    )


def test_a_formatter_that_closes_its_output_before_it_exits_is_waited_for(
    formatted_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A process closes its pipes as it exits, a moment before it can be waited
    for; here the moment is widened to 0.3 s. Ending it then would read as
    "failed (exit -9)" on a loaded machine (it did, once, in CI)."""
    lay_out(
        formatted_repo,
        {**STDIN_FORMATS, "cc_format": '[sh, -c, "cat; exec >&- 2>&-; sleep 0.3"]'},
    )
    code, out, err = run_codegen([], capsys)
    assert (code, err) == (0, ""), err
    code, out, err = run_codegen(["--check"], capsys)
    assert (code, err) == (0, ""), err
    assert "Cfg{128,2112}" in (formatted_repo / "t.cc").read_text()


def test_a_formatter_that_rewrites_a_marker_line_is_one_line(
    formatted_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """clang-format reflows a comment longer than its column limit: the marker is
    cut in two."""
    (formatted_repo / "t.cc").write_text(
        CC_TARGET.replace("// BEGIN-CC", "// BEGIN-CC configs of the sm100 kernels")
    )
    (formatted_repo / REG).write_text(
        REGISTRY.format(
            py_format=STDIN_FORMATS["py_format"],
            cc_format='[clang-format, "--style={ColumnLimit: 24}"]',
        ).replace(
            "begin_marker: BEGIN-CC",
            "begin_marker: BEGIN-CC configs of the sm100 kernels",
        )
    )
    refused(
        formatted_repo,
        capsys,
        "t.cc: error: the formatter (clang-format --style={ColumnLimit: 24}) moves or "
        "rewrites a marker line: in its output, begin marker 'BEGIN-CC configs of the "
        "sm100 kernels' not found; keep it off the marker lines (e.g. fmt: off/on "
        "around the region)",
    )


UNSTABLE = (
    "import sys; text = sys.stdin.read(); "
    "sys.stdout.write(text.replace('CONFIGS', 'CONFIGS', 1) + '# again\\n' "
    "if False else text.replace('Config(', 'Config( ', 1))"
)


def test_a_formatter_that_never_settles_is_refused(
    formatted_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A command whose output changes each time it is run (here a one-line Python
    program adding a space each time) would loop forever with the check."""
    program = Path(sys.executable).name
    lay_out(
        formatted_repo, {**STDIN_FORMATS, "py_format": f"[{program}, -c, {UNSTABLE!r}]"}
    )
    _, _, err = run_codegen(["--check"], capsys)
    assert err == (
        f"t.py: error: the formatter ({program} -c {UNSTABLE}) does not settle on the "
        "region of table 'py': formatting its output again changes it; fix the "
        "formatter's configuration, or keep it off the region (fmt: off)\n"
    )


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        (
            "format: [./format.sh]",
            "'format' names the program './format.sh' by a path; name a command found on PATH (nothing in the repository is run)",
        ),
        (
            "format: ruff",
            "'format' must be a command: a list of strings such as [mojo, format, -q, \"{file}\"] (or null for none)",
        ),
        (
            "format: []",
            "'format' must be a command: a list of strings such as [mojo, format, -q, \"{file}\"] (or null for none)",
        ),
    ],
)
def test_a_bad_format_setting_is_refused_at_its_line(
    formatted_repo: Path, capsys: pytest.CaptureFixture[str], setting: str, message: str
) -> None:
    text = REGISTRY.format(**STDIN_FORMATS)
    text = text.replace(f"format: {STDIN_FORMATS['cc_format']}", setting)
    (formatted_repo / REG).write_text(text)
    line = text.splitlines().index(f"    {setting}") + 1
    refused(formatted_repo, capsys, f"{REG}:{line}: error: table 'cc': {message}")


def test_tables_of_one_target_must_share_its_formatter(
    formatted_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = REGISTRY.format(**STDIN_FORMATS).replace("target: t.cc", "target: t.py")
    text = text.replace("BEGIN-CC", "BEGIN-CC2").replace("END-CC", "END-CC2")
    (formatted_repo / REG).write_text(text)
    refused(
        formatted_repo,
        capsys,
        f"{REG}:10: error: tables 'py' (line 2) and 'cc' write t.py with different "
        "formatters ('ruff format --quiet --stdin-filename {path} -' and "
        "'clang-format --assume-filename={path}'); a target is formatted once: give "
        "them the same 'format'",
    )


def test_defaults_name_a_formatter_per_language(
    formatted_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "defaults:\n  format:\n"
    text += f"    python: {STDIN_FORMATS['py_format']}\n"
    text += f"    cpp: {STDIN_FORMATS['cc_format']}\n"
    body = REGISTRY.format(**STDIN_FORMATS)
    body = "\n".join(line for line in body.splitlines() if "format:" not in line)
    (formatted_repo / REG).write_text(text + body + "\n")
    assert run_codegen([], capsys)[0] == 0
    py = (formatted_repo / "t.py").read_text()
    assert py == with_region(PY_TARGET, "    # BEGIN-SMALL", PY_REGION)


def test_indent_marker_takes_the_marker_lines_own_indent(
    git_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (git_repo / REG).write_text(
        "tables:\n  - {name: t, manifest: m.yaml, snippet: s.snippet, target: t.py,\n"
        "     begin_marker: BEGIN, end_marker: END, language: python, indent: marker}\n"
    )
    (git_repo / "m.yaml").write_text("params:\n- {M: 1}\n")
    (git_repo / "s.snippet").write_text("C(m=[@M])\n")
    (git_repo / "t.py").write_text(
        "def f():\n  return [\n      # BEGIN\n      # END\n  ]\n"
    )
    assert run_codegen([], capsys)[0] == 0
    assert (git_repo / "t.py").read_text() == (
        "def f():\n  return [\n      # BEGIN\n"
        "      # Automatically generated from [m.yaml]\n      # index: [0]\n"
        "      C(m=1),\n      # END\n  ]\n"
    )


def test_a_snippet_ending_in_a_comma_is_warned_about(
    git_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reference writes ',,' (a syntax error in a Python list): the bytes stay
    the reference's, and one warning says why."""
    (git_repo / REG).write_text(
        "tables:\n  - {name: t, manifest: m.yaml, snippet: s.snippet, target: t.py,\n"
        "     begin_marker: BEGIN, end_marker: END, language: python}\n"
    )
    (git_repo / "m.yaml").write_text("params:\n- {M: 1}\n")
    (git_repo / "s.snippet").write_text("C(m=[@M]),\n\n")
    (git_repo / "t.py").write_text("X = [\n    # BEGIN\n    # END\n]\n")
    code, _, err = run_codegen([], capsys)
    assert code == 0
    assert err == (
        "s.snippet:1: warning: the snippet ends with ','; every entry is followed by "
        "one already, so the region holds ',,' (remove it from the snippet)\n"
    )
    assert "        C(m=1),,\n" in (git_repo / "t.py").read_text()


def test_a_formatter_that_prints_without_end_is_stopped(
    formatted_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``yes`` never stops printing: past the output limit the run ends, one line."""
    lay_out(formatted_repo, {**STDIN_FORMATS, "cc_format": '["yes"]'})
    _, _, err = run_codegen(["--check"], capsys)
    assert err.startswith("t.cc: error: the formatter (yes) printed more than "), err
    assert err.endswith(f" bytes; it is the 'format' of table 'cc' in {REG}\n")
    assert err.count("\n") == 1
