"""An empty path for a file or folder kprofile writes is refused with one line, exit 2,
and nothing written (``-o ''`` used to exit 0 writing a hidden ``.yaml``, ``--out-dir
''`` to write into the current folder)."""

from __future__ import annotations

import os
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


def test_o_dev_null_is_refused_and_creates_nothing(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: -o /dev/null read /dev/null as a stem and created /dev/null.yaml."""
    existed = Path("/dev/null.yaml").exists()
    try:
        assert run(capsys, RUN, "-o", "/dev/null") == (
            2,
            "",
            "/dev/null: error: -o needs a file name, and this is a character device "
            "(-o PATH writes the manifest PATH.yaml)\n",
        )
        assert Path("/dev/null.yaml").exists() == existed
    finally:
        if not existed:
            Path("/dev/null.yaml").unlink(missing_ok=True)


@pytest.mark.parametrize(
    ("make", "kind"),
    [("fifo", "a FIFO"), ("folder", "a directory"), ("fifo.yaml", "a FIFO")],
)
def test_o_at_a_path_that_is_no_regular_file_is_refused(
    demo: Path, capsys: pytest.CaptureFixture[str], make: str, kind: str
) -> None:
    """A real FIFO (nothing blocks) and a real folder, as PATH or as PATH.yaml."""
    if make.startswith("fifo"):
        os.mkfifo(demo / make)
    else:
        (demo / make).mkdir()
    before = snapshot(demo)
    given = make.removesuffix(".yaml")
    assert run(capsys, RUN, "-o", given) == (
        2,
        "",
        f"{make}: error: -o needs a file name, and this is {kind} (-o PATH writes "
        "the manifest PATH.yaml)\n",
    )
    assert snapshot(demo) == before
    assert sorted(p.name for p in demo.iterdir() if p.name.startswith(given)) == [make]
