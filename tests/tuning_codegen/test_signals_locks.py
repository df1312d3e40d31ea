"""Real signals to real processes, locks held by another process, a read-only file
system, and the revisions ``--since`` is given.

- every signal whose default action ends the process (each class: HUP, INT, QUIT,
  TERM, USR1/2, timers, resource limits, I/O, power, real-time), between the first and
  the last rename, waits for the renames; a fault sent then (SEGV, BUS, ABRT ...) ends
  the run once they are done: both targets new, exit 128 + N; sent at any moment,
  the two targets are both old or both new, never one of each;
- Ctrl-C anywhere exits 130 with one line (before, click's 'aborted', exit 2);
- a lock held elsewhere: one line after a second naming the holder's pid, a clean
  exit 2 after ``TUNING_CODEGEN_LOCK_TIMEOUT`` seconds, nothing written;
- a target on a file system mounted read-only is reported as such;
- ``--since``: a range is refused in words, reflog syntax is git's, a revision
  missing from a depth-1 clone gets the shallow-clone hint.
"""

from __future__ import annotations

import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import PY, SCRIPT, SMALL
from support import run_codegen as run

pytestmark = pytest.mark.slow  # real signals at random moments, lock timeouts

MOJO = "kernels/tuning_configs.mojo"
BF16 = "kernels/tuning_table_sm100_bf16.yaml"
# Every class of signal whose default action ends the process: the classic four,
# the user-defined and timer ones, the resource limits, I/O, power, a real-time one;
# and faults sent by another process, which get no handler but are blocked while
# the targets are renamed.
SIGNALS = ["SIGHUP", "SIGINT", "SIGQUIT", "SIGTERM", "SIGUSR1", "SIGUSR2", "SIGALRM",
           "SIGVTALRM", "SIGPROF", "SIGXCPU", "SIGXFSZ", "SIGIO", "SIGPWR",
           "SIGRTMIN"]  # fmt: skip
IGNORED = {"SIGXFSZ"}  # Python sets it to SIG_IGN at start-up (writes get EFBIG)
FAULTS = ["SIGSEGV", "SIGBUS", "SIGABRT", "SIGFPE", "SIGILL", "SIGTRAP", "SIGSYS"]


def between_renames(name: str) -> list[str]:
    """The command that runs tuning-codegen with signal ``name`` sent to it as it
    makes its first rename (strace injects it on entering the first
    ``renameat2``): it arrives between the first rename and the second."""
    number = int(getattr(signal, name))  # strace's SIGRTMIN is the kernel's, not libc's
    inject = f"inject=renameat2:signal={number}:when=1"
    return ["strace", "-qq", "-o", "/dev/null", "-e", "trace=renameat2",
            "-e", inject, SCRIPT]  # fmt: skip


def two_stale_targets(repo: Any) -> None:
    repo.edit(BF16, "N: 2560", "N: 2688")
    repo.edit(SMALL, "M: 64", "M: 128")


@pytest.fixture
def no_core_dumps() -> Iterator[None]:
    """No core files from the processes a test ends with a fault: the soft limit is
    set here, in the test's own process, and inherited (not by a pre-exec function,
    which runs Python between fork and exec and can deadlock among xdist's threads)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
    resource.setrlimit(resource.RLIMIT_CORE, (0, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_CORE, (soft, hard))


def temporaries(root: Path) -> list[str]:
    return sorted(p.name for p in root.rglob("*.tmp") if ".tuning-codegen-" in p.name)


@pytest.mark.parametrize("name", SIGNALS)
@pytest.mark.usefixtures("no_core_dumps")
def test_a_signal_between_two_renames_waits_for_the_second(
    codegen_repo: Any, name: str
) -> None:
    """Before, SIGHUP here left one target new and the other old."""
    two_stale_targets(codegen_repo)
    done = subprocess.run(
        between_renames(name),
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    signum = getattr(signal, name)
    if name in IGNORED:  # Python ignores it from the start: nothing to interrupt
        assert (done.returncode, done.stderr) == (0, "")
    else:
        assert (done.returncode, done.stderr) == (
            128 + signum,
            f"tuning-codegen: error: interrupted by {signal.Signals(signum).name}\n",
        )
    assert subprocess.run([SCRIPT, "--check"], timeout=120).returncode == 0
    assert temporaries(codegen_repo.root) == []


@pytest.mark.parametrize("name", FAULTS)
@pytest.mark.usefixtures("no_core_dumps")
def test_a_fault_sent_between_two_renames_ends_the_run_after_the_second(
    codegen_repo: Any, name: str
) -> None:
    """No handler for a fault (a real one would loop): it is blocked while the
    targets are renamed, then ends the process, both targets written."""
    two_stale_targets(codegen_repo)
    done = subprocess.run(
        between_renames(name),
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == -getattr(signal, name), done.stderr
    assert subprocess.run([SCRIPT, "--check"], timeout=120).returncode == 0
    assert temporaries(codegen_repo.root) == []


@pytest.mark.parametrize("name", SIGNALS)
@pytest.mark.usefixtures("no_core_dumps")
def test_a_signal_at_any_moment_never_splits_the_targets(
    codegen_repo: Any, name: str
) -> None:
    root = codegen_repo.root
    two_stale_targets(codegen_repo)
    for rel in (MOJO, PY):  # bigger files: a longer window to be signalled in
        path = root / rel
        path.write_text(path.read_text() + "# padding line\n" * 50_000)
    old = {rel: (root / rel).read_bytes() for rel in (MOJO, PY)}
    assert subprocess.run([SCRIPT], capture_output=True, timeout=120).returncode == 0
    new = {rel: (root / rel).read_bytes() for rel in (MOJO, PY)}
    rng = random.Random(17)
    for _ in range(4):
        for rel, data in old.items():
            (root / rel).write_bytes(data)
        process = subprocess.Popen(
            [SCRIPT], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        time.sleep(rng.uniform(0.0, 0.4))
        process.send_signal(getattr(signal, name))
        _, stderr = process.communicate(timeout=120)
        now = {rel: (root / rel).read_bytes() for rel in (MOJO, PY)}
        assert now in (old, new), (name, process.returncode)
        number = getattr(signal, name)
        if process.returncode == 128 + number:  # handled: exactly one line says so
            shown = signal.Signals(number).name
            assert stderr.endswith(f"interrupted by {shown}\n".encode()), stderr
        else:  # done first, ended by the default action, or in Python's start-up
            assert process.returncode in (0, -number, 1), (name, stderr)
        assert temporaries(root) == []


HOLDER = """\
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_EX)
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
"""


def hold_lock(path: Path, seconds: float) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), str(seconds)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
    return holder


def test_a_held_lock_is_named_then_given_up(codegen_repo: Any) -> None:
    two_stale_targets(codegen_repo)
    before = codegen_repo.snapshot()
    holder = hold_lock(codegen_repo.path(PY), 60)
    try:
        env = {**os.environ, "TUNING_CODEGEN_LOCK_TIMEOUT": "2.5"}
        done = subprocess.run(
            [SCRIPT], capture_output=True, text=True, env=env, timeout=120
        )
    finally:
        holder.kill()
        holder.wait()
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"waiting for {PY}, locked by pid {holder.pid}\n"
        f"{PY}: error: locked by pid {holder.pid} for 2.5 s; if that is a stuck "
        "tuning-codegen or kprofile run, end it, or wait longer with "
        "TUNING_CODEGEN_LOCK_TIMEOUT=SECONDS\n"
    )
    assert codegen_repo.snapshot() == before


def test_a_lock_released_meanwhile_is_taken(codegen_repo: Any) -> None:
    two_stale_targets(codegen_repo)
    holder = hold_lock(codegen_repo.path(PY), 1.8)
    done = subprocess.run([SCRIPT], capture_output=True, text=True, timeout=120)
    holder.wait()
    assert done.returncode == 0, done.stderr
    assert done.stderr == f"waiting for {PY}, locked by pid {holder.pid}\n"
    assert done.stdout.count("regenerated ") == 2


def test_a_bad_lock_timeout_is_named(codegen_repo: Any) -> None:
    holder = hold_lock(codegen_repo.path(PY), 60)
    try:
        env = {**os.environ, "TUNING_CODEGEN_LOCK_TIMEOUT": "soon"}
        done = subprocess.run(
            [SCRIPT], capture_output=True, text=True, env=env, timeout=120
        )
    finally:
        holder.kill()
        holder.wait()
    assert (done.returncode, done.stderr) == (
        2,
        "TUNING_CODEGEN_LOCK_TIMEOUT: error: expected a number of seconds from 0 to "
        "86400, got 'soon'\n",
    )


def test_ctrl_c_while_waiting_exits_130(codegen_repo: Any) -> None:
    two_stale_targets(codegen_repo)
    before = codegen_repo.snapshot()
    holder = hold_lock(codegen_repo.path(PY), 60)
    try:
        process = subprocess.Popen(
            [SCRIPT], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        assert process.stderr is not None
        assert process.stderr.readline().startswith("waiting for ")
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        holder.kill()
        holder.wait()
    assert (process.returncode, out, err) == (
        130,
        "",
        "tuning-codegen: error: interrupted by SIGINT\n",
    )
    assert codegen_repo.snapshot() == before


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("unshare") is None,
    reason="mounting a read-only file system needs root and unshare",
)
def test_a_read_only_file_system_is_named(codegen_repo: Any) -> None:
    codegen_repo.edit(SMALL, "M: 64", "M: 128")
    before = codegen_repo.snapshot()
    script = (
        "mount --bind python python && mount -o remount,bind,ro python && "
        f'exec "{SCRIPT}"'
    )
    done = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "sh", "-c", script],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"{PY}: error: cannot write: the file system holding it is mounted read-only\n"
    )
    assert codegen_repo.snapshot() == before


def test_since_takes_one_revision_not_a_range(
    codegen_repo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    root = codegen_repo.root
    assert run(["--check", "--since", "main..HEAD"], capsys) == (
        2,
        "",
        f"{root}: error: --since takes one revision, not a range A..B (got "
        "'main..HEAD'); for the changes of a branch, give where it starts: "
        "--since origin/main\n",
    )


def test_since_resolves_reflog_syntax_as_git_does(
    codegen_repo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: GitPython's own parser called it an unknown revision."""
    codegen_repo.edit(BF16, "N: 2560", "N: 2688")
    for ref in ("HEAD@{yesterday}", "HEAD@{0}", "main@{1.week.ago}"):
        code, out, err = run(["--check", "--since", ref], capsys)
        assert (code, err) == (1, ""), ref
        assert out.startswith(f"diff --git a/{MOJO} b/{MOJO}\n")


def test_since_head_1_in_a_depth_1_clone_gets_the_hint(
    codegen_repo: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before: GitPython found HEAD's parent's name and printed git's raw error."""
    codegen_repo.path("docs/notes.txt").write_text("more notes\n")
    codegen_repo.commit_all("notes")
    clone = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{codegen_repo.root}", str(clone)],
        check=True, capture_output=True,
    )  # fmt: skip
    monkeypatch.chdir(clone)
    assert run(["--check", "--since", "HEAD~1"], capsys) == (
        2,
        "",
        f"{clone}: error: --since: unknown revision 'HEAD~1' (this is a shallow "
        "clone: fetch the revision or deepen it)\n",
    )
