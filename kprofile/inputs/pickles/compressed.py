"""Compressed pickles, as ``DataFrame.to_pickle`` writes them, known by magic bytes.

gzip, bz2, xz and zstd streams (``.pkl.gz``, ``.pkl.bz2``, ``.pkl.xz``, ``.pkl.zst``,
or the same bytes under a plain ``.pkl`` name) are decompressed as the unpickler reads
them, a scanned piece at a time (``streamed.StreamedReader``), concatenated members
and frames included: neither the compressed file nor its decompressed bytes are ever
whole in memory, so a compressed pickle costs what the same pickle uncompressed does,
plus one piece. A stream is refused once it passes ``MAX_RATIO`` times the compressed
size plus ``RATIO_BASE``, or ``MAX_FILE_BYTES``: a decompression bomb is refused with
one line, and the scan bounds what it makes by that many bytes.
zstd needs the standard library's ``compression.zstd`` (Python 3.14) or the
``zstandard`` package; without either it is refused with a line saying so.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import lzma
import zlib
from collections.abc import Iterator
from typing import BinaryIO, cast

from kprofile.inputs.pickles.errors import RefusedPickle
from kprofile.inputs.pickles.streamed import Reader, StreamedReader

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


@contextlib.contextmanager
def decompressing(handle: BinaryIO, method: str, size: int) -> Iterator[StreamedReader]:
    """The pickle in ``handle`` (a file of ``size`` bytes holding a ``method``
    stream, read from its start), decompressed a piece at a time as the unpickler
    reads it (``streamed``), at most ``MAX_RATIO`` times ``size`` plus
    ``RATIO_BASE`` (and ``MAX_FILE_BYTES``) bytes of it."""
    limit = min(MAX_FILE_BYTES, MAX_RATIO * size + RATIO_BASE)
    with _reader(method, handle) as reader:
        yield StreamedReader(
            cast(Reader, reader),
            limit,
            errors=_ERRORS,
            invalid=f"not a valid {method} stream",
            too_large=lambda: _too_large(method, limit),
        )


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
