"""A result file cannot drive the terminal: every string that came from an input
(values, parameter and column names, paths, kbench metadata) reaches stdout and stderr
with its control characters escaped, in every mode, view and format, plain and rich.

The planted sequences clear the screen, retitle the window, move the cursor up and
erase a line, reverse the text's direction, and add a C1 CSI and DEL. JSON escapes
them as JSON does (``\\u001b``, ``\\u202e``), so a program reading it gets the values
back exactly.
"""

from __future__ import annotations

import html
import json
import pickle
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cmarkgfm import github_flavored_markdown_to_html as markdown_html
from support import in_terminal, run

from tuning_codegen.errors import CONTROLS

pytestmark = (
    pytest.mark.slow
)  # planted sequences through every view and format (a matrix)

PLANT = "\x1b[2J|\x1b]0;title\x07|\x1b[1A\x1b[2K|\u202e|\x9b|\x7f"
SHOWN = r"\x1b[2J|\x1b]0;title\x07|\x1b[1A\x1b[2K|\u202e|\x9b|\x7f"
SGR = re.compile(r"\x1b\[[0-9;]*m")  # rich's own styles, with --color always


def _write(path: Path, slower: float = 0.0) -> Path:
    """A kbench pickle whose spec values, a parameter name, a column name and its
    kbench name carry the planted sequence."""
    rows = [
        (m, bm, schedule)
        for m in (8, 64)
        for bm in (64, 128)
        for schedule in (f"a{PLANT}", "b")
    ]
    frame = pd.DataFrame(
        {
            "mesh_idx": np.arange(len(rows)),
            "name": "k",
            "met (ms)": [
                1.0 + bm / 100 + (s == "b") * 0.01 + m / 1000 + slower
                for m, bm, s in rows
            ],
            "iters": 10,
            f"note{PLANT}": f"v{PLANT}",
            "spec": [f"k/M={m}/BM={bm}/SCHED{PLANT}={s}" for m, bm, s in rows],
            "kbench_filter": "",
        }
    )
    payload = {"merged_df": frame, "build_df": frame[["mesh_idx"]], "name": "k"}
    path.write_bytes(pickle.dumps(payload))
    return path


@pytest.fixture
def planted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / f"new{PLANT}.pkl")
    _write(tmp_path / f"base{PLANT}.pkl", slower=0.5)
    (tmp_path / "out").mkdir()
    manifest = 'params:\n- {M: 8, BM: 64, "SCHED\\e[2J": "x\\e]0;t\\a\u202e"}\n'
    (tmp_path / f"table{PLANT}.yaml").write_text(manifest, encoding="utf-8")
    (tmp_path / "other.yaml").write_text("params:\n- {M: 8, Z: 1}\n")
    return tmp_path


NEW, BASE, TABLE = f"new{PLANT}.pkl", f"base{PLANT}.pkl", f"table{PLANT}.yaml"
RUNS = {
    "views": [NEW, "-r", "--head", "2", "--tail", "2", "-t", "0.5", "--within",
              "0.1", "-v", "-p", "M"],
    "-o": [NEW, "-o", f"out/best{PLANT}"],
    "--update": [NEW, "-p", "M", "--update", TABLE, "--dry-run"],
    "--diff": ["-d", BASE, NEW, "--out-dir", "out"],
    "--merge": ["--merge", TABLE, "other.yaml", "-p", "M"],
    "--correlation": ["-c", NEW, "--out-dir", "out"],
    "--cover": [NEW, "--cover", "0.1"],
    "--importance": [NEW, "--importance", "--plot", "out"],
    "--ranges": [NEW, "--ranges", "M"],
    "skipped input": [NEW, f"broken{PLANT}.pkl"],
    "usage error": [NEW, "-m", f"x{PLANT}"],
}  # fmt: skip


def _raw(text: str) -> set[str]:
    return set(text) & CONTROLS


@pytest.mark.parametrize("style", ["plain", "rich", "markdown"])
@pytest.mark.parametrize("mode", list(RUNS))
def test_text_output_shows_controls_escaped(
    planted: Path, capsys: pytest.CaptureFixture[str], mode: str, style: str
) -> None:
    if mode == "skipped input":
        Path(f"broken{PLANT}.pkl").write_bytes(b"not a pickle")
    extra = {"plain": [], "rich": ["--color", "always"], "markdown": ["--format",
             "markdown"]}[style]  # fmt: skip
    code, out, err = run(capsys, *RUNS[mode], *extra)
    out = SGR.sub("", out)
    assert _raw(out) == set() and _raw(err) == set()
    assert code == (2 if mode == "usage error" else 0), err
    if style == "markdown":  # what a reader sees: the text GitHub renders
        out = html.unescape(re.sub(r"<[^>]*>", "", markdown_html(out)))
    shown = out + err
    assert SHOWN in shown or r"\x1b[2J" in shown, (out, err)


@pytest.mark.parametrize("mode", [m for m in RUNS if m != "usage error"])
def test_json_escapes_controls_and_keeps_the_values(
    planted: Path, capsys: pytest.CaptureFixture[str], mode: str
) -> None:
    if mode == "skipped input":
        Path(f"broken{PLANT}.pkl").write_bytes(b"not a pickle")
    code, out, err = run(capsys, *RUNS[mode], "--format", "json")
    assert code == 0 and _raw(out) == set() and _raw(err) == set()
    assert "\\u001b[2J" in out and "\\u202e" in out
    assert any(PLANT in text for text in _strings(json.loads(out)))


def _strings(value: object) -> list[str]:
    """Every string in a JSON document, keys included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *_strings(v))]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def test_a_real_terminal_gets_no_planted_sequence(planted: Path) -> None:
    """Through a pseudo-terminal (rich tables, colour on, -q): the only escape
    sequences are rich's own styles."""
    args = ["kprofile", NEW, "--within", "0.1", "-v", "-q"]
    code, out = in_terminal(args, cwd=planted)
    assert code == 0 and _raw(SGR.sub("", out)) == set()
    assert r"SCHED\x1b[2J" in out


def test_progress_labels_show_file_names_escaped(planted: Path) -> None:
    """The progress display names the file it reads: escaped too. (Its own cursor
    moves and line erasing are rich's; none of these are.)"""
    code, out = in_terminal(["kprofile", NEW, "--cover", "0.1"], cwd=planted)
    assert code == 0 and r"reading new\x1b[2J|\x1b]0;title\x07" in out
    for raw in ("\x1b[2J", "\x1b]0;", "\x07", "\u202e", "\x9b", "\x7f"):
        assert raw not in out
