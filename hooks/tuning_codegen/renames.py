"""Putting a staged file in place without losing an edit made meanwhile.

``rename(2)`` replaces whatever the target is when it runs: a save made by an editor
after the writer's last check and before its rename would be gone. So the old file
of each target is opened before that check (``open_old``), and each temporary is
swapped with its target in one step (Linux's ``renameat2`` with ``RENAME_EXCHANGE``):
the temporary's name then holds what the target was at that moment, which is
compared with what was planned (``edited``): the same file, the same bytes. A target
that differs is swapped back (``put_back``), so the other program's file is the
target again, byte for byte, with its metadata.

Where the system or the file system has no exchange (macOS, NFS, FUSE, vfat), the
temporary is renamed over the target and the old file, still open, is read again: a
save written into it is caught and written back; a save by rename in that narrow
window is not (nothing names the replaced file any more).
"""

from __future__ import annotations

import errno
import functools
import os
import stat
from collections.abc import Callable
from typing import NamedTuple

from tuning_codegen.errors import InputError

AT_FDCWD = -100
RENAME_EXCHANGE = 2  # linux/fs.h
UNSUPPORTED = frozenset({errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP})
_OPEN = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
CHANGED = "changed while regenerating; run again"  # before the renames

Swap = Callable[[bytes, bytes], int]  # two names -> 0, or the errno


class Old(NamedTuple):
    """A target's file as it was checked before the renames, held open."""

    fd: int
    device: int
    inode: int
    planned: bytes  # what it held, and what the new text was planned from


@functools.cache
def _swapper() -> Swap | None:
    """libc's ``renameat2`` (glibc 2.28 and later) exchanging two names, or None
    where there is none."""
    import ctypes  # start-up: only a run that writes needs it

    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int,
                         ctypes.c_char_p, ctypes.c_uint]  # fmt: skip
    function.restype = ctypes.c_int

    def swap(first: bytes, second: bytes) -> int:
        if function(AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE) == 0:
            return 0
        return ctypes.get_errno()

    return swap


def exchange(first: str, second: str) -> bool:
    """Swap the files named ``first`` and ``second`` in one step; False (nothing
    done) where this system or the file system holding them cannot."""
    swap = _swapper()
    if swap is None:
        return False
    code = swap(os.fsencode(first), os.fsencode(second))
    if code == 0:
        return True
    if code in UNSUPPORTED:
        return False
    raise OSError(code, os.strerror(code), first, None, second)


def held_old(shown: str, real: str, planned: bytes | None) -> Old | None:
    """The target's file, held open, once checked to hold ``planned`` (what the new
    text was planned from; None: nothing to check, a new file)."""
    if planned is None:
        return None
    try:
        fd = os.open(real, _OPEN)
    except OSError:
        raise InputError(shown, CHANGED) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISREG(info.st_mode) and read_all(fd, len(planned) + 1) == planned:
            return Old(fd, info.st_dev, info.st_ino, planned)
    except OSError:
        pass
    os.close(fd)
    raise InputError(shown, CHANGED)


def read_all(fd: int, limit: int | None = None) -> bytes:
    """What the open file holds now, from its start (at most ``limit`` bytes)."""
    chunks = []
    offset = 0
    while limit is None or offset < limit:
        size = 1 << 20 if limit is None else min(1 << 20, limit - offset)
        chunk = os.pread(fd, size, offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def edited(old: Old | None, aside: str | None) -> bool:
    """Whether the target changed between the check and its rename: ``aside`` (the
    name that holds what the target was, after an exchange) names another file, or
    the old file no longer holds what was planned."""
    if old is None:
        return False
    try:
        if aside is not None:
            info = os.stat(aside)
            if (info.st_dev, info.st_ino) != (old.device, old.inode):
                return True
        return read_all(old.fd, len(old.planned) + 1) != old.planned
    except OSError:  # cannot be told: as if edited, so everything is put back
        return True
