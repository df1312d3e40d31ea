"""numpy dtypes from a closed set, built here from their recorded description.

A pickled ``numpy.dtype`` carries a state tuple (byte order, fields, flags, ...) that
numpy would trust; a forged one can declare object fields over raw bytes. Here only the
type code, the byte order and a datetime unit are read, each checked against a closed
set, and the dtype is built from a string this module writes. Anything with fields,
sub-arrays or a non-default size is refused.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from kprofile.inputs.pickles.context import Context
from kprofile.inputs.pickles.errors import RefusedPickle, shown
from kprofile.inputs.pickles.fields import raw_bytes

_CODE = re.compile(r"(b1|[iu][1248]|f[248]|[Mm]8|O[48])")
_UNITS = frozenset({"Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns"})
_ORDERS = {"<": "<", ">": ">", "|": "|", "=": "="}


def decode_dtype(ctx: Context, value: Any) -> np.dtype[Any]:
    """``numpy.dtype(code, align, copy)`` + BUILD state, as a dtype of the set."""
    call = ctx.call(value, "numpy.dtype")
    ctx.spend(elements=1)
    args = call.args
    if len(args) != 3 or call.kwargs or not isinstance(args[0], str):
        raise RefusedPickle("refused a malformed numpy dtype")
    code = args[0]
    if not _CODE.fullmatch(code):
        raise RefusedPickle(f"refused numpy dtype {shown(code)}: not a supported type")
    order, unit = _state(ctx, call.state, code)
    if code[0] == "O":
        return np.dtype(object)
    text = f"{order}{code}" + (f"[{unit}]" if unit else "")
    return np.dtype(text)


def _state(ctx: Context, state: Any, code: str) -> tuple[str, str | None]:
    """Byte order and datetime unit from (version, order, subarray, names, fields,
    elsize, alignment, flags[, metadata]); every other field must be its default."""
    if not isinstance(state, tuple) or len(state) not in (8, 9):
        raise RefusedPickle("refused a numpy dtype without a standard state")
    version, order, subarray, names, fields, elsize, alignment = state[:7]
    if version not in (3, 4) or order not in _ORDERS:
        raise RefusedPickle("refused a numpy dtype of unknown layout")
    if subarray is not None or names is not None or fields is not None:
        raise RefusedPickle("refused a numpy dtype with fields or sub-arrays")
    if elsize != -1 or alignment != -1 or type(state[7]) is not int:
        raise RefusedPickle("refused a numpy dtype with a custom size or alignment")
    if code[0] not in "Mm":
        if len(state) == 9 and state[8] is not None:
            raise RefusedPickle("refused a numpy dtype with metadata")
        return _ORDERS[order], None
    return _ORDERS[order], _unit(ctx, state[8] if len(state) == 9 else None)


def _unit(ctx: Context, metadata: Any) -> str:
    # (metadata dict or None, (unit bytes, multiplier, 1, 1))
    if not (isinstance(metadata, tuple) and len(metadata) == 2):
        raise RefusedPickle("refused a datetime64 dtype without a unit")
    extra, info = metadata
    if extra not in (None, {}) or not (isinstance(info, tuple) and len(info) == 4):
        raise RefusedPickle("refused a datetime64 dtype with metadata")
    unit, count = info[0], info[1]
    if not isinstance(unit, str):
        unit = bytes(raw_bytes(ctx, unit)).decode("ascii", "replace")
    if unit not in _UNITS or count != 1 or info[2:] != (1, 1):
        raise RefusedPickle(f"refused datetime64 unit {shown(unit)}")
    return str(unit)
