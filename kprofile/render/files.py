"""Writing the files a mode produces (CSVs, PNGs): all of them, or none.

Through the code generator's one writer (``tuning_codegen.transaction.write_atomic``):
every file is written in full beside its target and renamed only when all are
complete; a rename failing midway puts back the files already replaced. A failed run
leaves no half-written or 0-byte file behind, and one clean error names the file.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from pathlib import Path

from tuning_codegen.transaction import MAX_NAME_BYTES, write_atomic


def write_files(files: Mapping[Path, bytes]) -> list[str]:
    """Write ``files`` (path -> content); return the paths written, in order."""
    return write_atomic(list(files.items()))


def safe_file_names(labels: list[str], *, suffix: str, fallback: str) -> list[str]:
    """One file name per label: readable, unique, and at most 255 bytes.

    Characters other than letters, digits and ``=._+-`` become ``_``; a name that two
    labels share, or that is too long, gets a short hash of its label.
    """
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
