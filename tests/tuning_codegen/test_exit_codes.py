"""Exit codes mean one thing whatever happens around the run: a closed pipe ends
quietly with the code the work had (never 1, "stale", for bad input or a good run),
and running out of memory on an input is that input's error (2), never a bug (3).
Real processes: a pipe whose reader is gone, an address-space limit."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support import BIN, FIXTURES, SCRIPT, under_limits

pytestmark = pytest.mark.slow  # closed pipes and memory limits on real processes

KPROFILE = str(BIN / "kprofile")


def into_a_closed_pipe(argv: list[str], cwd: Path) -> int:
    """``argv``'s exit code with stdout and stderr a pipe nobody reads any more."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(argv, cwd=cwd, stdout=write, stderr=write,
                              timeout=120).returncode  # fmt: skip
    finally:
        os.close(write)


def test_a_closed_pipe_keeps_each_codes_meaning(codegen_repo: Any) -> None:
    root = codegen_repo.root
    assert into_a_closed_pipe([SCRIPT, "--check"], root) == 0  # fresh
    codegen_repo.edit("kernels/tuning_table_sm100_bf16.yaml", "N: 2560", "N: 2688")
    assert into_a_closed_pipe([SCRIPT, "--check"], root) == 1  # stale: the diff is lost
    assert into_a_closed_pipe([SCRIPT, "--list"], root) == 0
    codegen_repo.registry.write_text("tables: [1\n")
    assert (
        into_a_closed_pipe([SCRIPT, "--check"], root) == 2
    )  # bad input: the line is lost
    assert into_a_closed_pipe([SCRIPT, "--nope"], root) == 2


def test_kprofile_into_a_closed_pipe_keeps_each_codes_meaning(tmp_path: Path) -> None:
    result = str(FIXTURES / "realkbench" / "A" / "out.pkl")
    assert into_a_closed_pipe([KPROFILE, result], tmp_path) == 0
    assert into_a_closed_pipe([KPROFILE, "missing.pkl"], tmp_path) == 2


def big_table(root: Path, entries: int) -> None:
    lines = ["params:"]
    for i in range(entries):
        lines += [f"- M: {i}", f"  N: {2 * i}", "  K: 4096", f"  BM: {64 + i % 3}",
                  "  BN: 128", "  STAGES: 4", "  NAME: cfg_abcdefgh"]  # fmt: skip
    (root / "m.yaml").write_text("\n".join(lines) + "\n")
    (root / "s.snippet").write_text("C([@M], [@N], [@K], [@BM], [@BN], '[@NAME]')\n")
    (root / "t.py").write_text("X = [\n    # BEGIN\n    # END\n]\n")
    (root / ".tuning-codegen.yaml").write_text(
        "tables:\n  - {name: t, manifest: m.yaml, snippet: s.snippet, target: t.py,\n"
        "     begin_marker: BEGIN, end_marker: END, language: python}\n"
    )


LIMIT = 300 * 2**20  # bytes of address space: the manifest's graph needs more


@pytest.mark.slow  # a property run, or a real process under a limit
@pytest.mark.parametrize("args", [["--check"], []])
def test_a_manifest_too_big_for_the_memory_is_named_exit_2(
    git_repo: Path, args: list[str]
) -> None:
    """Before: 'internal error: MemoryError', exit 3."""
    big_table(git_repo, 40_000)  # 3.3 MB
    before = (git_repo / "t.py").read_bytes()
    done = subprocess.run(under_limits([SCRIPT, *args], AS=LIMIT),
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr == (
        "m.yaml: error: not enough memory to read it: it makes more than this machine "
        "can hold; split it, or give the run more memory\n"
    )
    assert (git_repo / "t.py").read_bytes() == before
