"""Byte-exact file reading and atomic writing."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from hooks.errors import CodegenError


def read_text(path: str | os.PathLike[str]) -> str:
    """Read ``path`` as UTF-8 without translating line endings."""
    name = os.fspath(path)
    try:
        data = Path(name).read_bytes()
    except FileNotFoundError:
        raise CodegenError(name, "no such file") from None
    except IsADirectoryError:
        raise CodegenError(name, "is a directory, expected a file") from None
    except OSError as exc:
        raise CodegenError(name, f"cannot read: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise CodegenError(
            name,
            f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            line=line,
        ) from None


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8, no newline translation), keeping its mode.

    The data goes to a temporary file in the same folder which is then renamed over
    the target, so a reader never sees a half-written file.
    """
    target = Path(path)
    try:
        mode: int | None = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=".tmp", dir=target.parent
    )
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
