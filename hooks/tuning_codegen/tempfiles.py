"""The temporary files of the one writer: their names beside each target, and their
removal once the process that made them is gone (a ``kill -9``)."""

from __future__ import annotations

import hashlib
import os

from tuning_codegen.filenames import os_name

TEMP_MARK = ".tuning-codegen-"
TEMP_SUFFIX = ".tmp"


MAX_NAME_BYTES = 255  # a file name, not a path, on every common file system
# "." + name + TEMP_MARK + a pid of up to 7 digits (Linux's pid_max) + TEMP_SUFFIX
_TEMP_EXTRA = 1 + len(TEMP_MARK) + 7 + len(TEMP_SUFFIX)


def _temp_prefix(name: str) -> str:
    """``.name``, or for a name too long to carry the temporary's suffix, the name
    cut on a character boundary plus a short hash of the whole name."""
    if len(os.fsencode(name)) + _TEMP_EXTRA <= MAX_NAME_BYTES:
        return f".{name}"
    digest = hashlib.sha256(os.fsencode(name)).hexdigest()[:10]
    room = MAX_NAME_BYTES - _TEMP_EXTRA - len(digest) - 1
    cut = os_name(os.fsencode(name)[:room].decode("utf-8", errors="ignore"))
    return f".{cut}~{digest}"


def temporary_path(real: str, pid: int) -> str:
    folder, name = os.path.split(real)
    return os.path.join(folder, f"{_temp_prefix(name)}{TEMP_MARK}{pid}{TEMP_SUFFIX}")


def sync_folders(folders: set[str]) -> None:
    for folder in folders:
        try:
            fd = os.open(folder, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            os.fsync(fd)
        except OSError:
            pass
        finally:
            os.close(fd)


def remove_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return pid > 0
    return True


def remove_stale_temporaries(real_paths: list[str]) -> None:
    """Remove temporaries beside these targets left by processes no longer running."""
    for real in real_paths:
        folder, name = os.path.split(real)
        prefix = f"{_temp_prefix(name)}{TEMP_MARK}"
        try:
            entries = [e.name for e in os.scandir(folder or ".")]
        except OSError:
            continue
        for entry in entries:
            pid = entry[len(prefix) : -len(TEMP_SUFFIX)]
            if not (entry.startswith(prefix) and entry.endswith(TEMP_SUFFIX)):
                continue
            if pid.isascii() and pid.isdigit() and _stale(int(pid)):
                remove_quietly(os.path.join(folder, entry))


def _stale(pid: int) -> bool:
    return pid == os.getpid() or pid <= 0 or not _alive(pid)
