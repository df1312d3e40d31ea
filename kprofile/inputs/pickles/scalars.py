"""Dates, times and scalars, rebuilt with public constructors from validated fields.

``datetime`` objects pickle as their packed state bytes; the fields are unpacked here
and handed to ``datetime.datetime(...)``, which checks every range.
"""

from __future__ import annotations

import datetime
from typing import Any

import numpy as np
import pandas as pd

from kprofile.inputs.pickles.context import Context, describe
from kprofile.inputs.pickles.errors import RefusedPickle
from kprofile.inputs.pickles.records import Call
from kprofile.inputs.pickles.timezones import decode_tz

# pandas' NPY_DATETIMEUNIT codes for the resolutions a Timestamp may have.
_RESOLUTIONS = {7: "s", 8: "ms", 9: "us", 10: "ns"}


def raw_bytes(ctx: Context, value: Any) -> bytes | bytearray:
    """Bytes as pickles write them: bytes, or ``_codecs.encode(text, 'latin1')`` in
    protocols 0-2."""
    if isinstance(value, bytes | bytearray):
        return value
    return codecs_encode(ctx, ctx.call(value, "_codecs.encode", "builtins.bytes"))


def _plain(call: Call, lengths: tuple[int, ...]) -> tuple[Any, ...]:
    if len(call.args) not in lengths or call.kwargs or call.has_state:
        raise RefusedPickle(f"refused a malformed {call.target}")
    return call.args


def _ints(values: tuple[Any, ...], what: str) -> tuple[int, ...]:
    if not all(type(v) is int and abs(v) < 2**63 for v in values):
        raise RefusedPickle(f"refused {what}: fields are not small integers")
    return tuple(values)


def _build(factory: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return factory(*args, **kwargs)
    except (ValueError, OverflowError, TypeError) as exc:
        raise RefusedPickle(f"refused a date or time ({exc})") from None


def datetime_of(ctx: Context, call: Call) -> datetime.datetime:
    args = _plain(call, (1, 2))
    state = args[0]
    raw = raw_bytes(ctx, state)
    if len(raw) != 10:
        raise RefusedPickle("refused a malformed datetime")
    tz = decode_tz(ctx, args[1]) if len(args) == 2 else None
    year, month = raw[0] * 256 + raw[1], raw[2]
    micro = int.from_bytes(raw[7:10], "big")
    return _build(
        datetime.datetime, year, month & 0x7F, raw[3], raw[4], raw[5], raw[6], micro,
        tzinfo=tz, fold=month >> 7,
    )  # fmt: skip


def date_of(ctx: Context, call: Call) -> datetime.date:
    (state,) = _plain(call, (1,))
    raw = raw_bytes(ctx, state)
    if len(raw) != 4:
        raise RefusedPickle("refused a malformed date")
    return _build(datetime.date, raw[0] * 256 + raw[1], raw[2], raw[3])


def time_of(ctx: Context, call: Call) -> datetime.time:
    args = _plain(call, (1, 2))
    state = args[0]
    raw = raw_bytes(ctx, state)
    if len(raw) != 6:
        raise RefusedPickle("refused a malformed time")
    tz = decode_tz(ctx, args[1]) if len(args) == 2 else None
    micro = int.from_bytes(raw[3:6], "big")
    return _build(
        datetime.time, raw[0] & 0x7F, raw[1], raw[2], micro, tzinfo=tz,
        fold=raw[0] >> 7,
    )  # fmt: skip


def timedelta_of(ctx: Context, value: Any) -> datetime.timedelta:
    call = ctx.call(value, "datetime.timedelta")
    days, seconds, micros = _ints(_plain(call, (3,)), "a timedelta")
    return _build(datetime.timedelta, days, seconds, micros)


def timedelta_value(ctx: Context, call: Call) -> datetime.timedelta:
    return timedelta_of(ctx, call)


def timestamp_of(ctx: Context, call: Call) -> pd.Timestamp:
    # _unpickle_timestamp(value, freq, tz, reso); pandas 1.x wrote (value, freq, tz)
    args = _plain(call, (3, 4))
    reso = args[3] if len(args) == 4 else 10
    (value,) = _ints(args[:1], "a Timestamp")
    if args[1] is not None or reso not in _RESOLUTIONS:
        raise RefusedPickle("refused a Timestamp with a frequency or unknown unit")
    tz = decode_tz(ctx, args[2])
    unit: Any = _RESOLUTIONS[reso]
    stamp = _build(pd.Timestamp, np.datetime64(value, unit))
    return stamp if tz is None else stamp.tz_localize("UTC").tz_convert(tz)


def codecs_encode(ctx: Context, call: Call) -> bytes:
    """``_codecs.encode(text, 'latin1')``: how protocol 0-2 pickles write bytes
    (``bytes()`` for empty ones)."""
    if call.target == "builtins.bytes":
        _plain(call, (0,))
        return b""
    args = _plain(call, (1, 2))
    text = args[0]
    encoding = args[1] if len(args) == 2 else "utf-8"
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise RefusedPickle(f"refused _codecs.encode of {describe(text)}")
    ctx.spend(nbytes=len(text))
    try:
        return text.encode("latin-1")
    except UnicodeEncodeError:
        raise RefusedPickle("refused _codecs.encode: not latin-1 text") from None


def timedelta_scalar(ctx: Context, call: Call) -> pd.Timedelta:
    """``_timedelta_unpickle(value, reso)``: a pandas Timedelta."""
    value, reso = _ints(_plain(call, (2,)), "a Timedelta")
    if reso not in _RESOLUTIONS:
        raise RefusedPickle("refused a Timedelta of an unknown unit")
    unit: Any = _RESOLUTIONS[reso]
    return _build(pd.Timedelta, np.timedelta64(value, unit))
