"""--format markdown as GitHub renders it: run through cmark-gfm (GitHub's own parser,
with its table extension), every table has the cells the JSON output holds, each with
the text the plain output shows; no value becomes emphasis, math, HTML or a link;
every ``$`` of a spec string sits inside ``<code>``."""

from __future__ import annotations

import json
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from support import FIXTURES, run

from kprofile.render.cells import cell

REAL = FIXTURES / "realkbench"
ALLOWED = {"h3", "p", "ul", "li", "strong", "code", "pre", "table", "thead",
           "tbody", "tr", "th", "td"}  # fmt: skip


class Rendered(HTMLParser):
    """The tags of a rendered document, its tables (rows of cell texts) and the text
    outside ``<code>``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.tables: list[list[list[str]]] = []
        self.outside_code: list[str] = []
        self._code = 0
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        self.tags.append(tag)
        if tag == "code":
            self._code += 1
        elif tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "code":
            self._code -= 1
        elif tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        if not self._code:
            self.outside_code.append(data)


def rendered(markdown: str) -> Rendered:
    html = cmarkgfm.github_flavored_markdown_to_html(
        markdown, options=Options.CMARK_OPT_UNSAFE
    )
    parser = Rendered()
    parser.feed(html)
    return parser


@pytest.fixture
def real(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Path:
    """The two real runs as the working directory, and run A's bests as best.yaml
    (for --score and --update)."""
    shutil.copytree(REAL, tmp_path / "real")
    monkeypatch.chdir(tmp_path / "real")
    assert run(capsys, "-q", "A/out.pkl", "-p", "M,N,K", "-o", "best")[0] == 0
    return tmp_path / "real"


RUNS = {
    "summary": ["A/out.pkl"],
    "views": ["A/out.csv", "-p", "M,N,K", "-t", "0.05", "--head", "3", "-r"],
    "importance": ["A/out.pkl", "-p", "M,N,K", "--importance"],
    "cover": ["A/out.pkl", "-p", "M,N,K", "--cover", "0.1"],
    "diff": ["-d", "A/out.pkl", "B/out.pkl", "-p", "M,N,K"],
    "score": ["--score", "best.yaml", "B/out.pkl", "-p", "M,N,K", "-v"],
    "update": ["B/out.csv", "-p", "M,N,K", "--update", "best.yaml", "--dry-run"],
}


def _expected_tables(document: dict[str, Any]) -> list[list[list[str]]]:
    """Each table of the JSON output as rows of cell texts, header first."""
    tables = []
    for section in document["sections"]:
        if section.get("rows"):
            columns = section["columns"]
            rows = [[cell(row[c]) for c in columns] for row in section["rows"]]
            tables.append([columns, *rows])
    return tables


@pytest.mark.parametrize("mode", sorted(RUNS))
def test_markdown_renders_on_github_as_the_tables_hold(
    real: Path, capsys: pytest.CaptureFixture[str], mode: str
) -> None:
    code, markdown, _ = run(capsys, *RUNS[mode], "--format", "markdown")
    assert code == 0
    code, document, _ = run(capsys, *RUNS[mode], "--format", "json")
    assert code == 0
    page = rendered(markdown)
    assert set(page.tags) <= ALLOWED, set(page.tags) - ALLOWED
    assert page.tables == _expected_tables(json.loads(document))
    assert page.tables  # every run shows at least one table
    assert "$" not in "".join(page.outside_code)
    if mode in ("summary", "views"):  # the best spec string is there, in code
        assert "`np_blocked_matmul/$M=" in markdown


HOSTILE = {
    "pipe": ("a|b", "a|b"),
    "emphasis": ("*x* and _y_", "*x* and _y_"),
    "html": ("<b>z<i>", "<b>z<i>"),
    "math": ("$M$ and $N$", "$M$ and $N$"),
    "backticks": ("`q` and ``r``", "`q` and ``r``"),
    "edge backtick": ("`", "`"),
    "newline": ("two\nlines", "two\\nlines"),
    "link": ("[l](x) <x@y.z>", "[l](x) <x@y.z>"),
    "entity": ("&amp; &lt;", "&amp; &lt;"),
}


@pytest.mark.parametrize("suffix", [".pkl", ".csv"])
def test_values_markdown_acts_on_render_as_written(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    kb_write: Any,
    suffix: str,
) -> None:
    """A string parameter holding ``|``, ``*``, ``_``, ``<``, ``$``, backticks, a
    line break, a link and an entity: each cell of the rendered table is the value
    as the text output shows it (the line break as ``\\n``), one cell per column."""
    rows = [
        {"M": 64, "SCHEDULE": value, "BM": i, "met (ms)": 1.0 + i}
        for i, (value, _) in enumerate(HOSTILE.values())
    ]
    monkeypatch.chdir(tmp_path)
    kb_write(f"hostile{suffix}", rows)
    code, markdown, err = run(
        capsys, f"hostile{suffix}", "--head", str(len(rows)), "--format", "markdown"
    )
    assert code == 0, err
    page = rendered(markdown)
    assert set(page.tags) <= ALLOWED, set(page.tags) - ALLOWED
    (head,) = [t for t in page.tables if "SCHEDULE" in t[0]]
    column = head[0].index("SCHEDULE")
    assert all(len(row) == len(head[0]) for row in head)
    assert [row[column] for row in head[1:]] == [shown for _, shown in HOSTILE.values()]
    assert "$" not in "".join(page.outside_code)
