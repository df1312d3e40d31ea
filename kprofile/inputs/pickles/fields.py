"""The fields records are built from: bytes, small integers and time offsets.

Dates, zones, dtypes and arrays all start from these, so they live below every one of
them: ``raw_bytes`` (bytes as each protocol writes them), ``plain`` (a call's
arguments, checked for count), ``small_ints`` and ``timedelta_of``.
"""

from __future__ import annotations

import datetime
from typing import Any

from kprofile.inputs.pickles.context import Context, describe
from kprofile.inputs.pickles.errors import RefusedPickle
from kprofile.inputs.pickles.records import Call

MAX_BYTEARRAY_TEXT = 2**32  # protocol 0-2 bytearrays as latin-1 text


def raw_bytes(ctx: Context, value: Any) -> bytes | bytearray:
    """Bytes as pickles write them: bytes or bytearray, ``_codecs.encode(text,
    'latin1')`` (protocols 0-2) or ``bytearray(bytes)`` (protocols 3-4)."""
    if isinstance(value, bytes | bytearray):
        return value
    call = ctx.call(value, "_codecs.encode", "builtins.bytes", "builtins.bytearray")
    if call.target == "builtins.bytearray":
        return _bytearray(ctx, call)
    return codecs_encode(ctx, call)


def _bytearray(ctx: Context, call: Call) -> bytes | bytearray:
    # bytearray(bytes) in protocols 3-4; in 0-2, bytearray(text, 'latin-1') or
    # (pyarrow's buffers) bytearray(_codecs.encode(text, 'latin1'))
    args = plain(call, (0, 1, 2))
    if not args:
        return b""
    if len(args) == 1 and isinstance(args[0], bytes):
        return args[0]
    if len(args) == 1 and isinstance(args[0], Call):
        return codecs_encode(ctx, ctx.call(args[0], "_codecs.encode", "builtins.bytes"))
    if len(args) == 2 and isinstance(args[0], str) and args[1] in ("latin1", "latin-1"):
        return _latin1(ctx, args[0])
    raise RefusedPickle("refused a malformed bytearray")


def codecs_encode(ctx: Context, call: Call) -> bytes:
    """``_codecs.encode(text, 'latin1')``: how protocol 0-2 pickles write bytes
    (``bytes()`` for empty ones)."""
    if call.target == "builtins.bytes":
        plain(call, (0,))
        return b""
    args = plain(call, (1, 2))
    text = args[0]
    encoding = args[1] if len(args) == 2 else "utf-8"
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise RefusedPickle(f"refused _codecs.encode of {describe(text)}")
    return _latin1(ctx, text)


def _latin1(ctx: Context, text: str) -> bytes:
    ctx.spend(nbytes=len(text))
    try:
        return text.encode("latin-1")
    except UnicodeEncodeError:
        raise RefusedPickle("refused _codecs.encode: not latin-1 text") from None


def plain(call: Call, lengths: tuple[int, ...]) -> tuple[Any, ...]:
    """The arguments of ``call``, if it has one of ``lengths`` and nothing else."""
    if len(call.args) not in lengths or call.kwargs or call.has_state:
        raise RefusedPickle(f"refused a malformed {call.target}")
    return call.args


def small_ints(values: tuple[Any, ...], what: str) -> tuple[int, ...]:
    if not all(type(v) is int and abs(v) < 2**63 for v in values):
        raise RefusedPickle(f"refused {what}: fields are not small integers")
    return tuple(values)


def built(factory: Any, *args: Any, **kwargs: Any) -> Any:
    """``factory(*args, **kwargs)`` for a date or time; its range checks refuse."""
    try:
        return factory(*args, **kwargs)
    except (ValueError, OverflowError, TypeError) as exc:
        raise RefusedPickle(f"refused a date or time ({exc})") from None


def timedelta_of(ctx: Context, value: Any) -> datetime.timedelta:
    """``datetime.timedelta(days, seconds, microseconds)``."""
    call = ctx.call(value, "datetime.timedelta")
    days, seconds, micros = small_ints(plain(call, (3,)), "a timedelta")
    return built(datetime.timedelta, days, seconds, micros)
