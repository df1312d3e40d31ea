"""No input ends in exit 3, in any mode: a value the output's encoding cannot show
(``日本😀`` under a Latin-1 or ASCII locale) is written escaped, as Python escapes it
(JSON: in JSON's own escapes), in every mode and format and on stderr; and a
parameter of 401 digits is handled exactly or refused with one line and exit 2.

The inputs are the two genuine kbench runs of ``fixtures/realkbench`` (``A``, ``B``:
the CSV kbench wrote), each spec string given one more token: ``TAG``, ``日本😀`` on
every other row and ``row`` on the others, or ``X``, a 401-digit integer (on every
other row, or on every row). The files are named ``結果/A日本😀.csv``, so every path
printed holds characters Latin-1 cannot hold too.

The Latin-1 and ASCII streams are real ``io.TextIOWrapper`` streams with strict
errors, as Python makes ``sys.stdout`` under such a locale; the expectation is the
same command's output on a UTF-8 stream, with the escapes undone by hand here.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support import FIXTURES, run

from kprofile.cli import main

REAL = FIXTURES / "realkbench"
WIDE = "日本😀"  # one character Latin-1 lacks, one past U+FFFF
BIG = 10**401 - 1  # 401 digits
FOLDER = "結果"
A, B = f"{FOLDER}/A{WIDE}.csv", f"{FOLDER}/B{WIDE}.csv"
TABLE, OTHER = f"{FOLDER}/table.yaml", f"{FOLDER}/other.yaml"
SHAPES = ((256, 256, 256), (128, 512, 192), (384, 192, 320))

RUNS = {
    "views": [A, "-r", "--head", "2", "--tail", "2", "-t", "0.5", "--within",
              "0.1", "-v", "-p", "M,N,K"],
    "--top-fraction": [A, "--top-fraction", "0.5"],
    "-o": [A, "-p", "M,N,K", "-o", "out/best"],
    "--update": [A, "-p", "M,N,K", "--update", TABLE, "--dry-run"],
    "--diff": ["-d", A, B, "--out-dir", "out"],
    "--merge": ["--merge", TABLE, OTHER, "-p", "M,N,K"],
    "--correlation": ["-c", A, "--out-dir", "out"],
    "--cover": [A, "--cover", "0.1"],
    "--budget": [A, "--budget", "2"],
    "--importance": [A, "--importance"],
    "--ranges": [A, "--ranges", "BK"],
    "--score": ["--score", TABLE, A],
    "--combine": [A, B, "--combine", "median"],
    "skipped input": [A, f"{FOLDER}/broken.pkl"],
    "usage error": [A, "-m", f"x{WIDE}"],
}  # fmt: skip
SLOW = pytest.mark.slow  # the whole matrix: every encoding, variant and chart
CHARTS = {"--correlation"}  # draws its PNG whatever else is asked
FORMATS = {
    "plain": [],
    "markdown": ["--format", "markdown"],
    "json": ["--format", "json"],
}


def _with_token(run_set: str, path: Path, token: Callable[[int], str]) -> None:
    """kbench's CSV of ``run_set`` with ``/NAME=value`` added to each row's spec,
    written back as kbench writes it (QUOTE_NONNUMERIC)."""
    source = (REAL / run_set / "out.csv").read_text(encoding="utf-8")
    rows = list(csv.reader(io.StringIO(source)))
    spec = rows[0].index("spec")
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
    writer.writerow(rows[0])
    for index, row in enumerate(rows[1:]):
        row[spec] += token(index)
        writer.writerow([_number(v) if i in (1, 2, 3, 4) else v
                         for i, v in enumerate(row)])  # fmt: skip
    path.write_text(out.getvalue(), encoding="utf-8")


def _number(text: str) -> float | int:
    return int(text) if text.isdigit() else float(text)


def _table(path: Path, name: str, value: Any) -> None:
    lines = ["params:"]
    for m, n, k in SHAPES:
        lines.append(f"- {{M: {m}, N: {n}, K: {k}, BM: 16, BN: 16, BK: 16, "
                     f"{name}: {json.dumps(value, ensure_ascii=False)}}}")  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _inputs(folder: Path, name: str, value: Callable[[int], Any]) -> None:
    (folder / FOLDER).mkdir()
    (folder / "out").mkdir()
    for run_set in ("A", "B"):
        path = folder / FOLDER / f"{run_set}{WIDE}.csv"
        _with_token(run_set, path, lambda i: f"/{name}={value(i)}")
    _table(folder / TABLE, name, value(1))
    (folder / OTHER).write_text("params:\n- {M: 256, N: 256, K: 256, Z: 1}\n")
    (folder / FOLDER / "broken.pkl").write_bytes(b"not a pickle")


@pytest.fixture
def wide(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    _inputs(tmp_path, "TAG", lambda i: WIDE if i % 2 else "row")
    return tmp_path


def _run_in(
    encoding: str, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> tuple[int, bytes, bytes]:
    """``kprofile ARGS`` with stdout and stderr streams of ``encoding`` (strict)."""
    buffers = io.BytesIO(), io.BytesIO()
    streams = [io.TextIOWrapper(b, encoding=encoding, errors="strict")
               for b in buffers]  # fmt: skip
    with monkeypatch.context() as patch:
        patch.setattr(sys, "stdout", streams[0])
        patch.setattr(sys, "stderr", streams[1])
        code = main(args)
        for stream in streams:
            stream.flush()
    return code, buffers[0].getvalue(), buffers[1].getvalue()


ESCAPE = re.compile(r"\\u([0-9a-f]{4})|\\U([0-9a-f]{8})")


def _unescaped(text: str) -> str:
    """Python's ``\\uXXXX`` and ``\\UXXXXXXXX`` escapes undone."""
    return ESCAPE.sub(lambda m: chr(int(m.group(1) or m.group(2), 16)), text)


@pytest.mark.parametrize("encoding", ["latin-1", pytest.param("ascii", marks=SLOW)])
@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize(
    "mode", [pytest.param(m, marks=SLOW) if m in CHARTS else m for m in RUNS]
)
def test_what_the_encoding_cannot_show_is_escaped(
    wide: Path,
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    fmt: str,
    encoding: str,
) -> None:
    args = [*RUNS[mode], *FORMATS[fmt]]
    code, out, err = _run_in(encoding, monkeypatch, args)
    want_code, want_out, want_err = _run_in("utf-8", monkeypatch, args)
    assert code == want_code == (2 if mode == "usage error" else 0), err
    shown_out, shown_err = out.decode(encoding), err.decode(encoding)
    if fmt == "json" and want_out:
        assert json.loads(shown_out) == json.loads(want_out.decode())
    else:
        assert _unescaped(shown_out) == want_out.decode()
    assert _unescaped(shown_err) == want_err.decode()
    if mode != "--correlation":  # -c shows names and numbers: nothing to escape
        assert any(ord(c) > 0xFF for c in (want_out + want_err).decode())


@pytest.mark.parametrize("mode", ["views", "--cover", "--update", "usage error"])
def test_rich_tables_escape_what_the_encoding_cannot_show(
    wide: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    code, out, err = _run_in("latin-1", monkeypatch, [*RUNS[mode], "--color", "always"])
    assert code == (2 if mode == "usage error" else 0), err
    shown = out.decode("latin-1") + err.decode("latin-1")
    assert r"\u65e5\u672c\U0001f600" in shown or r"\u7d50\u679c" in shown


def _locale(tmp_path: Path) -> dict[str, str]:
    """A genuine Latin-1 locale, compiled into ``tmp_path`` (glibc's localedef)."""
    folder = tmp_path / "locales"
    folder.mkdir()
    subprocess.run(
        ["localedef", "-i", "en_US", "-f", "ISO-8859-1", str(folder / "en_US.L1")],
        check=True,
        capture_output=True,
    )
    return {"LOCPATH": str(folder), "LC_ALL": "en_US.L1"}


ENVIRONMENTS: dict[str, Callable[[Path], dict[str, str]]] = {
    "PYTHONIOENCODING=latin-1": lambda _: {"PYTHONIOENCODING": "latin-1"},
    "LC_ALL=C without UTF-8 mode": lambda _: {"LC_ALL": "C", "PYTHONUTF8": "0"},
    "a Latin-1 locale": _locale,
}
COMMANDS = {
    "-r": [A, "-r"],
    "--format json": [A, "-r", "--format", "json"],
    "--importance": [A, "--importance"],
    "usage error": [A, "-m", f"x{WIDE}"],
}


@pytest.mark.parametrize(
    "command",
    [c if c in ("-r", "--format json") else pytest.param(c, marks=SLOW)
     for c in COMMANDS],
)  # fmt: skip
@pytest.mark.parametrize("environment", list(ENVIRONMENTS))
def test_the_command_under_a_locale_that_cannot_show_the_values(
    wide: Path, environment: str, command: str
) -> None:
    """The real ``kprofile`` process, its streams as Python makes them there."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    env.pop("PYTHONIOENCODING", None)
    env.update(ENVIRONMENTS[environment](wide))
    done = subprocess.run(
        [str(Path(sys.executable).with_name("kprofile")), *COMMANDS[command]],
        cwd=wide,
        env=env,
        capture_output=True,
        check=False,
        timeout=300,
    )
    err = done.stderr.decode("latin-1")
    assert done.returncode == (2 if command == "usage error" else 0), err
    assert "internal error" not in err and "Traceback" not in err
    shown = done.stdout.decode("ascii", "replace") + err
    if command == "usage error":  # the argument as the locale decodes its bytes
        assert err.count("\n") == 1 and err.startswith("kprofile: error: "), err
    elif command == "--format json":
        document = json.loads(done.stdout.decode("latin-1"))  # the locale's bytes
        values = {r.get("TAG") for s in document["sections"]
                  for r in s.get("rows", [])}  # fmt: skip
        assert WIDE in values
    else:
        assert r"\u65e5\u672c\U0001f600" in shown


# ------------------------------------------------------------ integers of any size

VARIANTS: dict[str, Callable[[int], Any]] = {
    "on every other row": lambda i: BIG if i % 2 else 1,
    "on every row": lambda i: BIG,
    "negative, beside a float": lambda i: -BIG if i % 2 else 0.5,
}
BIG_RUNS = {
    **{k: v for k, v in RUNS.items() if k != "usage error"},
    "-p X": [A, "-p", "X"],
    "--ranges X": [A, "--ranges", "X"],
    "--query": [A, "--query", f"X > {BIG - 1}"],
    "--importance -p": [A, "--importance", "-p", "X"],
    "--importance --plot": [A, "--importance", "--plot", "out"],
}


@pytest.mark.parametrize(
    "variant",
    [v if v == "on every other row" else pytest.param(v, marks=SLOW)
     for v in VARIANTS],
)  # fmt: skip
@pytest.mark.parametrize("mode", list(BIG_RUNS))
def test_a_401_digit_parameter_is_exact_or_one_line_and_exit_2(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    mode: str,
    variant: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    _inputs(tmp_path, "X", VARIANTS[variant])
    code, out, err = run(capsys, *BIG_RUNS[mode], "--format", "json")
    assert code in (0, 2), err
    assert "internal error" not in err
    if code == 2:
        errors = [line for line in err.splitlines() if ": error: " in line]
        assert len(errors) == 1 and out == "", err
        return
    values = {r["X"] for s in json.loads(out)["sections"]
              for r in s.get("rows", []) if "X" in r}  # fmt: skip
    exact = {VARIANTS[variant](i) for i in (0, 1)}
    assert values <= exact | {None}, values  # never a rounded float


def test_a_range_column_beyond_exact_floats_is_refused_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    _inputs(tmp_path, "X", VARIANTS["on every other row"])
    code, out, err = run(capsys, A, "--ranges", "X")
    assert (code, out) == (2, "")
    assert err.endswith(
        "kprofile: error: --ranges: X holds a whole number of 401 digits; a range "
        "column's values are placed exactly only up to 2**53 (9,007,199,254,740,992)\n"
    )


def test_importance_orders_a_401_digit_value_after_the_small_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    _inputs(tmp_path, "X", VARIANTS["negative, beside a float"])
    code, out, err = run(capsys, A, "--importance", "--format", "json")
    assert code == 0, err
    rows = [r for s in json.loads(out)["sections"] if s["view"] == "importance-values"
            for r in s["rows"] if r["param"] == "X"]  # fmt: skip
    assert [r["value"] for r in rows] == [-BIG, 0.5]
