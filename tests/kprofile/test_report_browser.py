"""``--report FILE.html`` opened as a reader opens it: in a real headless Chromium
(Debian's ``chromium``, driven by Playwright), from a ``file://`` URL. The page
renders (a screenshot that is not blank), logs no error, asks for nothing but itself
(every request is seen), every image decodes, a column heading sorts its table and
the box above filters it; with scripts off it still shows every table and image.

Where no Chromium is installed the tests say so and skip; under CI (``CI`` set, as
``.ci/run`` sets it) a missing browser is a failure.
"""

from __future__ import annotations

import io
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import FIXTURES

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
    "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]  # fmt: skip


def chromium() -> str:
    """The system's Chromium; skip (fail under CI) where there is none."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    missing = None if found else "no chromium on PATH (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing = "no playwright (pip install -e '.[test]')"
    if missing is None:
        assert found is not None
        return found
    if os.environ.get("CI"):
        pytest.fail(f"the browser test needs a browser under CI: {missing}")
    pytest.skip(f"the browser test needs a browser: {missing}")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the module (Playwright gives it a fresh profile
    in a temporary folder, removed when it closes)."""
    executable = chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_FLAGS
        )
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of two genuine kbench runs, every entry of each shape listed
    (made once: the tests only read it)."""
    from kprofile.cli import main

    out = tmp_path_factory.mktemp("report") / "run.html"
    real = FIXTURES / "realkbench"
    code = main([
        str(real / "A" / "out.pkl"), str(real / "B" / "out.pkl"), "-p", "M,N,K",
        "-r", "--report", str(out), "-q",
    ])  # fmt: skip
    assert code == 0
    return out


def _open(browser: Any, page_url: str) -> tuple[Any, list[str], list[str]]:
    """A page at ``page_url``; the requests it made and the errors it logged."""
    page = browser.new_page()
    requests: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else 0)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(page_url, wait_until="load")
    return page, requests, errors


def _variance(png: bytes) -> float:
    import matplotlib.image

    pixels = matplotlib.image.imread(io.BytesIO(png), format="png")
    return float(pixels[..., :3].var())


def test_the_report_renders_offline_with_every_image_and_no_error(
    browser: Any, report: Path
) -> None:
    url = report.as_uri()
    page, requests, errors = _open(browser, url)
    assert [r for r in requests if not r.startswith("data:")] == [url]
    assert errors == []
    images = page.evaluate(
        "[...document.images].map(i => [i.complete, i.naturalWidth, i.alt])"
    )
    # top and heatmap per shape, landscape, runs, the per-shape view's runner-ups
    assert len(images) == 3 * 2 + 2 + 1
    assert all(done and width >= 900 and alt for done, width, alt in images), images
    shot = page.screenshot(full_page=False)
    assert _variance(shot) > 0.01  # not blank
    page.close()


def test_a_heading_sorts_its_table_and_the_box_filters_it(
    browser: Any, report: Path
) -> None:
    page, _, errors = _open(browser, report.as_uri())
    table = page.locator("table.long").first
    column = table.locator("thead th").all_inner_texts().index("met (s)")
    heading = table.locator("thead th").nth(column).locator("button")

    def shown() -> list[float]:
        cells = table.locator(f"tbody tr:not([hidden]) td:nth-child({column + 1})")
        return [float(t) for t in cells.all_inner_texts() if t != "-"]

    heading.click()
    assert shown() == sorted(shown()) and len(shown()) > 10
    heading.click()
    assert shown() == sorted(shown(), reverse=True)
    every = table.locator("tbody tr").count()
    word = table.locator(f"tbody tr td:nth-child({column + 1})").first.inner_text()
    page.locator("input[type=search]").first.fill(word)
    rows = table.locator("tbody tr:not([hidden])").all_inner_texts()
    assert 0 < len(rows) < every
    assert all(re.search(rf"\b{re.escape(word)}\b", r) for r in rows)
    assert errors == []
    page.close()


def test_with_scripts_off_every_table_and_image_is_there(
    browser: Any, report: Path
) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(report.as_uri(), wait_until="load")
    assert page.locator("table").count() >= 3
    assert page.locator("th button").count() == 0  # the script did not run
    assert page.evaluate("[...document.images].every(i => i.naturalWidth > 0)")
    assert _variance(page.screenshot()) > 0.01
    context.close()
