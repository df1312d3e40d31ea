"""Writing the files a mode produces (CSVs, PNGs): all of them, or none.

Every file is first written in full to a temporary file beside its target; only when
all of them are complete are they renamed over their targets. On a failure (folder not
writable, disk full) the temporaries are removed and one clean error names the file,
so a failed run leaves no half-written or 0-byte file behind.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from kprofile.errors import KprofileError

MAX_NAME_BYTES = 255  # a file name, not a path, on every common file system


def write_files(files: Mapping[Path, bytes]) -> list[str]:
    """Write ``files`` (path -> content); return the paths written, in order."""
    temporaries: list[tuple[str, Path]] = []
    current = Path("kprofile")
    try:
        for current, data in files.items():
            temporaries.append((_temporary(current, data), current))
        for temporary, current in temporaries:
            os.replace(temporary, current)
    except OSError as exc:
        _remove_all(temporaries)
        raise KprofileError(
            str(current), f"cannot write: {exc.strerror or exc}"
        ) from None
    except BaseException:
        _remove_all(temporaries)
        raise
    return [str(path) for path in files]


def _remove_all(temporaries: list[tuple[str, Path]]) -> None:
    for temporary, _ in temporaries:
        _remove(temporary)


def _temporary(path: Path, data: bytes) -> str:
    fd, name = tempfile.mkstemp(prefix=f".{path.name[:200]}.", suffix=".tmp",
                                dir=path.parent)  # fmt: skip
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(name, 0o644 & ~_umask())
    except BaseException:
        _remove(name)
        raise
    return name


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _remove(name: str) -> None:
    try:
        os.unlink(name)
    except FileNotFoundError:
        pass


def safe_file_names(labels: list[str], *, suffix: str, fallback: str) -> list[str]:
    """One file name per label: readable, unique, and at most 255 bytes.

    Characters other than letters, digits and ``=._+-`` become ``_``; a name that two
    labels share, or that is too long, gets a short hash of its label.
    """
    import hashlib
    import re

    stems = []
    for label in labels:
        stem = re.sub(r"[^A-Za-z0-9=._+-]+", "_", label)
        stem = re.sub(r"[._]*_[._]*|\.{2,}", "_", stem)  # no "..", no "._."
        stems.append(stem.strip("_.") or fallback)
    folded = [stem.casefold() for stem in stems]  # case-insensitive file systems
    names = []
    for label, stem, key in zip(labels, stems, folded):
        name = stem + suffix
        if folded.count(key) > 1 or len(name.encode()) > MAX_NAME_BYTES:
            digest = hashlib.sha256(label.encode()).hexdigest()[:10]
            room = MAX_NAME_BYTES - len(suffix) - len(digest) - 1
            name = f"{_cut(stem, room)}-{digest}{suffix}"
        names.append(name)
    return _numbered(names, suffix)


def _cut(text: str, size: int) -> str:
    """``text`` cut to at most ``size`` bytes of UTF-8, on a character boundary."""
    return text.encode()[:size].decode(errors="ignore")


def _numbered(names: list[str], suffix: str) -> list[str]:
    """Make a name seen before unique with -2, -3, ... (a label could spell
    another label's hashed name)."""
    used: set[str] = set()
    out = []
    for name in names:
        candidate, n = name, 2
        while candidate.casefold() in used:
            stem = _cut(name.removesuffix(suffix), MAX_NAME_BYTES - len(suffix) - 8)
            candidate, n = f"{stem}-{n}{suffix}", n + 1
        used.add(candidate.casefold())
        out.append(candidate)
    return out
