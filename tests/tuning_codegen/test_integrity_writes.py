"""Writes that fail, processes that are killed, runs that race.

All with real processes: an unwritable folder (permission bits enforced by dropping
CAP_DAC_OVERRIDE as root, ``support.unprivileged``), a file size limit (``EFBIG``, as a
full disk would fail a write), real signals, and two processes started together. The
timeouts below are hang guards, never assertions about speed.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support import PY, SCRIPT, SMALL, under_limits, unprivileged

from tuning_codegen.errors import InputError
from tuning_codegen.transaction import Transaction

pytestmark = pytest.mark.slow  # kill -9 at any moment, concurrent runs

MOJO = "kernels/tuning_configs.mojo"
BF16 = "kernels/tuning_table_sm100_bf16.yaml"
TEMP = re.compile(r"^\.(.+)\.tuning-codegen-(\d+)\.tmp$")


def tool(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SCRIPT, *args], capture_output=True, text=True, timeout=120, **kwargs
    )  # type: ignore[call-overload, no-any-return]


def temporaries(root: Path) -> list[str]:
    return sorted(p.name for p in root.rglob("*") if TEMP.match(p.name))


def two_stale_targets(repo: object) -> None:
    repo.edit(BF16, "N: 2560", "N: 2688")  # type: ignore[attr-defined]
    repo.edit(SMALL, "M: 64", "M: 128")  # type: ignore[attr-defined]


def test_unwritable_folder_of_the_second_target_changes_nothing(
    codegen_repo: object,
) -> None:
    """The Mojo target is written first; the Python folder refuses the temporary."""
    root = Path.cwd()
    two_stale_targets(codegen_repo)
    before = codegen_repo.snapshot()  # type: ignore[attr-defined]
    os.chmod(root / "python", 0o555)
    try:
        done = subprocess.run(
            unprivileged([SCRIPT]), capture_output=True, text=True, timeout=120
        )
    finally:
        os.chmod(root / "python", 0o755)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"{PY}: error: cannot write: cannot create a file in the folder python: "
        "Permission denied\n"
    )
    assert codegen_repo.snapshot() == before  # type: ignore[attr-defined]
    assert temporaries(root) == []


def test_a_write_that_fails_midway_changes_nothing(codegen_repo: object) -> None:
    """The second target is too big for the limit: EFBIG, as on a full disk."""
    root = Path.cwd()
    two_stale_targets(codegen_repo)
    target = root / PY
    target.write_text(target.read_text() + "# padding\n" * 20_000)
    before = codegen_repo.snapshot()  # type: ignore[attr-defined]
    done = subprocess.run(
        under_limits([SCRIPT], FSIZE=100_000),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"{PY}: error: cannot write: File too large\n"
    assert codegen_repo.snapshot() == before  # type: ignore[attr-defined]
    assert temporaries(root) == []


def test_a_target_changed_since_planning_is_not_overwritten(tmp_path: Path) -> None:
    target = tmp_path / "t.py"
    target.write_text("edited by someone else\n")
    with pytest.raises(InputError) as info:
        with Transaction() as transaction:
            transaction.stage("t.py", str(target), "new\n", old="planned from\n")
            transaction.commit()
    assert str(info.value) == "t.py: error: changed while regenerating; run again"
    assert target.read_text() == "edited by someone else\n"
    assert temporaries(tmp_path) == []


RENAME_FAILS = """\
import os, sys
from tuning_codegen.transaction import Transaction
first, second = sys.argv[1:]
with Transaction() as transaction:
    transaction.stage("first", first, "first new\\n", old="first old\\n")
    transaction.stage("second", second, "second new\\n", old="second old\\n")
    os.chmod(os.path.dirname(second), 0o555)  # now the second rename fails
    try:
        transaction.commit()
    except Exception as exc:
        print(exc)
"""


def test_a_rename_failing_midway_restores_the_targets_already_renamed(
    tmp_path: Path,
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = tmp_path / "a" / "first.py", tmp_path / "b" / "second.py"
    first.write_text("first old\n")
    second.write_text("second old\n")
    try:
        done = subprocess.run(
            unprivileged([sys.executable, "-c", RENAME_FAILS, str(first), str(second)]),
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        os.chmod(tmp_path / "b", 0o755)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "second: error: cannot write: Permission denied\n"
    assert first.read_text() == "first old\n"  # renamed, then restored
    assert second.read_text() == "second old\n"
    assert temporaries(tmp_path / "a") == []


SIGNALLED = """\
import os, signal, sys
from tuning_codegen.transaction import Transaction
from tuning_codegen.errors import Interrupted
target, signame = sys.argv[1:]
try:
    with Transaction() as transaction:
        transaction.stage("t", target, "new\\n", old="old\\n")
        os.kill(os.getpid(), getattr(signal, signame))
        transaction.commit()
except Interrupted as exc:
    raise SystemExit(128 + exc.signum)
"""


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM", "SIGKILL"])
def test_signals_while_writing(tmp_path: Path, name: str) -> None:
    target = tmp_path / "t.py"
    target.write_text("old\n")
    process = subprocess.Popen(
        [sys.executable, "-c", SIGNALLED, str(target), name],
        stderr=subprocess.PIPE,
        text=True,
    )
    _, stderr = process.communicate(timeout=120)
    signum = getattr(signal, name)
    assert target.read_text() == "old\n"
    left = temporaries(tmp_path)
    if signum == signal.SIGKILL:  # no chance to clean up: a recognisable leftover
        assert process.returncode == -signal.SIGKILL
        assert left == [f".t.py.tuning-codegen-{process.pid}.tmp"]
        assert (tmp_path / left[0]).read_text() == "new\n"
    else:
        assert (process.returncode, stderr) == (128 + signum, "")
        assert left == []


def test_temporaries_of_dead_processes_are_removed_by_the_next_run(
    codegen_repo: object,
) -> None:
    root = Path.cwd()
    two_stale_targets(codegen_repo)
    killed = subprocess.run(
        [sys.executable, "-c", SIGNALLED, str(root / PY), "SIGKILL"], timeout=120
    )
    assert killed.returncode == -signal.SIGKILL
    living = subprocess.Popen(["sleep", "60"])
    try:
        alive = root / "python" / f".dispatch.py.tuning-codegen-{living.pid}.tmp"
        alive.write_text("another writer, still running\n")
        assert len(temporaries(root)) == 2
        done = tool()
        assert done.returncode == 0, done.stderr
        assert temporaries(root) == [alive.name]  # the dead one's is gone
    finally:
        living.kill()
        living.wait()
    assert tool("--check").returncode == 0


def test_kill_9_at_any_moment_never_leaves_a_partial_target(
    codegen_repo: object,
) -> None:
    root = Path.cwd()
    two_stale_targets(codegen_repo)
    for rel in (MOJO, PY):  # bigger files: a longer window to be killed in
        path = root / rel
        path.write_text(path.read_text() + "# padding line\n" * 50_000)
    old = {rel: (root / rel).read_bytes() for rel in (MOJO, PY)}
    assert tool().returncode == 0
    new = {rel: (root / rel).read_bytes() for rel in (MOJO, PY)}
    rng = random.Random(8)
    outcomes = set()
    for _ in range(8):
        for rel, data in old.items():
            (root / rel).write_bytes(data)
        process = subprocess.Popen([SCRIPT], stdout=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.0, 0.4))
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=120)
        for rel in (MOJO, PY):
            data = (root / rel).read_bytes()
            assert data in (old[rel], new[rel]), rel
            outcomes.add((rel, data == new[rel]))
    assert tool().returncode == 0
    assert temporaries(root) == []
    assert {rel: (root / rel).read_bytes() for rel in (MOJO, PY)} == new


def test_two_runs_regenerating_different_tables_of_one_target_lose_nothing(
    codegen_repo: object,
) -> None:
    """Each run reads, splices and writes the shared target under its lock."""
    root = Path.cwd()
    target = root / MOJO
    fresh = target.read_bytes()
    codegen_repo.edit(BF16, "N: 2560", "N: 2688")  # type: ignore[attr-defined]
    codegen_repo.edit("kernels/tuning_table_sm90_fp8.yaml", "BN: 112", "BN: 128")  # type: ignore[attr-defined]
    for _ in range(6):
        target.write_bytes(fresh)  # both regions stale again
        runs = [
            subprocess.Popen([SCRIPT, "--table", name], stdout=subprocess.DEVNULL)
            for name in ("sm100-bf16", "sm90-fp8")
        ]
        assert [run.wait(timeout=120) for run in runs] == [0, 0]
        check = tool("--check")
        assert (check.returncode, check.stdout) == (0, ""), "a region was lost"


def test_runs_locking_two_targets_in_opposite_orders_do_not_deadlock(
    codegen_repo: object,
) -> None:
    root = Path.cwd()
    saved = {rel: (root / rel).read_bytes() for rel in (MOJO, PY)}
    two_stale_targets(codegen_repo)
    orders = (["small-py", "sm100-bf16"], ["sm100-bf16", "small-py"])
    for _ in range(4):
        for rel, data in saved.items():
            (root / rel).write_bytes(data)
        runs = [
            subprocess.Popen(
                [SCRIPT, *(a for name in order for a in ("--table", name))],
                stdout=subprocess.DEVNULL,
            )
            for order in orders
        ]
        assert [run.wait(timeout=120) for run in runs] == [0, 0]  # a hang guard
        assert tool("--check").returncode == 0
