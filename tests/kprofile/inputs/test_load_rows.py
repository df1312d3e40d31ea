"""Rows that cannot be ranked are left out with a warning naming where they were:
truncated CSV rows and rows without a spec, in CSVs and in pickles; the rest loads
exactly as if they were not there. Binary CSVs are refused."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from kprofile.cli import main
from kprofile.errors import InvalidInputError
from kprofile.inputs.load import load_results

ROWS = [
    {"BM": 64, "STAGES": 3, "met (ms)": 0.5},
    {"BM": 128, "STAGES": 4, "met (ms)": 0.4},
    {"BM": 256, "STAGES": 5, "met (ms)": 0.6},
]
HEADER = "name,met (ms),iters,spec,kbench_filter"


@pytest.fixture
def csv_file(kb_write: Callable[..., Path]) -> Path:
    return kb_write("r.csv", ROWS)


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


def test_a_clean_file_has_no_warning(csv_file: Path) -> None:
    results = load_results(str(csv_file))
    assert results.warnings == ()
    assert len(results.frame) == 3


@pytest.mark.parametrize(
    ("tail", "fields"),
    [
        ("bench,0.0001,10", 3),  # cut before the spec: would be the best row
        ("bench,0.0001,10,bench/BM=32/STAG", 4),  # cut inside the spec
        ("bench,0.0001", 2),
    ],
)
def test_a_truncated_last_row_is_left_out(
    csv_file: Path, tail: str, fields: int
) -> None:
    clean = load_results(str(csv_file)).frame
    csv_file.write_text(csv_file.read_text() + tail)
    results = load_results(str(csv_file))
    assert results.warnings == (
        f"{csv_file}:5: warning: row has {fields} of 5 fields (truncated?); left out",
    )
    assert results.frame.equals(clean)


def test_short_rows_anywhere_are_left_out_quoted_or_not(csv_file: Path) -> None:
    header, *rows = _lines(csv_file)
    quoted = rows[0].replace("bench,", '"bench, quoted",', 1)
    text = (
        "\r\n".join([header, quoted, "bench,0.1", rows[1], "", rows[2], "x"]) + "\r\n"
    )
    csv_file.write_bytes(text.encode())
    results = load_results(str(csv_file))
    assert results.warnings == (
        f"{csv_file}:3: warning: row has 2 of 5 fields (truncated?); left out",
        f"{csv_file}:7: warning: row has 1 of 5 fields (truncated?); left out",
    )
    assert results.frame["BM"].tolist() == [64, 128, 256]
    assert results.frame["name"].tolist() == ["bench, quoted", "bench", "bench"]
    assert results.frame["iters"].dtype == "int64"  # as without the short rows


def test_rows_without_a_spec_are_left_out(csv_file: Path) -> None:
    header, *rows = _lines(csv_file)
    csv_file.write_text("\n".join([header, rows[0], "bench,0.01,10,,", *rows[1:]]))
    results = load_results(str(csv_file))
    assert results.warnings == (f"{csv_file}:3: warning: row has no spec; left out",)
    assert results.frame["BM"].tolist() == [64, 128, 256]


def test_many_bad_rows_are_counted_not_listed(csv_file: Path) -> None:
    header, *rows = _lines(csv_file)
    csv_file.write_text("\n".join([header, *rows, *["bench,0.1"] * 25]) + "\n")
    warnings = load_results(str(csv_file)).warnings
    assert len(warnings) == 11
    assert warnings[-1] == f"{csv_file}: warning: 15 more rows left out"


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("bench,0.1\nbench,0.2\n", "no complete row with a spec (every row left out)"),
        ("bench,0.1,10,,\n", "no complete row with a spec (every row left out)"),
        ("", "the results table has no rows"),
    ],
)
def test_a_file_without_a_usable_row_is_refused(
    tmp_path: Path, body: str, reason: str
) -> None:
    path = tmp_path / "r.csv"
    path.write_text(f"{HEADER}\n{body}")
    with pytest.raises(InvalidInputError) as caught:
        load_results(str(path))
    assert reason in str(caught.value)


def test_binary_data_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_bytes(f"{HEADER}\nbench,0.1,10,\x00bench/BM=1,\n".encode())
    with pytest.raises(InvalidInputError) as caught:
        load_results(str(path))
    assert str(caught.value) == (
        f"Invalid csv [{path}]: not a CSV text file (a NUL byte at offset 52)"
    )


def test_longer_rows_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("a,b\n1,2,3\n4,5,6\n")
    with pytest.raises(InvalidInputError) as caught:
        load_results(str(path))
    assert str(caught.value) == f"{path}:2: error: row has 3 fields, the header 2"


def test_the_best_entry_is_never_a_truncated_row(
    csv_file: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    csv_file.write_text(csv_file.read_text() + "bench,0.0001,10")
    monkeypatch.chdir(tmp_path)
    assert main([str(csv_file), "-o", "best"]) == 0
    out, err = capsys.readouterr()
    text = csv_file.read_text()
    line, fields = text.count("\n") + 1, text.split("\n", 1)[0].count(",") + 1
    assert err.splitlines()[0] == (
        f"{csv_file}:{line}: warning: row has 3 of {fields} fields (truncated?); "
        "left out"
    )
    assert "best spec: bench/BM=128/STAGES=4" in out
    assert "nan" not in out
    assert "BM: 128" in (tmp_path / "best.yaml").read_text()


def test_pickle_rows_without_a_spec_are_left_out_with_a_warning(
    tmp_path: Path,
    kb_write: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The pickle twin of a truncated CSV row: no spec, a tiny metric, never best."""
    import pickle

    path = kb_write(
        "r.pkl", [{"BM": 128, "met (ms)": 1.0}, {"BM": 64, "met (ms)": 2.0}]
    )
    payload = pd.read_pickle(path)
    frame = payload["merged_df"]
    frame.loc[len(frame)] = [2, "bench", 0.0001, 10, None, ""]
    path.write_bytes(pickle.dumps(payload))
    monkeypatch.chdir(tmp_path)
    assert main([str(path), "-o", "best"]) == 0
    out, err = capsys.readouterr()
    assert err.splitlines()[0] == (
        f"{path}: warning: 1 row without a spec left out (row 2)"
    )
    assert "best spec: bench/BM=128" in out
    assert "BM: 128" in (tmp_path / "best.yaml").read_text()
