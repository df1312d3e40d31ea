"""``--report FILE.html`` as a file: one page holding everything (no reference to
anything elsewhere), every value from an input escaped, plain semantic tables, a
contents list by shape, and a strict Content-Security-Policy; bad paths refused."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from support import run, snapshot

HOSTILE = "<script>alert(1)</script>"


def test_every_input_value_is_escaped_and_nothing_loads_from_elsewhere(
    kb_write: Callable[..., Path], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    rows = [
        {"M": m, "TAG": tag, "BM": bm, "met (ms)": 1.0 + bm / 64 + m / 10}
        for m in (1, 2)
        for tag in (HOSTILE, "<b>x</b>")
        for bm in (32, 64)
    ]
    kb_write("run.pkl", rows)
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "run.pkl", "-p", "M", "-r", "--report", "r.html")
    assert code == 0, err
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert HOSTILE not in page and "<b>x</b>" not in page
    assert html.escape(HOSTILE) in page
    assert page.count("<script>") == 1  # the page's own, allowed by its hash
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)
    assert policy is not None
    assert policy.group(1).startswith("default-src 'none'; img-src data:;")
    assert "'unsafe-inline'" not in policy.group(1)
    links = re.findall(r'(?:src|href)="([^"]*)"', page)
    assert links and all(a.startswith(("data:image/png;base64,", "#")) for a in links)
    assert '<th scope="col"' in page and "<caption>" in page
    contents = page[page.index("<nav") : page.index("</nav>")]
    for shape in ("M=1", "M=2"):
        assert f">{shape}</a>" in contents


def test_a_report_that_is_no_html_file_is_refused_and_nothing_is_written(
    kb_write: Callable[..., Path], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    kb_write("run.pkl", [{"M": 1, "BM": 32, "met (ms)": 1.0}])
    monkeypatch.chdir(tmp_path)
    (tmp_path / "taken").write_text("a file\n")
    before = snapshot(tmp_path)
    assert run(capsys, "run.pkl", "--report", "taken/r.html") == (
        2, "", "taken: error: --report: cannot create: File exists\n"
    )  # fmt: skip
    assert run(capsys, "run.pkl", "--report", "r.htm") == (
        2, "", "kprofile: error: --report: expected a file name ending in .html, "
        "got 'r.htm'\n",
    )  # fmt: skip
    assert snapshot(tmp_path) == before
