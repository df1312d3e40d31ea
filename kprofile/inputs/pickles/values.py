"""Plain values: metadata, index names, and the elements of object columns.

Only what a kbench result holds is rebuilt: None, bool, bounded int, float, UTF-8
text, bytes, short lists and tuples, dicts with text or integer keys, and the records
the handlers know (dates, timestamps, numpy scalars, frames, arrays).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from kprofile.inputs.pickles.context import MAX_INT_BITS, Context, describe
from kprofile.inputs.pickles.errors import RefusedPickle
from kprofile.inputs.pickles.records import Call, is_global

MAX_SEQUENCE = 10_000  # metadata lists and tuples; arrays have their own path
_SCALARS = (type(None), bool, float)


def decode_value(ctx: Context, value: Any) -> Any:
    """``value`` rebuilt as plain data, or a refusal."""
    ctx.spend(elements=1)
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is int:
        return check_int(value)
    if kind is str:
        return check_text(value)
    if kind is bytes or kind is bytearray:
        ctx.spend(nbytes=len(value))
        return bytes(value)
    if kind is list or kind is tuple:
        return _sequence(ctx, value)
    if kind is dict:
        return _mapping(ctx, value)
    if kind is Call:
        return ctx.handle(value)
    return missing_value(value)


def missing_value(value: Any) -> Any:
    """pandas' NA and NaT, which pickles name as globals; anything else is refused."""
    if is_global(value, "pandas.NA"):
        return pd.NA
    if is_global(value, "pandas.NaT"):
        return pd.NaT
    raise RefusedPickle(f"refused {describe(value)} here: not a result value")


def check_int(value: int) -> int:
    if value.bit_length() > MAX_INT_BITS:
        raise RefusedPickle(f"refused an integer of {value.bit_length()} bits")
    return value


def check_text(value: str) -> str:
    """Text must encode as UTF-8 (no lone surrogates), or printing it would fail."""
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise RefusedPickle("refused text that is not valid UTF-8") from None
    return value


def _sequence(ctx: Context, value: list[Any] | tuple[Any, ...]) -> Any:
    if len(value) > MAX_SEQUENCE:
        raise RefusedPickle(
            f"refused a {type(value).__name__} of {len(value)} items outside a column"
        )
    with ctx.nested():
        items = [decode_value(ctx, item) for item in value]
    return items if type(value) is list else tuple(items)


def _mapping(ctx: Context, value: dict[Any, Any]) -> dict[Any, Any]:
    with ctx.nested():
        decoded: dict[Any, Any] = {}
        for key, item in value.items():
            if type(key) is not str and type(key) is not int:
                raise RefusedPickle(f"refused a dict key of type {describe(key)}")
            decoded[decode_value(ctx, key)] = decode_value(ctx, item)
    return decoded
