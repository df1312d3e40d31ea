"""Time zones, rebuilt from names and offsets only.

A zone named in a file is accepted only if it is a plain IANA name (``Europe/Paris``)
that the system's zoneinfo database lists; it is then loaded with ``zoneinfo``. No
path, ``dateutil/`` prefix or ``..`` from the file ever reaches a file-opening call.
Fixed offsets become ``datetime.timezone``. pytz zones (pandas 2 pickles) are rebuilt
from their name as zoneinfo zones.
"""

from __future__ import annotations

import datetime
import functools
import re
import zoneinfo
from typing import Any

from kprofile.inputs.pickles.context import Context, describe
from kprofile.inputs.pickles.errors import RefusedPickle, shown
from kprofile.inputs.pickles.fields import timedelta_of
from kprofile.inputs.pickles.records import Call

_IANA = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]{0,30}(/[A-Za-z0-9_+\-]{1,30}){0,2}")
_UTC_NAMES = frozenset({"UTC", "utc"})


@functools.cache
def _known_zones() -> frozenset[str]:
    """The zone names of the system's database (read once, never from a file)."""
    return frozenset(zoneinfo.available_timezones())


def zone_named(name: Any) -> datetime.tzinfo:
    """The zone called ``name``, if that is a plain IANA name the system knows."""
    if not isinstance(name, str) or not _IANA.fullmatch(name):
        raise RefusedPickle(f"refused time zone {shown(name)}: not an IANA zone name")
    if name in _UTC_NAMES:
        return datetime.UTC
    if name not in _known_zones():
        raise RefusedPickle(f"refused time zone {shown(name)}: unknown on this system")
    return zoneinfo.ZoneInfo(name)


def decode_tz(ctx: Context, value: Any) -> datetime.tzinfo | None:
    """A tz as pandas pickles it: None, a zoneinfo/pytz/fixed-offset record, a name."""
    if value is None:
        return None
    if isinstance(value, str):
        return zone_named(value)
    if isinstance(value, Call) and value.target in _HANDLERS:
        ctx.spend(elements=1)
        return _HANDLERS[value.target](ctx, value)
    raise RefusedPickle(f"refused time zone {describe(value)}")


def _zoneinfo(ctx: Context, call: Call) -> datetime.tzinfo:
    # ZoneInfo._unpickle(key, from_cache)
    if not 1 <= len(call.args) <= 2 or call.kwargs or call.has_state:
        raise RefusedPickle("refused a malformed ZoneInfo")
    return zone_named(call.args[0])


def _pytz(ctx: Context, call: Call) -> datetime.tzinfo:
    # pytz._p(zone, utcoffset, dst, tzname) or pytz._p(zone)
    if not 1 <= len(call.args) <= 4 or call.kwargs or call.has_state:
        raise RefusedPickle("refused a malformed pytz zone")
    return zone_named(call.args[0])


def _pytz_utc(ctx: Context, call: Call) -> datetime.tzinfo:
    if call.args or call.kwargs or call.has_state:
        raise RefusedPickle("refused a malformed pytz UTC")
    return datetime.UTC


def fixed_offset(ctx: Context, call: Call) -> datetime.tzinfo:
    # datetime.timezone(offset) or datetime.timezone(offset, name)
    args = call.args
    if not 1 <= len(args) <= 2 or call.kwargs or call.has_state:
        raise RefusedPickle("refused a malformed datetime.timezone")
    offset = timedelta_of(ctx, args[0])
    try:
        if len(args) == 2:
            if not isinstance(args[1], str) or len(args[1]) > 64:
                raise RefusedPickle("refused a datetime.timezone name")
            return datetime.timezone(offset, args[1])
        return datetime.timezone(offset)
    except ValueError as exc:
        raise RefusedPickle(f"refused datetime.timezone ({exc})") from None


_HANDLERS = {
    "zoneinfo.ZoneInfo._unpickle": _zoneinfo,
    "pytz._p": _pytz,
    "pytz._UTC": _pytz_utc,
    "datetime.timezone": fixed_offset,
}
