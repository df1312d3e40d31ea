"""Dates, times and scalars, rebuilt with public constructors from validated fields.

``datetime`` objects pickle as their packed state bytes; the fields are unpacked here
and handed to ``datetime.datetime(...)``, which checks every range.
"""

from __future__ import annotations

import datetime
from typing import Any

import numpy as np
import pandas as pd

from kprofile.inputs.pickles.context import Context
from kprofile.inputs.pickles.errors import RefusedPickle
from kprofile.inputs.pickles.fields import (
    built,
    plain,
    raw_bytes,
    small_ints,
    timedelta_of,
)
from kprofile.inputs.pickles.records import Call
from kprofile.inputs.pickles.timezones import decode_tz

# pandas' NPY_DATETIMEUNIT codes for the resolutions a Timestamp may have.
_RESOLUTIONS = {7: "s", 8: "ms", 9: "us", 10: "ns"}


def datetime_of(ctx: Context, call: Call) -> datetime.datetime:
    args = plain(call, (1, 2))
    state = args[0]
    raw = raw_bytes(ctx, state)
    if len(raw) != 10:
        raise RefusedPickle("refused a malformed datetime")
    tz = decode_tz(ctx, args[1]) if len(args) == 2 else None
    year, month = raw[0] * 256 + raw[1], raw[2]
    micro = int.from_bytes(raw[7:10], "big")
    return built(
        datetime.datetime, year, month & 0x7F, raw[3], raw[4], raw[5], raw[6], micro,
        tzinfo=tz, fold=month >> 7,
    )  # fmt: skip


def date_of(ctx: Context, call: Call) -> datetime.date:
    (state,) = plain(call, (1,))
    raw = raw_bytes(ctx, state)
    if len(raw) != 4:
        raise RefusedPickle("refused a malformed date")
    return built(datetime.date, raw[0] * 256 + raw[1], raw[2], raw[3])


def time_of(ctx: Context, call: Call) -> datetime.time:
    args = plain(call, (1, 2))
    state = args[0]
    raw = raw_bytes(ctx, state)
    if len(raw) != 6:
        raise RefusedPickle("refused a malformed time")
    tz = decode_tz(ctx, args[1]) if len(args) == 2 else None
    micro = int.from_bytes(raw[3:6], "big")
    return built(
        datetime.time, raw[0] & 0x7F, raw[1], raw[2], micro, tzinfo=tz,
        fold=raw[0] >> 7,
    )  # fmt: skip


def timedelta_value(ctx: Context, call: Call) -> datetime.timedelta:
    return timedelta_of(ctx, call)


def timestamp_of(ctx: Context, call: Call) -> pd.Timestamp:
    # _unpickle_timestamp(value, freq, tz, reso); pandas 1.x wrote (value, freq, tz)
    args = plain(call, (3, 4))
    reso = args[3] if len(args) == 4 else 10
    (value,) = small_ints(args[:1], "a Timestamp")
    if args[1] is not None or reso not in _RESOLUTIONS:
        raise RefusedPickle("refused a Timestamp with a frequency or unknown unit")
    tz = decode_tz(ctx, args[2])
    unit: Any = _RESOLUTIONS[reso]
    stamp = built(pd.Timestamp, np.datetime64(value, unit))
    return stamp if tz is None else stamp.tz_localize("UTC").tz_convert(tz)


def timedelta_scalar(ctx: Context, call: Call) -> pd.Timedelta:
    """``_timedelta_unpickle(value, reso)``: a pandas Timedelta."""
    value, reso = small_ints(plain(call, (2,)), "a Timedelta")
    if reso not in _RESOLUTIONS:
        raise RefusedPickle("refused a Timedelta of an unknown unit")
    unit: Any = _RESOLUTIONS[reso]
    return built(pd.Timedelta, np.timedelta64(value, unit))
