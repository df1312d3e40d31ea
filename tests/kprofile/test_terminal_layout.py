"""kprofile on a real terminal (a pseudo-terminal of a set width): tables that fit
without breaking a cell, colour as asked, a blank line between sections."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from support import MANIFEST, RESULTS, in_terminal, run

from kprofile.render.cells import cell

pytestmark = pytest.mark.slow  # every table at every terminal width (a matrix)

SGR = re.compile(r"\x1b\[[0-9;]*m")
PARAMS = {
    "BM": (64, 128, 256),
    "BN": (64, 128),
    "BK": (64,),
    "STAGES": (4, 5),
    "CLUSTER_M": (1, 2),
    "CLUSTER_N": (1,),
    "SWAP_AB": (False,),
    "SCHEDULE": ("ws_pingpong", "default"),
    "RASTER": ("along_m",),
    "SPLIT_K": (1,),
}


def _rows(m: int) -> list[dict[str, object]]:
    """Every combination of PARAMS for shape ``m``, with a made-up time."""
    combos: list[dict[str, object]] = [{}]
    for name, values in PARAMS.items():
        combos = [{**c, name: v} for c in combos for v in values]
    return [
        {"M": m, "N": 4096, "K": 4096, **c, "met (ms)": 1.0 + 0.01 * i + m / 1e4}
        for i, c in enumerate(combos)
    ]


@pytest.fixture
def sweep(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kb_write: Callable[..., Path]
) -> Path:
    """Three shapes of a ten-parameter sweep, and the shipped curated manifest."""
    for m in (8, 256, 4096):
        kb_write(f"M{m}.pkl", _rows(m))
    shutil.copyfile(MANIFEST, tmp_path / "table.yaml")
    monkeypatch.chdir(tmp_path)
    return tmp_path


COMMANDS = [
    ["M8.pkl", "--head", "5"],
    ["M8.pkl", "--within", "0.05", "-v"],
    ["M8.pkl", "M256.pkl", "M4096.pkl", "--cover", "0.05"],
    ["M8.pkl", "M256.pkl", "M4096.pkl", "--importance"],
    [*(str(RESULTS / "run2" / f"{s}.pkl") for s in ("M8_N7168_K2048",)),
     "--update", "table.yaml", "--dry-run"],
]  # fmt: skip


def _cells(document: dict[str, object]) -> set[str]:
    """Every column name and cell of every table with rows, as the text renderers
    show them."""
    shown: set[str] = set()
    for section in document["sections"]:  # type: ignore[attr-defined]
        if section.get("rows"):  # an empty table may show just "(no entries)"
            shown.update(section["columns"])
            shown.update(cell(v) for row in section["rows"] for v in row.values())
    return shown


def _table_lines(lines: list[str]) -> list[str]:
    """The lines of every table: its header, its rule and its rows."""
    found = []
    for i, line in enumerate(lines):
        if line and set(line) == {"━"}:
            end = next((j for j in range(i, len(lines)) if not lines[j].strip()), None)
            found += lines[i - 1 : end]
    return found


@pytest.mark.parametrize("columns", [100, 80])
@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: a[-1] if a else "")
def test_no_cell_is_broken_and_every_table_fits(
    sweep: Path, capsys: pytest.CaptureFixture[str], columns: int, args: list[str]
) -> None:
    code, out = in_terminal(["kprofile", *args], columns=columns, cwd=sweep)
    assert code == 0, out
    text = SGR.sub("", out)
    lines = text.splitlines()
    document = json.loads(_json(capsys, args))
    missing = sorted(c for c in _cells(document) if c not in text)
    assert missing == [], text
    assert [line for line in _table_lines(lines) if len(line.rstrip()) > columns] == []


def _json(capsys: pytest.CaptureFixture[str], args: list[str]) -> str:
    code, out, _ = run(capsys, *args, "--format", "json")
    assert code == 0
    return out


def test_ten_parameters_at_120_columns_keep_every_word(sweep: Path) -> None:
    """The report's case: ``ws_pingpong`` became ``ws_pingp``/``ong``."""
    code, out = in_terminal(["kprofile", "M8.pkl", "-r"], columns=120, cwd=sweep)
    text = SGR.sub("", out)
    assert code == 0 and "ws_pingpong" in text and "CLUSTER_M" in text
    assert "ws_pingp\n" not in text and "CLUSTER_\n" not in text


def test_a_narrow_terminal_gets_one_record_per_row(sweep: Path) -> None:
    code, out = in_terminal(
        ["kprofile", "M8.pkl", "--head", "2"], columns=30, cwd=sweep
    )
    text = SGR.sub("", out)
    assert code == 0
    assert "  SCHEDULE   ws_pingpong\n" in text and "  CLUSTER_M  1\n" in text


def test_best_spec_is_followed_by_a_blank_line(sweep: Path) -> None:
    code, out = in_terminal(["kprofile", "M8.pkl", "--head", "2"], cwd=sweep)
    lines = SGR.sub("", out).splitlines()
    spec = next(i for i, line in enumerate(lines) if line.startswith("best spec: "))
    assert code == 0 and lines[spec + 1] == "" and "best 2" in lines[spec + 2]


@pytest.mark.parametrize(
    ("args", "env", "coloured"),
    [
        ([], {}, True),
        ([], {"NO_COLOR": "1"}, False),
        ([], {"NO_COLOR": ""}, True),  # set but empty: no-color.org says ignore it
        (["--color", "never"], {}, False),
        (["--color", "always"], {"NO_COLOR": "1"}, True),
    ],
)
def test_colour_follows_color_and_no_color(
    sweep: Path, args: list[str], env: dict[str, str], coloured: bool
) -> None:
    command = ["kprofile", str(RESULTS / "run2" / "M8_N7168_K2048.pkl"), "--update",
               "table.yaml", "--dry-run", *args]  # fmt: skip
    code, out = in_terminal(command, env=env, cwd=sweep)
    assert code == 0 and "+    SWAP_AB: true" in SGR.sub("", out)
    assert bool(SGR.search(out)) is coloured
    assert ("\x1b[32m+    SWAP_AB: true" in out) is coloured  # the diff, green


def test_color_always_gives_rich_tables_in_a_pipe(
    sweep: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "M8.pkl", "--color", "always")
    assert code == 0 and "\x1b[" in out and "━━━" in out
    code, out, _ = run(capsys, "M8.pkl")
    assert code == 0 and "\x1b[" not in out and out.startswith("== M8.pkl ==\n")
