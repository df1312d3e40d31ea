"""The ``-d`` CSVs are safe to open in a spreadsheet: text a spreadsheet would run as a
formula (OWASP's CSV-injection list) gets a leading ``'``; numbers stay numbers.

Planted through the real command: kbench pickles whose spec strings carry the values
and parameter names, compared with ``kprofile -d``, the CSVs read back with the csv
module."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from pathlib import Path

import pytest
from support import run

from kprofile.sinks.files import guard_cell

# (cell as the data has it, cell as the CSV writes it)
CELLS = (
    ("=1+1", "'=1+1"),
    ('=HYPERLINK("evil.example","y")', '\'=HYPERLINK("evil.example","y")'),
    ("@SUM(A1:A9)", "'@SUM(A1:A9)"),
    ("+cmd|' -C calc'!A0", "'+cmd|' -C calc'!A0"),  # a spec cannot hold '/'
    ("-2+3", "'-2+3"),
    ("-inf", "'-inf"),
    ("-", "'-"),
    ("  =1+1", "'  =1+1"),
    ("\t=1", "'\t=1"),
    ("\r=1", "'\r=1"),
    ("\n=1", "'\n=1"),
    ("\u3000=1", "'\u3000=1"),  # an ideographic space, then a formula
    ("\uff1d1+1", "'\uff1d1+1"),  # full-width equals sign
    ("-1.5", "-1.5"),  # a text cell spelling a number: read as that number
    ("+2", "+2"),
    ("-3e-4", "-3e-4"),
    ("1-2", "1-2"),
    ("a=b", "a=b"),
    ("", ""),
    (" ", " "),
)


@pytest.mark.parametrize(("cell", "written"), CELLS)
def test_guard_cell(cell: str, written: str) -> None:
    assert guard_cell(cell) == written


@pytest.mark.parametrize("number", [-1.5, -1, 0, 2.5e-300, -1e308, True, None])
def test_numbers_and_missing_values_are_never_guarded(number: object) -> None:
    assert guard_cell(number) is number


def _spec_literal(text: str) -> str:
    """``text`` as a spec value kbench would carry: a Python string literal (so a
    leading tab or a ``-1.5`` that must stay text survive the spec's parsing)."""
    return repr(text)


def test_diff_csvs_guard_planted_values_and_names(
    kb_write: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    texts = [cell for cell, _ in CELLS if cell.strip()]
    rows = [
        {
            "M": 256,
            "@NAME": i,  # a parameter name a spreadsheet would run
            "-X": -i - 0.5,  # negative numbers in a numeric column
            "VALUE": _spec_literal(text),
            "met (ms)": 1.0 + i,
        }
        for i, text in enumerate(texts)
    ]
    base = kb_write("base.pkl", rows)
    new = kb_write("new.pkl", [{**r, "met (ms)": r["met (ms)"] * 2} for r in rows])
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "-d", str(base), str(new), "--out-dir", str(out))
    assert (code, err) == (0, "")
    (csv_path,) = out.iterdir()
    raw = csv_path.read_bytes().decode()
    table = list(csv.reader(io.StringIO(raw, newline="")))
    header, body = table[0], table[1:]
    assert header == [
        "'@NAME",
        "'-X",
        "VALUE",
        "met (ms) [base]",
        "met (ms) [new]",
        "ratio [new]",
    ]
    expected = dict(CELLS)
    assert [r[2] for r in body] == [expected[t] for t in texts]
    assert [r[0] for r in body] == [str(i) for i in range(len(texts))]
    assert [r[1] for r in body] == [str(-i - 0.5) for i in range(len(texts))]
    assert len(body) == len(texts)  # a carriage return inside a cell is quoted
    for row in [header, *body]:  # no cell starts a formula: numbers only
        for cell in row:
            if cell[:1] in "\t\r" or cell.lstrip(" ")[:1] in "=+-@\uff1d":
                float(cell)


def test_a_field_with_a_carriage_return_is_quoted(
    kb_write: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows = [{"M": 1, "S": _spec_literal(t), "met (ms)": 1.0} for t in ("a\rb", 'q"')]
    base, new = kb_write("a.pkl", rows), kb_write("b.pkl", rows)
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "-d", str(base), str(new), "--out-dir", "out")[0] == 0
    written = Path("out/M=1.csv").read_bytes()
    assert written.split(b"\n")[1:3] == [b'"a\rb",1,1,1', b'"q""",1,1,1']
