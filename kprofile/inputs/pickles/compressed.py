"""Compressed pickles, as ``DataFrame.to_pickle`` writes them, known by magic bytes.

gzip, bz2, xz and zstd streams (``.pkl.gz``, ``.pkl.bz2``, ``.pkl.xz``, ``.pkl.zst``,
or the same bytes under a plain ``.pkl`` name) are decompressed in chunks of 1 MiB,
concatenated members and frames included, into one buffer, and refused once the
output passes ``MAX_RATIO`` times the compressed size plus ``RATIO_BASE``, or
``MAX_FILE_BYTES``: a decompression bomb costs at most that much memory (plus one
chunk) and is refused with one line.
zstd needs the standard library's ``compression.zstd`` (Python 3.14) or the
``zstandard`` package; without either it is refused with a line saying so.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zlib
from typing import BinaryIO, cast

from kprofile.inputs.pickles.errors import RefusedPickle

# zstd: the standard library's (Python 3.14), else the optional zstandard package,
# imported here so that reading a file never imports anything.
try:
    from compression import zstd as stdlib_zstd  # type: ignore[import-not-found]
except ImportError:
    stdlib_zstd = None
try:
    import zstandard  # type: ignore[import-not-found, unused-ignore]
except ImportError:
    zstandard = None  # type: ignore[assignment, unused-ignore]

#: The names ``DataFrame.to_pickle`` gives these streams: ``out.pkl.gz``, ...
SUFFIXES = (".gz", ".bz2", ".xz", ".zst")
MAX_FILE_BYTES = 4 * 2**30
MAX_RATIO = 100
RATIO_BASE = 64 * 2**20
CHUNK = 2**20
MAGIC = {
    b"\x1f\x8b": "gzip",
    b"BZh": "bz2",
    b"\xfd7zXZ\x00": "xz",
    b"\x28\xb5\x2f\xfd": "zstd",
}
_ERRORS: tuple[type[Exception], ...] = (
    OSError,
    EOFError,
    ValueError,
    lzma.LZMAError,
    zlib.error,
    *(m.ZstdError for m in (stdlib_zstd, zstandard) if m is not None),
)


def compression_of(data: bytes) -> str | None:
    """The compression ``data`` starts with the magic bytes of, if any (no pickle
    starts with any of them)."""
    return next((name for magic, name in MAGIC.items() if data.startswith(magic)), None)


def decompressed(data: bytes) -> bytes:
    """``data`` itself, or what its compressed stream holds, within the bounds."""
    method = compression_of(data)
    if method is None:
        return data
    limit = min(MAX_FILE_BYTES, MAX_RATIO * len(data) + RATIO_BASE)
    try:
        with _reader(method, io.BytesIO(data)) as reader:
            return _read(reader, method, limit)
    except RefusedPickle:
        raise
    except _ERRORS as exc:
        raise RefusedPickle(f"not a valid {method} stream ({exc})") from None


def _read(reader: BinaryIO, method: str, limit: int) -> bytes:
    """Every chunk appended to one buffer (grown in place, its bytes handed over
    without a copy), refused before the chunk that would pass ``limit`` is kept:
    the peak is the decompressed data, not twice it as a list of chunks joined."""
    out = io.BytesIO()
    total = 0
    while chunk := reader.read(CHUNK):
        total += len(chunk)
        if total > limit:
            raise RefusedPickle(_too_large(method, limit))
        out.write(chunk)
        del chunk
    return out.getvalue()


def _too_large(method: str, limit: int) -> str:
    if limit == MAX_FILE_BYTES:
        return f"refused: {method} data of over {MAX_FILE_BYTES // 2**30} GiB"
    return (
        f"refused: {method} data over {MAX_RATIO}x its compressed size "
        "(a decompression bomb?)"
    )


def _reader(method: str, source: BinaryIO) -> BinaryIO:
    if method == "gzip":
        return cast(BinaryIO, gzip.GzipFile(fileobj=source))
    if method == "bz2":
        return cast(BinaryIO, bz2.BZ2File(source))
    if method == "xz":
        return cast(BinaryIO, lzma.LZMAFile(source))
    return _zstd(source)


def _zstd(source: BinaryIO) -> BinaryIO:
    if stdlib_zstd is not None:
        return cast(BinaryIO, stdlib_zstd.ZstdFile(source))
    if zstandard is None:
        raise RefusedPickle(
            "refused zstd-compressed data: reading it needs Python 3.14 or the "
            "zstandard package (pip install zstandard)"
        )
    decompressor = zstandard.ZstdDecompressor()
    return cast(BinaryIO, decompressor.stream_reader(source, read_across_frames=True))
