"""``kprofile --merge -o`` keeps every value a manifest can hold exactly, refuses what it
cannot with the file and line, and writes bytes that do not depend on the hash seed.

Through the real command: manifests written by PyYAML in a temporary folder, merged
with ``kprofile --merge ... -o``, read back with the code generator's
``load_manifest``. Values are compared with ``identical`` (same type, same value, same
spelling: -0.0 is not 0.0, 1 is not 1.0, NaN is NaN)."""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples, snapshot

from kprofile.cli import main
from tuning_codegen.manifest import load_manifest
from tuning_codegen.values import identical

pytestmark = pytest.mark.slow  # subprocesses under several hash seeds

UTC5 = dt.timezone(dt.timedelta(hours=5, minutes=30))
AWKWARD: dict[str, Any] = {
    "INT": 7,
    "NEG": -3,
    "BIG": 123456789012345678901234567890,
    "NEGBIG": -(2**200),
    "INT64MAX": 2**63 - 1,
    "JUST_OVER": 2**63,
    "FLOAT": 1.5,
    "WHOLE_FLOAT": 3.0,
    "TINY": 5e-324,
    "HUGE": 1.7976931348623157e308,
    "NAN": float("nan"),
    "INF": float("inf"),
    "NINF": float("-inf"),
    "NZERO": -0.0,
    "ZERO": 0.0,
    "TRUE": True,
    "FALSE": False,
    "NULL": None,
    "S_TRUE": "true",
    "S_YES": "yes",
    "S_NULL": "null",
    "S_TILDE": "~",
    "S_INT": "1",
    "S_FLOAT": "1.5",
    "S_NAN": ".nan",
    "S_DATE": "2024-01-02",
    "S_BINARY": "!!binary aGk=",
    "S_MERGE": "<<",
    "S_EMPTY": "",
    "S_SPACE": " lead",
    "S_LINE": "a\nb",
    "S_UNICODE": "unicodé 😀",
    "DATETIME": dt.datetime(2024, 1, 2, 3, 4, 5),
    "MICROS": dt.datetime(2024, 1, 2, 3, 4, 5, 123456),
    "AWARE": dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC5),
    "UTC": dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.timezone(dt.timedelta(0))),
    "DATE": dt.date(2024, 1, 2),
    "OLD_DATE": dt.date(1, 1, 1),
    "BINARY": b"\x00\xffhello",
    "EMPTY_BINARY": b"",
}


def merge(folder: Path, *names: str, extra: tuple[str, ...] = ()) -> tuple[int, str]:
    """``kprofile --merge NAMES -o out.yaml`` in ``folder``: exit code and stderr."""
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["--merge", *names, "-o", "out.yaml", *extra])
    finally:
        os.chdir(cwd)
    return code, err.getvalue()


def write_manifest(path: Path, entries: list[dict[str, Any]]) -> None:
    path.write_text(yaml.safe_dump({"params": entries}, allow_unicode=True))


def loaded(path: Path) -> list[dict[str, Any]]:
    return [dict(e.values) for e in load_manifest(path).entries]


def assert_identical(got: list[dict[str, Any]], want: list[dict[str, Any]]) -> None:
    assert [list(e) for e in got] == [list(e) for e in want]
    for a, b in zip(got, want):
        for key in b:
            assert identical(a[key], b[key]), (key, a[key], b[key])


def test_every_value_yaml_holds_comes_back_exactly(tmp_path: Path) -> None:
    entries = [{"P": 1, **AWKWARD}, {"P": 2, "INT": 8}, {"P": 3, "NULL": None}]
    write_manifest(tmp_path / "a.yaml", entries)
    assert merge(tmp_path, "a.yaml") == (0, "wrote out.yaml (3 entries)\n")
    assert_identical(loaded(tmp_path / "out.yaml"), loaded(tmp_path / "a.yaml"))


def test_null_and_nan_are_values_and_a_missing_key_stays_missing(
    tmp_path: Path,
) -> None:
    write_manifest(tmp_path / "a.yaml", [{"P": 1, "X": None}, {"P": 2, "Y": 1.0}])
    write_manifest(tmp_path / "b.yaml", [{"P": 1, "X": 5, "Y": float("nan")}])
    assert merge(tmp_path, "a.yaml", "b.yaml", extra=("-p", "P"))[0] == 0
    got = loaded(tmp_path / "out.yaml")
    # P=1: X is the first input's null (the second's 5 is a conflict), Y from b
    assert list(got[0]) == ["P", "X", "Y"] and got[0]["X"] is None
    assert got[0]["Y"] != got[0]["Y"]
    assert got[1] == {"P": 2, "Y": 1.0}  # no X: neither input has one


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (
            "params:\n- P: 1\n  S: !!set {a, b}\n",
            3,
            "parameter 'S': a set cannot be a manifest value (an entry holds scalars)",
        ),
        (
            "params:\n- P: 1\n  S: ok\n- P: 2\n  S:\n  - x\n  - {k: v}\n",
            7,
            "parameter 'S': a mapping cannot be a manifest value (an entry holds "
            "scalars)",
        ),
        (
            "params:\n- P: 1\n  S: [[1, 2]]\n",
            3,
            "parameter 'S': a list cannot be a manifest value (an entry holds scalars)",
        ),
        (
            "set: &s !!set {a}\nbase: &b\n  S: *s\nparams:\n- <<: *b\n  P: 1\n",
            1,
            "parameter 'S': a set cannot be a manifest value (an entry holds scalars)",
        ),
        (
            "params:\n- P: 1\n  '<<': 2\n",
            3,
            "a parameter named '<<' cannot be written: YAML reads it as a merge key",
        ),
    ],
)
def test_what_no_entry_can_hold_is_refused_with_file_and_line(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    (tmp_path / "ok.yaml").write_text("params:\n- P: 1\n  Q: 2\n")
    (tmp_path / "bad.yaml").write_text(text)
    before = snapshot(tmp_path)
    assert merge(tmp_path, "ok.yaml", "bad.yaml") == (
        2,
        f"bad.yaml:{line}: error: --merge -o: {message}\n",
    )
    assert snapshot(tmp_path) == before  # out.yaml not written


def test_a_refused_row_filtered_out_by_query_is_no_error(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(
        "params:\n- P: 1\n  S: !!set {a}\n- P: 2\n  S: x\n"
    )
    assert merge(tmp_path, "a.yaml", extra=("--query", "P > 1"))[0] == 0
    assert loaded(tmp_path / "out.yaml") == [{"P": 2, "S": "x"}]


def _seeded_run(folder: Path, seed: str, *args: str) -> tuple[int, str, str, bytes]:
    code = "import sys; from kprofile.cli import main; raise SystemExit(main())"
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=folder,
        env={**os.environ, "PYTHONHASHSEED": seed},
        capture_output=True,
        text=True,
        check=False,
    )
    out = folder / "out.yaml"
    written = out.read_bytes() if out.exists() else b""
    if out.exists():
        out.unlink()
    return done.returncode, done.stdout, done.stderr, written


def test_bytes_do_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    words = [f"w{i}" for i in range(40)]
    entries = [{"P": i, "S": w, **AWKWARD} for i, w in enumerate(words)]
    write_manifest(tmp_path / "a.yaml", entries)
    (tmp_path / "s.yaml").write_text(
        "params:\n- P: 0\n  SET: !!set {" + ", ".join(words) + "}\n"
    )
    for args in (
        ["--merge", "a.yaml", "-o", "out.yaml"],
        ["--merge", "a.yaml", "s.yaml"],  # shown, sorted
        ["--merge", "a.yaml", "s.yaml", "-o", "out.yaml"],  # refused
        ["--merge", "a.yaml", "s.yaml", "--format", "json"],
    ):
        first, second = (_seeded_run(tmp_path, seed, *args) for seed in ("1", "2"))
        assert first == second, args
        assert first[0] in (0, 2)
    refused = _seeded_run(tmp_path, "3", "--merge", "a.yaml", "s.yaml", "-o", "out")
    assert refused[2] == (
        "s.yaml:3: error: --merge -o: parameter 'SET': a set cannot be a manifest "
        "value (an entry holds scalars)\n"
    )


# ------------------------------------------------------------------ properties

NAMES = st.sampled_from(["M", "BM", "true", "1", "null", "a b", "x: y", "<<x", "é"])
offsets = st.integers(-23 * 60 - 59, 23 * 60 + 59).map(
    lambda m: dt.timezone(dt.timedelta(minutes=m))
)
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(-(2**70), 2**70),
    st.floats(),
    st.sampled_from([v for v in AWKWARD.values()]),
    st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=8),
    st.datetimes(
        min_value=dt.datetime(1000, 1, 1), timezones=st.one_of(st.none(), offsets)
    ),
    st.dates(min_value=dt.date(1000, 1, 1)),
    st.binary(max_size=8),
)


@settings(max_examples=examples(120), deadline=None)
@given(
    st.lists(st.dictionaries(NAMES, VALUES, max_size=5), min_size=1, max_size=5),
    st.integers(1, 3),
)
def test_merge_output_reads_back_equal(
    tmp_path_factory: pytest.TempPathFactory,
    rows: list[dict[str, Any]],
    split: int,
) -> None:
    """Entries spread over up to three inputs (a pivot ``P`` per entry, so no two
    inputs fill the same cell) come back from ``-o`` exactly, missing keys missing."""
    folder = tmp_path_factory.mktemp("merge")
    entries = [{"P": i, **row} for i, row in enumerate(rows)]
    names = []
    for part in range(split):
        chunk = entries[part::split]
        if chunk:
            names.append(f"in{part}.yaml")
            write_manifest(folder / names[-1], chunk)
    code, err = merge(folder, *names)
    assert code == 0, err
    wanted = sorted(
        (e for n in names for e in loaded(folder / n)), key=lambda e: e["P"]
    )
    got = sorted(loaded(folder / "out.yaml"), key=lambda e: e["P"])
    assert [sorted(e) for e in got] == [sorted(e) for e in wanted]
    for a, b in zip(got, wanted):
        for key in b:
            assert identical(a[key], b[key]), (key, a[key], b[key])
