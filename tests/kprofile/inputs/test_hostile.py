"""Hostile inputs through the real command, in a child process with its CPU time and
address space limited (``resource.setrlimit``) and a wall-clock timeout, so that a
regression fails the test instead of hanging or exhausting the machine. Each case
must end with a clean exit code, one-line errors and no traceback."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # hostile spec grids, queries and CSVs at their bounds

RUNNER = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
resource.setrlimit(resource.RLIMIT_CPU, (60, 60))
from kprofile.cli import main
codes = []
for argv in json.loads(sys.argv[1]):
    codes.append(main(argv))
    print(f"--- {codes[-1]}", file=sys.stderr, flush=True)
print(json.dumps(codes))
"""


def _run(cases: list[list[str]], cwd: Path) -> tuple[list[int], list[str]]:
    """Exit codes and stderr of each ``main(argv)``, all in one bounded process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["OPENBLAS_NUM_THREADS"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, json.dumps(cases)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    errors = re.split(r"--- -?\d+\n", done.stderr)
    return json.loads(done.stdout.splitlines()[-1]), errors


QUERIES = [
    ("((9**1024)**1024)**1024 > BM", "bits is over the limit of 4,096"),
    ("('a'*100000)*100000 == BM", "characters is over the limit of 1,000,000"),
    ("not " * 20_000 + "BM", "expression of 80,002 characters is over the limit"),
    ("+".join(["BM"] * 5_000), "expression of 14,999 characters is over the limit"),
    ("+".join(["BM"] * 3_000) + " > 0", "is nested more than 100 levels deep"),
    ("-" * 9_000 + "BM > 0", "is nested more than 100 levels deep"),
    ("BM ** BM ** BM > 0", "bits is over the limit of 4,096"),
    ("S * 10**6 == ''", "characters is over the limit of 1,000,000"),
    ("S * 24000 < S * 24000", "needs more than 256 MB for intermediate values"),
    ("S % BM == ''", "string formatting with % is not allowed"),
    ("BM * 2**62 * 2 > 2**63 and S == '$x'", "matched no rows in any input"),
]


def test_hostile_queries_end_cleanly(
    kb_write: Callable[..., Path], tmp_path: Path
) -> None:
    rows = [
        {"BM": 64 * (i % 4 + 1), "S": "x" * 40, "met (ms)": 1.0 + i} for i in range(200)
    ]
    kb_write("r.pkl", rows)
    codes, errors = _run([["r.pkl", "--query", q] for q, _ in QUERIES], tmp_path)
    for (query, message), code, error in zip(QUERIES, codes, errors):
        assert code == 2, query[:40]
        assert message in error, (query[:40], error)
        assert len(error.strip().splitlines()) <= 2, error


BOMB = "params:\n- " + "\n  ".join(
    f"P{i}: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]" for i in range(10)
)


SPECS = [
    (BOMB + "\n", "params expand to 10,000,000,000 rows, over the limit of 10,000,000"),
    (
        BOMB + "\n  Q: [" + ", ".join(map(str, range(999))) + "]\n",
        "params expand to 9,990,000,000,000 rows",
    ),
    (
        BOMB + "".join(f"\n  R{i}: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]" for i in range(300)),
        "params expand to about 10^310 rows",
    ),
    (
        "params:\n- {A: [1, 2], B: [3, 4]}\nrules:\n- " + "not " * 3000 + "A\n",
        "rules: expression of 12,001 characters is over the limit of 10,000",
    ),
    (
        "params:\n- {A: [1, 2], B: [3, 4]}\nrules:\n- (A ** 4096) ** B > 0\n",
        "bits is over the limit of 4,096",
    ),
]


def test_hostile_spec_grids_end_cleanly(tmp_path: Path) -> None:
    for number, (text, _) in enumerate(SPECS):
        (tmp_path / f"spec{number}.yaml").write_text(text)
    cases = [["--merge", f"spec{n}.yaml"] for n in range(len(SPECS))]
    codes, errors = _run(cases, tmp_path)
    assert codes == [2] * len(SPECS)
    for number, ((_, message), error) in enumerate(zip(SPECS, errors)):
        assert error.startswith(f"Invalid yaml [spec{number}.yaml]: ")
        assert message in error
        assert error.endswith("kprofile: error: no usable input (1 file skipped)\n")


def test_a_truncated_or_binary_csv_is_never_ranked(
    kb_write: Callable[..., Path], tmp_path: Path
) -> None:
    path = kb_write(
        "r.csv", [{"BM": 64, "met (ms)": 0.5}, {"BM": 128, "met (ms)": 0.4}]
    )
    path.write_text(path.read_text() + "bench,0.0001,10")
    with open(tmp_path / "sparse.csv", "wb") as sparse:
        sparse.truncate(2 << 30)  # 2 GiB of NUL bytes, no disk used
    codes, errors = _run([["r.csv", "-o", "best"], ["sparse.csv"]], tmp_path)
    assert codes == [0, 2]
    assert "BM: 128" in (tmp_path / "best.yaml").read_text()
    assert errors[1] == (
        "Invalid csv [sparse.csv]: not a CSV text file (a NUL byte at offset 0)\n"
        "kprofile: error: no usable input (1 file skipped)\n"
    )


def test_files_that_are_not_regular_are_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.yaml")
    os.mkfifo(tmp_path / "fifo.csv")
    os.mkfifo(tmp_path / "fifo.pkl")
    (tmp_path / "random.yaml").symlink_to("/dev/urandom")
    (tmp_path / "zero.csv").symlink_to("/dev/zero")
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(tmp_path / "sock.pkl"))
        files = [
            "fifo.yaml",
            "fifo.csv",
            "fifo.pkl",
            "random.yaml",
            "zero.csv",
            "sock.pkl",
        ]
        codes, errors = _run([files, ["--merge", "random.yaml"]], tmp_path)
    finally:
        server.close()
    assert codes == [2, 2]
    assert errors[0] == (
        "Invalid yaml [fifo.yaml]: not a regular file (a FIFO)\n"
        "Invalid csv [fifo.csv]: not a regular file (a FIFO)\n"
        "Invalid pkl [fifo.pkl]: not a regular file (a FIFO)\n"
        "Invalid yaml [random.yaml]: not a regular file (a character device)\n"
        "Invalid csv [zero.csv]: not a regular file (a character device)\n"
        "Invalid pkl [sock.pkl]: not a regular file (a socket)\n"
        "kprofile: error: no usable input (6 files skipped)\n"
    )
