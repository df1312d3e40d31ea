"""Decoding a result pickle: scan, unpickle into records, rebuild validated data."""

from __future__ import annotations

import errno
import mmap
import os
import stat
from collections.abc import Collection, Mapping
from types import MappingProxyType
from typing import Any

from kprofile.inputs.pickles import (
    arrays,
    fields,
    frame,
    paths,
    scalars,
    timezones,
    values,
)
from kprofile.inputs.pickles.compressed import (
    MAX_FILE_BYTES,
    compression_of,
    decompressed,
)
from kprofile.inputs.pickles.context import Context, Handler
from kprofile.inputs.pickles.errors import RefusedPickle
from kprofile.inputs.pickles.records import Call
from kprofile.inputs.pickles.unpickler import unpickle

# Private anonymous memory whose pages can be handed back (POSIX; not Windows).
_RELEASES = hasattr(mmap, "MAP_PRIVATE") and hasattr(mmap, "MADV_DONTNEED")
SKIPPED = ("build_df",)  # kbench writes it; kprofile never reads it

HANDLERS: Mapping[str, Handler] = MappingProxyType(
    {
        "pandas.DataFrame": frame.decode_frame,
        "copyreg._reconstructor": frame.decode_frame,
        "datetime.datetime": scalars.datetime_of,
        "datetime.date": scalars.date_of,
        "datetime.time": scalars.time_of,
        "datetime.timedelta": scalars.timedelta_value,
        "datetime.timezone": timezones.fixed_offset,
        "pandas._unpickle_timestamp": scalars.timestamp_of,
        "pandas._timedelta_unpickle": scalars.timedelta_scalar,
        "numpy.scalar": arrays.scalar_value,
        "_codecs.encode": fields.codecs_encode,
        "builtins.bytes": fields.codecs_encode,
        "numpy._reconstruct": arrays.array_value,
        "numpy._frombuffer": arrays.array_value,
        "pathlib.PurePosixPath": paths.path_text,
        "pathlib.PureWindowsPath": paths.path_text,
    }
)


# Handlers whose results are immutable, so one record read many times is decoded once.
SHARED = frozenset(
    {
        "datetime.datetime",
        "datetime.date",
        "datetime.time",
        "datetime.timedelta",
        "datetime.timezone",
        "pandas._unpickle_timestamp",
        "pandas._timedelta_unpickle",
        "numpy.scalar",
        "_codecs.encode",
        "builtins.bytes",
        "pathlib.PurePosixPath",
        "pathlib.PureWindowsPath",
    }
)


def decode_pickle(data: bytes | mmap.mmap, *, skip: Collection[str] = SKIPPED) -> Any:
    """The value a result pickle holds, as plain data and pandas objects.

    A dict (kbench's result) has its ``skip`` keys left out, undecoded; a DataFrame
    alone is returned as one. Raises ``RefusedPickle`` for anything else.
    """
    tree = unpickle(data)
    ctx = Context(data, HANDLERS, SHARED)
    try:
        if isinstance(tree, dict):
            kept = {k: v for k, v in tree.items() if k not in skip}
            return values.decode_value(ctx, kept)
        if isinstance(tree, Call):
            return values.decode_value(ctx, tree)
    except RefusedPickle:
        raise  # a MemoryError too: a table within every bound, too big for this machine
    except (
        ValueError,  # pandas' and numpy's checks of what they are given
        TypeError,
        ArithmeticError,
        LookupError,
        AttributeError,
        RecursionError,
    ) as exc:
        raise RefusedPickle(
            f"refused ({type(exc).__name__} while rebuilding)"
        ) from None
    raise RefusedPickle(f"expected a kbench result dict, got a {type(tree).__name__}")


def read_pickle(path: str | os.PathLike[str]) -> Any:
    """``decode_pickle`` of the file at ``path``, decompressed first if it is gzip,
    bz2, xz or zstd data (see ``compressed``); files over 4 GiB, or that are not
    regular files, are refused before anything is read. An uncompressed file is
    read once into private memory the unpickler hands back as it reads
    (``unpickler``): no one can change what was scanned."""
    with open(path, "rb") as handle:
        status = os.fstat(handle.fileno())
        if not stat.S_ISREG(status.st_mode):
            raise RefusedPickle("refused: not a regular file")
        if status.st_size > MAX_FILE_BYTES:
            raise RefusedPickle(f"refused a file over {MAX_FILE_BYTES // 2**30} GiB")
        if not _RELEASES or not status.st_size:  # no private mappings: in bytes
            data = handle.read(status.st_size + 1)  # + 1: a file still growing
            if len(data) > status.st_size:
                raise RefusedPickle("refused: the file changed while it was read")
            return decode_pickle(decompressed(data))
        buffer = _private(status.st_size)
        try:
            read = handle.readinto(buffer)
            if read != status.st_size or handle.read(1):
                raise RefusedPickle("refused: the file changed while it was read")
        except BaseException:
            buffer.close()
            raise
    with buffer:
        if compression_of(buffer[:16]) is None:
            return decode_pickle(buffer)
        data = buffer[:]
    return decode_pickle(decompressed(data))


_POPULATE = getattr(mmap, "MAP_POPULATE", 0)  # Linux


def _private(size: int) -> mmap.mmap:
    """``size`` bytes of private anonymous memory (out of it: a MemoryError), its
    pages made at once where the system can (``MAP_POPULATE``: one call instead of a
    fault per page as the file is read in; a third to a half of the read's time)."""
    try:
        flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | _POPULATE
        return mmap.mmap(-1, size, flags=flags)
    except OSError as exc:
        if exc.errno == errno.ENOMEM:
            raise MemoryError from None
        raise
