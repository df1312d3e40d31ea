"""kprofile's exit codes mean one thing whatever happens around the run. Real
processes: a pipe whose reader is gone (a closed ``| head``), an address-space limit
(RLIMIT_AS) that an input within every bound still exceeds, manifests of the wrong
YAML type.

- Into a closed pipe the run ends quietly with the code its work had: 0 done, 1 a
  failed gate, 2 bad input (never 1 for a good run or a missing file).
- Running out of memory on an input is that input's error: exit 2, one line naming
  it (never ``internal error: MemoryError``, exit 3, nor "not a valid pickle").
- A manifest whose root, ``params`` or entry is another YAML type (``!!set``,
  ``!!omap``, a list) is one line and exit 2 for ``--score``, ``--update`` and
  ``--merge``.
"""

from __future__ import annotations

import gzip
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from support import BIN, FIXTURES, run, under_limits

KPROFILE = str(BIN / "kprofile")
HELDOUT = FIXTURES / "heldout"
LIMIT = 350 << 20  # bytes of address space: kprofile's start-up needs about 250 MB


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["OPENBLAS_NUM_THREADS"] = "1"  # each BLAS thread reserves address space
    return env


def into_a_closed_pipe(argv: list[str], cwd: Path) -> int:
    """``argv``'s exit code with stdout and stderr a pipe nobody reads any more."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([KPROFILE, *argv], cwd=cwd, stdout=write, stderr=write,
                              env=_env(), timeout=300).returncode  # fmt: skip
    finally:
        os.close(write)


@pytest.fixture
def table(tmp_path: Path) -> Path:
    """A table of run A's best per shape (run B crashed at one of them)."""
    done = subprocess.run(
        [KPROFILE, str(HELDOUT / "run_a.pkl"), "-p", "M,N,K", "-o", "table"],
        cwd=tmp_path, env=_env(), capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return tmp_path / "table.yaml"


@pytest.mark.slow  # nine real processes writing into a pipe nobody reads
@pytest.mark.parametrize(
    ("args", "code"),
    [
        ([str(HELDOUT / "run_a.pkl")], 0),
        ([str(HELDOUT / "run_a.pkl"), "-r", "-p", "M,N,K"], 0),  # 442 rows: EPIPE
        ([str(HELDOUT / "run_a.pkl"), "-r", "--format", "json"], 0),
        (["missing.pkl"], 2),
        ([str(HELDOUT / "run_a.pkl"), "--no-such-flag"], 2),
        (["--score", "table.yaml", str(HELDOUT / "run_b.pkl"), "--fail-above",
          "1.01", "--allow-failed"], 1),  # the geomean
        (["--score", "table.yaml", str(HELDOUT / "run_b.pkl"), "--fail-above",
          "1.5"], 1),  # the crashed shape
        (["--score", "table.yaml", str(HELDOUT / "run_b.pkl"), "--fail-above",
          "1.5", "--allow-failed"], 0),
        (["--score", "missing.yaml", str(HELDOUT / "run_b.pkl")], 2),
    ],
)  # fmt: skip
def test_a_closed_pipe_ends_with_the_code_of_the_work(
    tmp_path: Path, table: Path, args: list[str], code: int
) -> None:
    assert into_a_closed_pipe(args, tmp_path) == code


def _limited_run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(under_limits([KPROFILE, *args], AS=LIMIT), cwd=cwd,
                          env=_env(), capture_output=True, text=True,
                          timeout=300)  # fmt: skip


def _big_table(path: Path, entries: int) -> None:
    lines = ["params:"]
    for i in range(entries):
        lines += [f"- M: {16 * (i + 1)}", "  N: 4096", "  K: 4096",
                  f"  BM: {64 * (1 + i % 2)}", "  BN: 128", "  STAGES: 4"]  # fmt: skip
    path.write_text("\n".join(lines) + "\n")


OUT_OF_MEMORY = (
    "not enough memory to {what}: it makes more than this machine can hold; split "
    "it, or give the run more memory"
)


@pytest.mark.slow  # builds an input of tens of MB, read under a memory limit
def test_a_score_table_too_big_for_the_memory_is_named_exit_2(tmp_path: Path) -> None:
    """A 3.7 MB table within every limit; before: 'not enough memory for this
    analysis of the inputs', naming none of them."""
    _big_table(tmp_path / "big.yaml", 60_000)
    done = _limited_run(["--score", "big.yaml", str(HELDOUT / "run_b.pkl")], tmp_path)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr == f"big.yaml: error: {OUT_OF_MEMORY.format(what='read it')}\n"


@pytest.mark.slow  # builds an input of tens of MB, read under a memory limit
def test_an_update_of_a_manifest_too_big_for_the_memory_is_named_exit_2(
    tmp_path: Path,
) -> None:
    _big_table(tmp_path / "big.yaml", 60_000)
    before = (tmp_path / "big.yaml").read_bytes()
    done = _limited_run(
        [str(HELDOUT / "run_b.pkl"), "-p", "M,N,K", "--update", "big.yaml"], tmp_path
    )
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr.endswith(
        f"big.yaml: error: {OUT_OF_MEMORY.format(what='update it')}\n"
    )
    assert done.stderr.count("error") == 1
    assert (tmp_path / "big.yaml").read_bytes() == before


@pytest.mark.slow  # builds an input of tens of MB, read under a memory limit
def test_a_results_pickle_too_big_for_the_memory_is_named_exit_2(
    tmp_path: Path,
) -> None:
    """11 MB of gzip, 94 MB of pickle, a million rows: within every bound of the
    decoder, more than the limit. Before: 'not a valid pickle (MemoryError: )'."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from bench_ranges import sweep_frame

    frame = sweep_frame(8, 250, 500)
    data = pickle.dumps({"merged_df": frame, "name": "b", "file": "b.mojo"}, 5)
    (tmp_path / "big.pkl.gz").write_bytes(gzip.compress(data, 1))
    del frame, data
    done = _limited_run(["big.pkl.gz"], tmp_path)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr == (
        "Invalid pkl [big.pkl.gz]: not enough memory to load it (the table it makes "
        "is too large for this machine)\n"
        "kprofile: error: no usable input (1 file skipped)\n"
    )


WRONG_TYPES = [
    ("!!set {params: null}\n", "1: error: expected a mapping with a 'params' list, got "
     "a !!set"),
    ("!!omap [params: [{M: 16}]]\n", "1: error: expected a mapping with a 'params' "
     "list, got a !!omap"),
    ("- params: []\n", "1: error: expected a mapping with a 'params' list, got a list"),
    ("params: !!set {a: null}\n", "1: error: 'params' must be a list of mappings, got "
     "a !!set"),
    ("params: [!!set {M: null}]\n", "1: error: params[0] must be a mapping, got a "
     "!!set"),
    ("params: [!!omap [M: 16, BM: 64]]\n", "1: error: params[0] must be a mapping, "
     "got a !!omap"),
    ("params: [!!pairs [M: 16]]\n", "1: error: params[0] must be a mapping, got a "
     "!!pairs"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "message"), WRONG_TYPES)
@pytest.mark.parametrize("mode", ["--score", "--update", "--merge"])
def test_a_manifest_of_the_wrong_yaml_type_is_one_line_exit_2(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    mode: str,
    text: str,
    message: str,
) -> None:
    """In process (the command's own main(), its exit code and streams): 21 cases
    that need no real process, unlike the closed pipes and memory limits above."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.yaml").write_text(text)
    run_b = str(HELDOUT / "run_b.pkl")
    args = {
        "--score": ["--score", "m.yaml", run_b, "-p", "M,N,K"],
        "--update": [run_b, "-p", "M,N,K", "--update", "m.yaml"],
        "--merge": ["--merge", "m.yaml", "-p", "M"],
    }[mode]
    code, out, err = run(capsys, *args)
    assert (code, out) == (2, ""), err
    if mode == "--merge":  # an input of --merge: skipped, and then none is left
        assert err == (
            f"m.yaml:{message}\nkprofile: error: no usable input (1 file skipped)\n"
        )
    else:
        assert err == f"m.yaml:{message}\n"
    assert (tmp_path / "m.yaml").read_text() == text
