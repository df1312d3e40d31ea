"""Exclusive locks on target files for a whole read -> plan -> write cycle.

Each target is locked with ``flock`` on the file itself, so no lock file is left in the
user's repository. Writers replace a target by renaming a new file over it, which
gives the path a new inode: after acquiring the lock we check that the path still names
the locked inode, and start again if it does not. Several targets are locked in one
fixed order (sorted real paths), so two runs can never wait for each other in a cycle.
Locks are released when the file descriptors are closed (also by a ``kill -9``).
"""

from __future__ import annotations

import fcntl
import os
import stat
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager

from tuning_codegen.errors import InputError

MAX_ATTEMPTS = 1000  # each retry needs another process to replace the file meanwhile


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
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except OSError as exc:
        raise InputError(path, f"cannot lock: {exc.strerror or exc}") from None
    try:
        now = os.stat(path)
    except FileNotFoundError:
        return "retry"
    if (now.st_dev, now.st_ino) != (info.st_dev, info.st_ino):
        return "retry"
    held.add((info.st_dev, info.st_ino))
    return "locked"
