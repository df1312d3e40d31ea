"""Exclusive locks on target files for a whole read -> plan -> write cycle.

Each target is locked with ``flock`` on the file itself, so no lock file is left in the
user's repository. Writers replace a target by renaming a new file over it, which
gives the path a new inode: after acquiring the lock we check that the path still names
the locked inode, and start again if it does not. Several targets are locked in one
fixed order (sorted real paths), so two runs can never wait for each other in a cycle.
Locks are released when the file descriptors are closed (also by a ``kill -9``).

A lock held by another process is waited for: after a second, one line on stderr says
so (``waiting for PATH, locked by pid N``, the holder found in ``/proc/locks`` where
there is one); after ``TUNING_CODEGEN_LOCK_TIMEOUT`` seconds (30 by default) the run
gives up with a clean error, exit 2, nothing written.
"""

from __future__ import annotations

import fcntl
import math
import os
import stat
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager

from tuning_codegen.errors import InputError, quote_path
from tuning_codegen.paths import short_path

MAX_ATTEMPTS = 1000  # each retry needs another process to replace the file meanwhile
TIMEOUT_VARIABLE = "TUNING_CODEGEN_LOCK_TIMEOUT"
DEFAULT_TIMEOUT = 30.0  # seconds
MAX_TIMEOUT = 86400.0
NOTICE_AFTER = 1.0  # seconds of waiting before saying so
POLL = 0.05  # seconds between two attempts


@contextmanager
def locked(real_paths: Iterable[str]) -> Iterator[None]:
    """Hold an exclusive lock on every existing regular file of ``real_paths``.

    Missing files and files that are not regular files are not locked: reading them
    reports the problem.
    """
    held: set[tuple[int, int]] = set()
    with ExitStack() as stack:
        for path in sorted(set(real_paths)):
            fd = _lock(path, held)
            if fd is not None:
                stack.callback(os.close, fd)
        yield


def _lock(path: str, held: set[tuple[int, int]]) -> int | None:
    """Lock ``path`` unless ``held`` (files this process locked) has it already: a
    second lock on one file (a hard link, another spelling) would wait forever."""
    for _ in range(MAX_ATTEMPTS):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            state = _lock_open_file(fd, path, held)
        except BaseException:
            os.close(fd)
            raise
        if state == "locked":
            return fd
        os.close(fd)
        if state == "skip":
            return None
    raise InputError(path, "cannot lock: the file is replaced again and again")


def _lock_open_file(fd: int, path: str, held: set[tuple[int, int]]) -> str:
    """Lock ``fd``: ``locked``, ``retry`` (``path`` names another file now) or
    ``skip`` (not a regular file, or locked already)."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or (info.st_dev, info.st_ino) in held:
        return "skip"
    _wait_for_lock(fd, path, info)
    try:
        now = os.stat(path)
    except FileNotFoundError:
        return "retry"
    if (now.st_dev, now.st_ino) != (info.st_dev, info.st_ino):
        return "retry"
    held.add((info.st_dev, info.st_ino))
    return "locked"


def lock_timeout() -> float:
    """Seconds to wait for a lock held elsewhere (``TUNING_CODEGEN_LOCK_TIMEOUT``)."""
    given = os.environ.get(TIMEOUT_VARIABLE, "").strip()
    if not given:
        return DEFAULT_TIMEOUT
    try:
        seconds = float(given)
    except ValueError:
        seconds = math.nan
    if not 0 <= seconds <= MAX_TIMEOUT:
        raise InputError(
            TIMEOUT_VARIABLE,
            f"expected a number of seconds from 0 to {MAX_TIMEOUT:g}, got {given!r}",
        )
    return seconds


def _try_lock(fd: int, path: str) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError as exc:
        raise InputError(path, f"cannot lock: {exc.strerror or exc}") from None
    return True


def _wait_for_lock(fd: int, path: str, info: os.stat_result) -> None:
    """Lock ``fd``, waiting for another holder at most the timeout."""
    if _try_lock(fd, path):
        return
    timeout = lock_timeout()
    start = time.monotonic()
    told = False
    while not _try_lock(fd, path):
        waited = time.monotonic() - start
        if waited >= timeout:
            raise InputError(
                short_path(path),
                f"{_holder(info)} for {timeout:g} s; if that is a stuck "
                "tuning-codegen or kprofile run, end it, or wait longer with "
                f"{TIMEOUT_VARIABLE}=SECONDS",
            )
        if not told and waited >= NOTICE_AFTER:
            shown = quote_path(short_path(path))
            print(f"waiting for {shown}, {_holder(info)}", file=sys.stderr)
            told = True
        time.sleep(min(POLL, max(timeout - waited, 0)))


def _holder(info: os.stat_result) -> str:
    pid = lock_holder(info)
    return "locked by another process" if pid is None else f"locked by pid {pid}"


def lock_holder(info: os.stat_result, table: str = "/proc/locks") -> int | None:
    """The pid holding a ``flock`` on the file of ``info``, from Linux's lock table
    (None where there is none, or no single holder is found)."""
    try:
        with open(table, encoding="ascii", errors="replace") as handle:
            lines = handle.read(1 << 20).splitlines()
    except OSError:
        return None
    device = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}"
    same_inode: dict[bool, set[int]] = {True: set(), False: set()}
    for line in lines:
        fields = line.split()
        if len(fields) < 6 or fields[1] != "FLOCK" or not fields[4].isdigit():
            continue  # "->" marks a waiter, not a holder
        dev, _, inode = fields[5].rpartition(":")
        if inode == str(info.st_ino):
            same_inode[dev == device].add(int(fields[4]))
    pids = same_inode[True] or same_inode[False]
    return next(iter(pids)) if len(pids) == 1 else None
