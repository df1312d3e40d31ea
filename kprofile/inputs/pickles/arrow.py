"""pyarrow arrays, rebuilt from their buffers with numpy: pyarrow is never imported.

pyarrow pickles an ``Array`` as ``_restore_array((type, length, null_count, offset,
buffers, children, dictionary))`` with the type as ``type_for_alias(name)`` and each
buffer as ``py_buffer(bytes)`` or None, and a ``ChunkedArray`` as
``chunked_array([arrays], type)``. Only flat types are read: ``bool``, the integers,
``float``/``double``, and UTF-8 ``string``/``large_string``. Before any byte is read,
every length and offset is checked against the buffer it indexes: a validity bitmap
(and bool data) needs ``ceil((offset + length) / 8)`` bytes, numbers ``(offset +
length) * width``, string offsets ``(offset + length + 1) * width``, and the offsets
must rise from 0 or more to at most the size of the data. Text must be UTF-8, and the
null count must agree with the bitmap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from kprofile.inputs.pickles.context import Context
from kprofile.inputs.pickles.errors import RefusedPickle, shown
from kprofile.inputs.pickles.fields import plain, raw_bytes
from kprofile.inputs.pickles.records import Call

ARROW_ARRAYS = ("pyarrow._restore_array", "pyarrow.chunked_array")
NUMBERS = {
    **{f"int{8 * n}": f"<i{n}" for n in (1, 2, 4, 8)},
    **{f"uint{8 * n}": f"<u{n}" for n in (1, 2, 4, 8)},
    "float": "<f4",
    "double": "<f8",
}
TEXT = {"string": "<i4", "utf8": "<i4", "large_string": "<i8", "large_utf8": "<i8"}
TYPES = frozenset({"bool", *NUMBERS, *TEXT})
MAX_LENGTH = 2**40
MAX_CHUNKS = 100_000
_STR_BYTES = 56  # a Python str object and its list slot, besides its text


@dataclass(frozen=True)
class ArrowColumn:
    """One pyarrow array as numpy: ``values`` (numbers, bools, or an object array of
    str with None where missing) and ``valid`` (False where missing; None: all
    present). ``type`` is the pyarrow type's name."""

    type: str
    values: np.ndarray[Any, Any]
    valid: np.ndarray[Any, Any] | None

    @property
    def is_text(self) -> bool:
        return self.type in TEXT


def arrow_type(ctx: Context, value: Any) -> str:
    """``type_for_alias(name)``: the name of one of the flat types this reads."""
    (name,) = plain(ctx.call(value, "pyarrow.type_for_alias"), (1,))
    if name not in TYPES:
        raise RefusedPickle(f"refused pyarrow type {shown(name)}: not a flat type")
    return str(name)


def arrow_column(ctx: Context, value: Any) -> ArrowColumn:
    """A pyarrow ``Array`` or ``ChunkedArray`` record as an ``ArrowColumn``."""
    call = ctx.call(value, *ARROW_ARRAYS)
    ctx.spend(elements=1)
    if call.target == "pyarrow.chunked_array":
        return _chunked(ctx, call)
    (data,) = plain(call, (1,))
    return _array(ctx, data)


def _chunked(ctx: Context, call: Call) -> ArrowColumn:
    chunks, type_record = plain(call, (2,))
    name = arrow_type(ctx, type_record)
    if type(chunks) is not list or len(chunks) > MAX_CHUNKS:
        raise RefusedPickle("refused a pyarrow chunked array of unknown layout")
    parts = []
    for chunk in chunks:
        (data,) = plain(ctx.call(chunk, "pyarrow._restore_array"), (1,))
        part = _array(ctx, data)
        if part.type != name:
            raise RefusedPickle("refused a pyarrow chunk of another type")
        parts.append(part)
    if not parts:
        return _array(ctx, (type_record, 0, 0, 0, _empty(name), [], None))
    values = np.concatenate([p.values for p in parts])
    if all(p.valid is None for p in parts):
        return ArrowColumn(name, values, None)
    valid = np.concatenate(
        [np.ones(len(p.values), bool) if p.valid is None else p.valid for p in parts]
    )
    return ArrowColumn(name, values, valid)


def _empty(name: str) -> list[Any]:
    return [None, None, None] if name in TEXT else [None, None]


def _array(ctx: Context, data: Any) -> ArrowColumn:
    """(type, length, null_count, offset, buffers, children, dictionary)."""
    if type(data) is not tuple or len(data) != 7:
        raise RefusedPickle("refused a pyarrow array of unknown layout")
    type_record, length, nulls, offset, buffers, children, dictionary = data
    name = arrow_type(ctx, type_record)
    if not all(type(v) is int for v in (length, nulls, offset)):
        raise RefusedPickle("refused a pyarrow array whose sizes are not integers")
    if not (0 <= length <= MAX_LENGTH and 0 <= offset <= MAX_LENGTH):
        raise RefusedPickle(
            f"refused a pyarrow array of length {length} at offset {offset}"
        )
    if not -1 <= nulls <= length:
        raise RefusedPickle(f"refused a pyarrow array of {nulls} nulls in {length}")
    if children != [] or dictionary is not None:
        raise RefusedPickle("refused a pyarrow array with children or a dictionary")
    if type(buffers) is not list or len(buffers) != len(_empty(name)):
        raise RefusedPickle(f"refused a pyarrow {name} array of unknown buffers")
    raw = [None if b is None else _buffer(ctx, b) for b in buffers]
    if length == 0:  # pyarrow may write no buffers at all
        empty = np.empty(0, dtype=object if name in TEXT else NUMBERS.get(name, bool))
        return ArrowColumn(name, empty, None)
    valid = _validity(ctx, raw[0], offset, length, nulls)
    if name == "bool":
        values = _bits(ctx, raw[1], offset, length, "data")
    elif name in NUMBERS:
        values = _numbers(ctx, raw[1], np.dtype(NUMBERS[name]), offset, length)
    else:
        values = _texts(ctx, raw, np.dtype(TEXT[name]), offset, length, valid)
    return ArrowColumn(name, values, valid)


def _buffer(ctx: Context, value: Any) -> bytes | bytearray:
    (data,) = plain(ctx.call(value, "pyarrow.py_buffer"), (1,))
    return raw_bytes(ctx, data)


def _validity(
    ctx: Context, bitmap: bytes | bytearray | None, offset: int, length: int, nulls: int
) -> np.ndarray[Any, Any] | None:
    """False where a value is missing; None when none is."""
    if bitmap is None:
        if nulls > 0:
            raise RefusedPickle("refused a pyarrow array of nulls without a bitmap")
        return None
    valid = _bits(ctx, bitmap, offset, length, "validity")
    missing = length - int(np.count_nonzero(valid))
    if nulls != -1 and missing != nulls:
        raise RefusedPickle(
            f"refused a pyarrow array of {nulls} nulls whose bitmap has {missing}"
        )
    return valid if missing else None


def _bits(
    ctx: Context, data: bytes | bytearray | None, offset: int, length: int, what: str
) -> np.ndarray[Any, Any]:
    needed = (offset + length + 7) // 8
    _fits(data, needed, what)
    ctx.spend(nbytes=8 * needed)
    packed = np.frombuffer(data, dtype=np.uint8, count=needed)  # type: ignore[arg-type]
    return np.unpackbits(packed, bitorder="little")[offset : offset + length] != 0


def _numbers(
    ctx: Context,
    data: bytes | bytearray | None,
    dtype: np.dtype[Any],
    offset: int,
    length: int,
) -> np.ndarray[Any, Any]:
    _fits(data, (offset + length) * dtype.itemsize, "data")
    ctx.spend(nbytes=length * dtype.itemsize)
    found = np.frombuffer(
        data,  # type: ignore[arg-type]
        dtype=dtype,
        count=length,
        offset=offset * dtype.itemsize,
    )
    return found.astype(dtype.newbyteorder("="))  # a writable copy, native order


def _texts(
    ctx: Context,
    raw: list[bytes | bytearray | None],
    width: np.dtype[Any],
    offset: int,
    length: int,
    valid: np.ndarray[Any, Any] | None,
) -> np.ndarray[Any, Any]:
    """The strings between consecutive offsets, None where missing."""
    data = raw[2] if raw[2] is not None else b""
    _fits(raw[1], (offset + length + 1) * width.itemsize, "offsets")
    bounds = np.frombuffer(
        raw[1],  # type: ignore[arg-type]
        dtype=width,
        count=length + 1,
        offset=offset * width.itemsize,
    ).astype(np.int64)
    first, last = int(bounds[0]), int(bounds[-1])
    if first < 0 or last > len(data) or bool((np.diff(bounds) < 0).any()):
        raise RefusedPickle(
            f"refused pyarrow string offsets outside {len(data)} bytes of text"
        )
    ctx.spend(elements=length, nbytes=_STR_BYTES * length + 4 * (last - first))
    texts = _split(bytes(data[first:last]), (bounds - first).tolist())
    array = np.empty(length, dtype=object)
    array[:] = texts
    if valid is not None:
        array[~valid] = None
    return array


def _split(region: bytes, bounds: list[int]) -> list[str]:
    """``region`` cut at ``bounds``, each piece decoded as UTF-8 (strictly)."""
    starts, ends = bounds[:-1], bounds[1:]
    if region.isascii():
        text = region.decode("ascii")
        return [text[a:b] for a, b in zip(starts, ends)]
    try:
        return [region[a:b].decode("utf-8") for a, b in zip(starts, ends)]
    except UnicodeDecodeError:
        raise RefusedPickle("refused pyarrow text that is not valid UTF-8") from None


def _fits(data: bytes | bytearray | None, needed: int, what: str) -> None:
    if data is None or len(data) < needed:
        size = "no" if data is None else f"{len(data)} bytes of"
        raise RefusedPickle(
            f"refused a pyarrow array: {needed} bytes of {what} needed, {size} buffer"
        )
