"""Object arrays: a list of checked Python values, never pointers read from bytes.

Elements may be text, bounded integers, floats, booleans, None, the records of
pandas' NA/NaT and timestamps, and tuples of at most 64 of these. A column of a million
strings is checked in bulk (the set of element types, then the text in chunks) so it
costs little next to reading it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from kprofile.inputs.pickles.context import Context, describe
from kprofile.inputs.pickles.errors import RefusedPickle
from kprofile.inputs.pickles.records import Call
from kprofile.inputs.pickles.values import (
    check_int,
    check_text,
    decode_value,
    missing_value,
)

_PLAIN = frozenset({str, float, bool, type(None), int})
CELL_TARGETS = frozenset(
    {
        "pandas._unpickle_timestamp",
        "pandas._timedelta_unpickle",
        "datetime.datetime",
        "datetime.date",
        "datetime.time",
        "datetime.timedelta",
        "numpy.scalar",
    }
)
_CHUNK = 4096
MAX_TUPLE = 64


@dataclass
class Unchecked:
    """Asks ``object_array`` to leave an array whose every element is ASCII text
    unchecked (the caller checks the elements itself), and says whether it was
    (``all_text``: every element an ``str``, no missing value among them)."""

    all_text: bool = False


def object_array(
    ctx: Context,
    data: Any,
    shape: tuple[int, ...],
    order: str,
    *,
    unchecked: Unchecked | None,
) -> np.ndarray[Any, Any]:
    """An object array of ``shape`` from the list numpy pickles for it.

    ``unchecked`` skips the element checks (and their element budget) when every
    element is ASCII text, and records that it did; the caller validates such
    elements itself.
    """
    if type(data) is not list:
        raise RefusedPickle(f"refused object array data of type {describe(data)}")
    count = math.prod(shape)
    if len(data) != count:
        raise RefusedPickle(
            f"refused an object array of shape {shape} with {len(data)} items"
        )
    if unchecked is not None and _all_ascii_text(data):
        ctx.spend(nbytes=8 * count)
        unchecked.all_text = True
        values = data
    else:
        ctx.spend(elements=count, nbytes=8 * count)
        values = checked_objects(ctx, data)
    array = np.fromiter(values, dtype=object, count=count)
    return array.reshape(shape, order=order)  # type: ignore[call-overload]


def checked_objects(ctx: Context, items: list[Any]) -> list[Any]:
    """``items`` with every element checked, records decoded; refused otherwise."""
    kinds = set(map(type, items))
    if kinds <= _PLAIN:
        if str in kinds:
            _check_texts(
                [v for v in items if type(v) is str] if len(kinds) > 1 else items
            )
        if int in kinds:
            for value in items:
                if type(value) is int:
                    check_int(value)
        return items
    with ctx.nested():
        return [_element(ctx, value) for value in items]


def _element(ctx: Context, value: Any) -> Any:
    """One cell: a plain value, NA/NaT, a timestamp, date, time or numpy scalar, or a
    short tuple of cells (a shape)."""
    if type(value) in _PLAIN:
        return decode_value(ctx, value)
    if isinstance(value, type):
        return missing_value(value)
    if isinstance(value, Call) and value.target in CELL_TARGETS:
        return ctx.handle(value)
    if type(value) is tuple and len(value) <= MAX_TUPLE:
        ctx.spend(elements=len(value))
        with ctx.nested():
            return tuple([_element(ctx, item) for item in value])
    raise RefusedPickle(f"refused {describe(value)} in an object column")


def _all_ascii_text(items: list[Any]) -> bool:
    """Whether every item is ASCII text (``isascii`` reads a flag, scans nothing).
    A column of one object repeated (kbench's ``name``, its filter) is seen to be
    one by identity, which ``count`` tests before comparing, and checked once."""
    first = items[0] if items else None
    if type(first) is str and items[-1] is first and items.count(first) == len(items):
        return first.isascii()  # every item is this string, or one equal to it
    try:
        return all(map(str.isascii, items))
    except TypeError:  # not all text
        return False


def _check_texts(texts: list[str]) -> None:
    """Refuse lone surrogates in bulk: join chunks, check those not ASCII."""
    if _all_ascii_text(texts):
        return
    for start in range(0, len(texts), _CHUNK):
        joined = "".join(texts[start : start + _CHUNK])
        if not joined.isascii():
            check_text(joined)
