"""Progress on stderr: rich's display when stderr is a terminal, never in a pipe or
with -q; the report on stdout is the same either way."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from support import BIN, RESULTS, in_terminal

pytestmark = pytest.mark.slow  # a real terminal (pty) for the progress display

FILES = [
    str(RESULTS / "run1" / f) for f in ("M8_N7168_K2048.pkl", "M4096_N4096_K4096.pkl")
]
STEPS = ("loading", "reading ", "importance: parameters", "drawing the charts")


def test_a_terminal_shows_each_step(tmp_path: Path) -> None:
    args = ["kprofile", *FILES, "--importance", "--plot", str(tmp_path)]
    code, out = in_terminal(args, cwd=tmp_path)
    assert code == 0
    assert [step for step in STEPS if step not in out] == []
    assert re.search(r"importance: parameters .* \d/6 ", out)  # a count of known size
    assert "\x1b[2K" in out  # the display erases itself when a step ends


def test_quiet_shows_none(tmp_path: Path) -> None:
    args = ["kprofile", *FILES, "--importance", "--plot", str(tmp_path), "-q"]
    code, out = in_terminal(args, cwd=tmp_path)
    assert code == 0 and "importance: which parameters matter" in out
    assert [step for step in STEPS if step in out] == []


def test_a_pipe_gets_no_progress(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(BIN / "kprofile"), *FILES, "--importance", "--color", "always"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and done.stderr == ""
    assert "importance: which parameters matter" in done.stdout


def test_the_solvers_say_what_they_search(tmp_path: Path) -> None:
    """--cover and --budget name their search (and its time limit) while it runs."""
    for mode, step in (
        (["--cover", "0.05"], "cover: searching the smallest table (limit 120 s)"),
        (["--budget", "2"], "budget: searching the best 2 (limit 120 s)"),
    ):
        code, out = in_terminal(["kprofile", *FILES, *mode], cwd=tmp_path)
        assert code == 0 and step in out, out
