"""An empty path for a file or folder kprofile writes is refused with one line, exit 2,
and nothing written (``-o ''`` used to exit 0 writing a hidden ``.yaml``, ``--out-dir
''`` to write into the current folder)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import run, snapshot

RUN = "run1/M8_N7168_K2048.pkl"
CASES = [
    ([RUN, "-o", "{path}"], "--output"),
    ([RUN, "--update", "{path}"], "--update"),
    (["-d", RUN, "run2/M8_N7168_K2048.pkl", "--out-dir", "{path}"], "--out-dir"),
    (["-c", RUN, "--out-dir", "{path}"], "--out-dir"),
    (["--importance", RUN, "--plot", "{path}"], "--plot"),
]


@pytest.mark.parametrize("path", ["", " ", "\t"])
@pytest.mark.parametrize(("args", "option"), CASES)
def test_an_empty_path_is_refused(
    demo: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    option: str,
    path: str,
) -> None:
    before = snapshot(demo)
    given = [a.format(path=path) for a in args]
    assert run(capsys, *given) == (
        2,
        "",
        f"kprofile: error: {option}: expected a path, got {path!r}\n",
    )
    assert snapshot(demo) == before
