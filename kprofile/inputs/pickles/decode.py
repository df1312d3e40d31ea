"""Decoding a result pickle: scan, unpickle into records, rebuild validated data."""

from __future__ import annotations

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
    decompressing,
)
from kprofile.inputs.pickles.context import Context, Handler
from kprofile.inputs.pickles.errors import RefusedPickle
from kprofile.inputs.pickles.records import Call
from kprofile.inputs.pickles.streamed import Streamed, StreamedFile
from kprofile.inputs.pickles.unpickler import unpickle

# Reading at an offset into a buffer (POSIX; not Windows: there, the file in bytes).
_STREAMS = hasattr(os, "pread") and hasattr(os, "preadv")
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


def decode_pickle(data: bytes | Streamed, *, skip: Collection[str] = SKIPPED) -> Any:
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
    """``decode_pickle`` of the file at ``path``, decompressed as it is read if it
    is gzip, bz2, xz or zstd data (see ``compressed``); files over 4 GiB, or that
    are not regular files, are refused before anything is read. The file is scanned
    and unpickled a piece at a time (``streamed``): each byte read once, what was
    scanned is what is unpickled, and neither the file nor what it decompresses to
    ever all in memory."""
    with open(path, "rb") as handle:
        status = os.fstat(handle.fileno())
        if not stat.S_ISREG(status.st_mode):
            raise RefusedPickle("refused: not a regular file")
        if status.st_size > MAX_FILE_BYTES:
            raise RefusedPickle(f"refused a file over {MAX_FILE_BYTES // 2**30} GiB")
        head = handle.read(16)
        method = compression_of(head)
        if method is not None:
            handle.seek(0)
            with decompressing(handle, method, status.st_size) as stream:
                return decode_pickle(stream)
        if _STREAMS and status.st_size:
            return decode_pickle(StreamedFile(handle.fileno(), status.st_size))
        data = head + handle.read(status.st_size + 1 - len(head))  # + 1: growing
        if len(data) != status.st_size:
            raise RefusedPickle("refused: the file changed while it was read")
    return decode_pickle(data)
