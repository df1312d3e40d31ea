"""Inputs bounded by what they make, not only by their size, through the real command.

Each limit of ``kprofile.inputs.limits`` is attacked with an input just over it (and,
where it is cheap, one just at it): one line naming the limit, exit status 2, before
the memory it guards is taken. Limits whose inputs would be hundreds of megabytes
(all tokens of a file, rows x columns of a CSV, the --cover/--ranges matrices) are
lowered for the test by patching the module constant only; everything else runs as
shipped. The inputs that once crashed or hung the command are here as they were
first found.
"""

from __future__ import annotations

import io
import os
import pickle
import re
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import BIN, FIXTURES, RESULTS, examples, run, under_limits

from kprofile.inputs import csvscan
from kprofile.inputs.limits import (
    MAX_COLUMNS,
    MAX_FIELD_CHARS,
    MAX_LINE_BYTES,
    MAX_PARAMS,
    MAX_SHAPES,
    MAX_SPEC_TOKENS,
)

HEADER = "name,met (ms),spec\n"
NO_INPUT = "kprofile: error: no usable input (1 file skipped)\n"


@pytest.fixture(autouse=True)
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _csv(name: str, specs: list[str], *, head: str = HEADER) -> str:
    Path(name).write_text(
        head + "".join(f"b,{1 + i % 7},{s}\n" for i, s in enumerate(specs))
    )
    return name


def _pickle(name: str, specs: list[str]) -> str:
    """A kbench result pickle written by pandas (one spec string may be repeated by
    reference: pickle stores it once)."""
    frame = pd.DataFrame(
        {
            "mesh_idx": np.arange(len(specs)),
            "name": ["b"] * len(specs),
            "met (ms)": np.linspace(1.0, 2.0, len(specs)),
            "spec": specs,
        }
    )
    payload = {"merged_df": frame, "build_df": frame[["mesh_idx"]], "name": "b"}
    Path(name).write_bytes(pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL))
    return name


def _refused(kind: str, path: str, reason: str) -> tuple[int, str, str]:
    """What skipping an input prints: ``path:N: error: ...`` where the reason names
    its line (``line N: ...``), else ``Invalid KIND [path]: reason``."""
    located = re.match(r"line (\d+): (.*)", reason, re.S)
    if located:
        return 2, "", f"{path}:{located[1]}: error: {located[2]}\n{NO_INPUT}"
    return 2, "", f"Invalid {kind} [{path}]: {reason}\n{NO_INPUT}"


# ------------------------------------------------------------ parameter names


def test_a_csv_whose_rows_each_name_their_own_parameters(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A 1.6 MB CSV that once ended in MemoryError (exit 3)."""
    specs, size, i = [], len(HEADER), 0
    while size < 1_600_000:
        specs.append(f"b/p{i}=1")
        size += len(f"b,{1 + i % 7},b/p{i}=1\n")
        i += 1
    path = _csv("own.csv", specs)
    assert os.path.getsize(path) >= 1_600_000
    rows = len(specs)
    names = 100_000_000 // rows + 1  # the first name rows x names is over the limit
    assert names < MAX_PARAMS
    assert run(capsys, path) == _refused(
        "csv",
        path,
        f"spec strings make {rows:,} rows of {names:,} parameters, over the limit "
        "of 100,000,000 values",
    )


def test_a_csv_naming_more_parameters_than_the_limit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _csv("own.csv", [f"b/p{i}=1" for i in range(MAX_PARAMS + 1)])
    assert run(capsys, path) == _refused(
        "csv",
        path,
        f"spec strings name more than {MAX_PARAMS:,} distinct parameters (the limit)",
    )


def test_as_many_names_as_the_limit_load(capsys: pytest.CaptureFixture[str]) -> None:
    path = _csv("own.csv", [f"b/p{i}=1" for i in range(MAX_PARAMS)])
    code, out, _ = run(capsys, path, "--format", "json")
    assert code == 0 and '"entries": 1000' in out


def test_rows_times_parameters_is_bounded(capsys: pytest.CaptureFixture[str]) -> None:
    """500 names are allowed, but not in 200,001 rows: 100,000,500 cells."""
    specs = [f"b/p{i}=1" for i in range(500)] + ["b/p0=2"] * 199_501
    path = _csv("wide.csv", specs)
    assert run(capsys, path) == _refused(
        "csv",
        path,
        "spec strings make 200,001 rows of 500 parameters, over the limit of "
        "100,000,000 values",
    )


def test_a_spec_yaml_naming_too_many_parameters(
    capsys: pytest.CaptureFixture[str],
) -> None:
    keys = "".join(f"  P{i}: 1\n" for i in range(MAX_PARAMS + 1))
    Path("many.yaml").write_text(f"name: b\nparams:\n- {keys.lstrip()}")
    assert run(capsys, "many.yaml", "--merge") == _refused(
        "yaml",
        "many.yaml",
        f"params name {MAX_PARAMS + 1:,} distinct parameters, over the limit of "
        f"{MAX_PARAMS:,}",
    )


# --------------------------------------------------------------- spec strings


def test_a_single_row_spec_of_a_million_parameters(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """10 MB in one spec, which once ran for over 60 s. In a CSV it is a
    line over the line limit; in a pickle, a spec string over the length limit."""
    spec = "b/" + "/".join(f"p{i}=1" for i in range(1_000_000))
    assert run(capsys, _csv("one.csv", [spec])) == _refused(
        "csv",
        "one.csv",
        f"line 2: line longer than {MAX_LINE_BYTES:,} bytes (the limit of a CSV line)",
    )
    assert run(capsys, _pickle("one.pkl", [spec])) == _refused(
        "pkl",
        "one.pkl",
        f"a spec string of {len(spec):,} characters, over the limit of 65,536",
    )


def test_a_spec_of_more_tokens_than_the_limit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    over = "b/" + "/".join(["A=1"] * (MAX_SPEC_TOKENS + 1))
    at = "b/" + "/".join(["A=1"] * MAX_SPEC_TOKENS)
    for path in (_csv("over.csv", [at, over]), _pickle("over.pkl", [over] * 3)):
        assert run(capsys, path) == _refused(
            path.rsplit(".", 1)[1],
            path,
            f"a spec string of {MAX_SPEC_TOKENS + 1:,} NAME=value tokens, over the "
            f"limit of {MAX_SPEC_TOKENS:,}",
        )
    assert run(capsys, _csv("at.csv", [at, at]))[0] == 0


def test_all_the_tokens_of_a_file_are_bounded(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One string repeated by reference: a small pickle, many tokens to parse."""
    monkeypatch.setattr("kprofile.inputs.spec.MAX_CELLS", 5_000)
    spec = "b/" + "/".join(f"A={i % 3}" for i in range(60))
    path = _pickle("memo.pkl", [spec] * 100)
    assert run(capsys, path) == _refused(
        "pkl", path, "spec strings hold more than 5,000 NAME=value tokens (the limit)"
    )
    assert run(capsys, _pickle("fine.pkl", [spec] * 80))[0] == 0


# ------------------------------------------------------------- CSV lines, fields


def test_a_csv_line_over_the_limit_is_refused_at_its_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Read a block at a time: the line is refused as soon as it is too long, so a
    line of a gigabyte (which once ended in SystemError, exit 3) never sits in memory."""
    row = "b/BM=1"

    def line(length: int) -> str:
        name = "x" * (length - len(f",1,{row}\n"))
        return f"{name},1,{row}\n"

    Path("at.csv").write_text(HEADER + line(100) + line(MAX_LINE_BYTES))
    assert run(capsys, "at.csv")[0] == 0
    Path("over.csv").write_text(HEADER + line(100) + line(MAX_LINE_BYTES + 1))
    assert run(capsys, "over.csv") == _refused(
        "csv",
        "over.csv",
        f"line 3: line longer than {MAX_LINE_BYTES:,} bytes (the limit of a CSV line)",
    )
    Path("last.csv").write_bytes(
        b"name,met (ms),spec\r\n" + b"y" * (3 * MAX_LINE_BYTES)
    )
    assert run(capsys, "last.csv") == _refused(
        "csv",
        "last.csv",
        f"line 2: line longer than {MAX_LINE_BYTES:,} bytes (the limit of a CSV line)",
    )


def test_a_quoted_field_over_the_limit_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Quoted, a field may span lines that are each short."""
    chunk = "y" * 999 + "\n"
    field = chunk * (MAX_FIELD_CHARS // len(chunk) + 1)
    Path("field.csv").write_text(f'{HEADER}b,1,b/BM=1\n"{field}",1,b/BM=2\n')
    assert run(capsys, "field.csv") == _refused(
        "csv",
        "field.csv",
        f"line 3: field longer than {MAX_FIELD_CHARS:,} characters (the limit of a "
        "CSV field)",
    )


def test_columns_are_bounded_in_a_csv_and_a_pickle(
    capsys: pytest.CaptureFixture[str],
) -> None:
    names = [f"c{i}" for i in range(MAX_COLUMNS - 2)]
    head = "name,met (ms),spec," + ",".join(names) + "\n"
    Path("cols.csv").write_text(head + "b,1,b/BM=1" + "," * len(names) + "\n")
    assert run(capsys, "cols.csv") == _refused(
        "csv",
        "cols.csv",
        f"line 1: {MAX_COLUMNS + 1:,} columns, over the limit of {MAX_COLUMNS:,}",
    )
    frame = pd.DataFrame(
        np.ones((2, MAX_COLUMNS + 1)), columns=[f"c{i}" for i in range(MAX_COLUMNS + 1)]
    )
    frame.to_pickle("cols.pkl")
    code, out, err = run(capsys, "cols.pkl")  # the pickle decoder's own limit
    assert (code, out) == (2, "")
    assert err.startswith("Invalid pkl [cols.pkl]: ") and err.endswith(NO_INPUT)
    assert f"{MAX_COLUMNS + 1} columns" in err


def test_rows_times_columns_of_a_csv_is_checked_before_pandas_reads_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(csvscan, "MAX_CELLS", 600)
    path = _csv("cells.csv", ["b/BM=1"] * 201)
    assert run(capsys, path) == _refused(
        "csv", path, "201 rows of 3 columns, over the limit of 600 values"
    )
    assert run(capsys, _csv("fine.csv", ["b/BM=1"] * 200))[0] == 0


# ------------------------------------------------------------ shapes, matrices


def test_shapes_and_groups_are_bounded(capsys: pytest.CaptureFixture[str]) -> None:
    path = _csv("shapes.csv", [f"b/BM=1/$M={i}" for i in range(MAX_SHAPES + 1)])
    assert run(capsys, path, "-p", "M") == (
        2,
        "",
        f"{path}: error: {MAX_SHAPES + 1:,} groups of -p M, over the limit of "
        f"{MAX_SHAPES:,}\n",
    )
    assert run(capsys, path, "--cover", "0.1", "-p", "M") == (
        2,
        "",
        f"kprofile: error: --cover: {MAX_SHAPES + 1:,} distinct shapes (M), over the "
        "limit of "
        f"{MAX_SHAPES:,}\n",
    )


def test_cover_ranges_and_budget_matrices_are_bounded(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("kprofile.core.measure.MAX_MATRIX_CELLS", 4)
    files = sorted(str(p) for p in (RESULTS / "run1").glob("*.pkl"))
    for mode in (["--cover", "0.1"], ["--budget", "2"]):
        code, _, err = run(capsys, *files, *mode)
        assert code == 2
        assert err.startswith(f"kprofile: error: {mode[0]}: ")
        assert err.endswith(" (shape, config) ratios to hold, over the limit of 4\n")
    sweep = sorted(str(p) for p in (FIXTURES / "sweep").glob("*.pkl"))
    code, _, err = run(capsys, *sweep, "--ranges", "M")
    assert code == 2
    assert err.startswith("kprofile: error: --ranges: ")
    assert err.endswith(" (shape, config) ratios to hold, over the limit of 4\n")


# --------------------------------------------------------------------- memory


@pytest.mark.slow  # a property run, or a real process under a limit
def test_an_input_too_big_for_the_memory_is_exit_2_never_exit_3(
    tmp_path: Path,
) -> None:
    """A 300-byte spec within every limit (7 parameters of 10 values: 10,000,000
    rows) makes more than a process limited to 400 MB of address space can hold:
    one line and exit 2; it ended in 'internal error: MemoryError' (exit 3)."""
    values = "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]"
    group = "\n  ".join(f"{name}: {values}" for name in "ABCDEFG")
    (tmp_path / "grid.yaml").write_text(f"name: b\nparams:\n- {group}\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["OPENBLAS_NUM_THREADS"] = "1"
    done = subprocess.run(
        under_limits([str(BIN / "kprofile"), "grid.yaml"], AS=400 << 20),
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        "Invalid yaml [grid.yaml]: not enough memory to load it (the table it makes "
        f"is too large for this machine)\n{NO_INPUT}",
    )


# -------------------------------------------------- the line scan, block by block


LINE_TEXT = st.lists(
    st.sampled_from(["a", ",", " ", "\t", "\n", "\r", "\r\n", '"', "bc,d"]), max_size=40
)


@settings(max_examples=examples(300), deadline=None)
@given(parts=LINE_TEXT, block=st.integers(1, 9))
def test_the_line_scan_agrees_with_python_at_any_block_size(
    parts: list[str], block: int
) -> None:
    """Line numbers and comma counts of the non-blank lines, whatever the block size
    and wherever a CR, LF or CRLF falls: as str.splitlines counts them."""
    data = "".join(parts).encode()
    old = csvscan._BLOCK
    csvscan._BLOCK = block
    try:
        scan = csvscan._scan_lines(io.BytesIO(data), "x.csv")
        numbers, commas = scan.finish()
    finally:
        csvscan._BLOCK = old
    lines = data.decode().replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    expected = [
        (number, line.count(","))
        for number, line in enumerate(lines, 1)
        if line.strip(" \t")
    ]
    assert list(zip(numbers.tolist(), commas.tolist())) == expected
    assert scan.quoted == (b'"' in data)
