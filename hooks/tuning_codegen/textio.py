"""Byte-exact, bounded file reading.

Reading refuses anything that is not a regular file (a FIFO would block forever, a
device never ends) and anything larger than ``MAX_BYTES``. Writing is
``transaction.write_atomic``'s.
"""

from __future__ import annotations

import os
import stat

from tuning_codegen.errors import InputError

MAX_BYTES = 64 * 2**20  # no input of this tool is anywhere near this size


def file_kind(mode: int) -> str:
    """``a FIFO``, ``a socket``, ... for a file that is not a regular file."""
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def not_regular(name: str, mode: int) -> InputError:
    if stat.S_ISDIR(mode):
        return InputError(name, "is a directory, expected a file")
    return InputError(name, f"not a regular file ({file_kind(mode)})")


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a regular file of at most ``MAX_BYTES``; never blocks on a FIFO."""
    name = os.fspath(path)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise InputError(name, "no such file") from None
    except OSError as exc:
        raise _open_error(name, exc) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise not_regular(name, info.st_mode)
        if info.st_size > MAX_BYTES:
            raise _too_large(name, info.st_size)
        return _read_bounded(fd, name)
    except OSError as exc:
        raise InputError(name, f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def _open_error(name: str, exc: OSError) -> InputError:
    try:  # a socket cannot be opened at all (ENXIO): say what it is
        mode = os.stat(name).st_mode
    except OSError:
        mode = stat.S_IFREG
    if not stat.S_ISREG(mode):
        return not_regular(name, mode)
    return InputError(name, f"cannot read: {exc.strerror or exc}")


def _too_large(name: str, size: int) -> InputError:
    limit = MAX_BYTES // 2**20
    return InputError(name, f"too large: {size} bytes (the limit is {limit} MiB)")


def _read_bounded(fd: int, name: str) -> bytes:
    """Read to the end, but never more than ``MAX_BYTES`` (the file may be growing)."""
    chunks: list[bytes] = []
    total = 0
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
        total += len(chunk)
        if total > MAX_BYTES:
            raise _too_large(name, total)
    return b"".join(chunks)


def decode_utf8(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            name,
            f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            line=line,
        ) from None


def read_text(path: str | os.PathLike[str]) -> str:
    """Read ``path`` as UTF-8 without translating line endings."""
    name = os.fspath(path)
    return decode_utf8(read_bytes(name), name)
