"""Line numbers as git and editors count them, and output that any locale can show.

- A region is found where the reference splits lines (``str.splitlines``: a form
  feed, NEL or U+2028 ends one), but every line *number* printed counts LFs only, as
  ``git``, ``grep -n`` and editors do: the GitHub annotation and the JSON ``line`` of
  a stale region, and the lines a marker error names (before, a form feed and a
  U+2028 above a region made stale line 8 ``line=10``). ``grep -n`` is the oracle.
- An output stream whose encoding cannot show a character (a Latin-1 or ASCII
  locale, ``PYTHONIOENCODING=latin-1``) gets its escape (``\\u65e5``), never exit 3
  (before: ``internal error: UnicodeEncodeError``, exit 3), in every format; the JSON
  document stays valid JSON holding the same text.
"""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

import pytest
from support import PY, SCRIPT, SMALL

# Above the region: a form feed and a U+2028 inside lines (each a line break to
# str.splitlines, none to git), and a NEL.
PAGED = "# page one\fstill line one\n# two\u2028still two\x85and still\n"
LOCALES = {
    "latin-1": {"PYTHONIOENCODING": "latin-1"},
    "C, no UTF-8 mode": {"LC_ALL": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"},
    "ascii, strict": {"PYTHONIOENCODING": "ascii:strict"},
}


def grep_n(pattern: str, path: str) -> list[int]:
    """The numbers ``grep -n`` gives the lines holding ``pattern``."""
    found = subprocess.run(["grep", "-n", "-F", "-a", pattern, path],
                           capture_output=True, text=True, check=True)  # fmt: skip
    return [int(line.partition(":")[0]) for line in found.stdout.splitlines()]


def tool(
    *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SCRIPT, *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})  # fmt: skip


def paged_and_stale(repo: Any) -> int:
    """The small-py target with ``PAGED`` above its region, made stale; the line
    ``grep -n`` gives the line that changes."""
    target = repo.path(PY)
    target.write_bytes(PAGED.encode() + target.read_bytes())
    repo.edit(SMALL, "M: 64", "M: 128")
    [line] = grep_n("m=64", PY)
    return line


def test_a_stale_region_is_annotated_on_the_line_git_numbers(codegen_repo: Any) -> None:
    line = paged_and_stale(codegen_repo)
    assert line == 10  # str.splitlines would make it 13
    github = tool("--check", "--format", "github")
    assert (github.returncode, github.stderr) == (1, "")
    assert github.stdout.startswith(f"::error file={PY},line={line},title=")
    document = json.loads(tool("--check", "--format", "json").stdout)
    [row] = [t for t in document["tables"] if t["name"] == "small-py"]
    assert (row["status"], row["line"]) == ("stale", line)
    text = tool("--check").stdout  # the diff's own numbers: git's
    assert f"\n@@ -{line - 3},6 +{line - 3},6 @@ # index: [1] M=128\n" in text


def test_a_marker_error_names_the_lines_git_numbers(codegen_repo: Any) -> None:
    target = codegen_repo.path(PY)
    target.write_bytes(target.read_bytes() + PAGED.encode() + b"# BEGIN-SMALL\n")
    first, second = grep_n("BEGIN-SMALL", PY)
    for fmt in ("text", "json", "github"):
        done = tool("--check", "--format", fmt)
        assert done.returncode == 2
        assert done.stderr == (
            f"{PY}:{second}: error: begin marker 'BEGIN-SMALL' occurs 2 times "
            f"(lines {first} and {second}); it must occur once\n"
        )
    errors = json.loads(tool("--check", "--format", "json").stdout)["errors"]
    assert [e["line"] for e in errors] == [second]
    github = tool("--check", "--format", "github").stdout
    assert f"::error file={PY},line={second},title=tuning-codegen error::" in github


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("fmt", ["text", "github", "json"])
def test_text_the_locale_cannot_show_is_escaped(
    codegen_repo: Any, locale: str, fmt: str
) -> None:
    codegen_repo.edit(SMALL, "EXTRA: '\"wide\"'", "EXTRA: '\"日本😀\"'")
    done = tool("--check", "--format", fmt, env=LOCALES[locale])
    assert (done.returncode, done.stderr) == (1, "")
    if fmt == "json":
        [record] = json.loads(done.stdout)["files"]
        assert '+    Config(m=64, fast=False, extra="日本😀"),\n' in record["diff"]
        return
    assert (
        '+    Config(m=64, fast=False, extra="\\u65e5\\u672c\\U0001f600"),\n'
        in done.stdout
    )
    assert done.stdout.isascii()
