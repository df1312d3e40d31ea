"""Opening input files: only regular files, never a FIFO or a device that blocks."""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

from kprofile.errors import KprofileError


def irregular(mode: int) -> str:
    """What a file that is not a regular file is ('' for a regular file)."""
    if stat.S_ISREG(mode):
        return ""
    kinds = (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((what for test, what in kinds if test(mode)), "not a file")


def open_regular(path: str) -> BinaryIO:
    """``path`` opened for reading without blocking, if it is still a regular file."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    what = irregular(os.fstat(fd).st_mode)
    if what:
        os.close(fd)
        raise KprofileError(path, f"not a regular file ({what})")
    return os.fdopen(fd, "rb")
