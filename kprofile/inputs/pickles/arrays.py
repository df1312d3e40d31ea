"""numpy arrays: a dtype of the closed set and a shape that matches the data exactly.

Numeric data is viewed with ``np.frombuffer`` only after ``prod(shape) * itemsize``
equals the number of bytes in the file; object arrays are built from a list of checked
Python values. Arrays have at most two dimensions (a DataFrame block).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from kprofile.inputs.pickles.context import Context, describe
from kprofile.inputs.pickles.dtypes import decode_dtype
from kprofile.inputs.pickles.errors import RefusedPickle
from kprofile.inputs.pickles.fields import raw_bytes
from kprofile.inputs.pickles.objects import Unchecked, object_array
from kprofile.inputs.pickles.records import Call, is_global

ARRAY_TARGETS = ("numpy._reconstruct", "numpy._frombuffer")


def decode_array(
    ctx: Context, value: Any, *, unchecked: Unchecked | None = None
) -> np.ndarray[Any, Any]:
    """An array as numpy pickles it (``_reconstruct`` + BUILD, or ``_frombuffer``).

    ``unchecked``: an object array's elements are left for the caller to validate
    (a StringArray checks each is text), see ``objects.object_array``.
    """
    call = ctx.call(value, *ARRAY_TARGETS)
    ctx.spend(elements=1)
    if call.target == "numpy._frombuffer":
        return _frombuffer(ctx, call)
    return _reconstruct(ctx, call, unchecked)


def array_value(ctx: Context, call: Call) -> np.ndarray[Any, Any]:
    return decode_array(ctx, call)


def _frombuffer(ctx: Context, call: Call) -> np.ndarray[Any, Any]:
    # _frombuffer(buffer, dtype, shape, order): protocol 5, in-band buffers
    if len(call.args) != 4 or call.kwargs or call.has_state:
        raise RefusedPickle("refused a malformed numpy _frombuffer")
    data, dtype, shape, order = call.args
    if order not in ("C", "F"):
        raise RefusedPickle("refused a numpy array of unknown memory order")
    return _numeric(ctx, data, decode_dtype(ctx, dtype), _shape(shape), order)


def _reconstruct(
    ctx: Context, call: Call, unchecked: Unchecked | None
) -> np.ndarray[Any, Any]:
    # _reconstruct(ndarray, (0,), b'b') then BUILD (1, shape, dtype, fortran, data)
    args, state = call.args, call.state
    if len(args) != 3 or not is_global(args[0], "numpy.ndarray") or call.kwargs:
        raise RefusedPickle("refused a numpy array that is not a plain ndarray")
    if not (isinstance(state, tuple) and len(state) == 5 and state[0] == 1):
        raise RefusedPickle("refused a numpy array without a standard state")
    _, shape, dtype_record, fortran, data = state
    if type(fortran) is not bool:
        raise RefusedPickle("refused a numpy array of unknown memory order")
    dtype, dims = decode_dtype(ctx, dtype_record), _shape(shape)
    order = "F" if fortran else "C"
    if dtype.kind == "O":
        return object_array(ctx, data, dims, order, unchecked=unchecked)
    return _numeric(ctx, raw_bytes(ctx, data), dtype, dims, order)


def _shape(value: Any) -> tuple[int, ...]:
    if not isinstance(value, tuple) or len(value) > 2:
        raise RefusedPickle("refused a numpy array of more than two dimensions")
    if not all(type(n) is int and 0 <= n < 2**48 for n in value):
        raise RefusedPickle("refused a numpy array shape")
    return value


def _numeric(
    ctx: Context, data: Any, dtype: np.dtype[Any], shape: tuple[int, ...], order: str
) -> np.ndarray[Any, Any]:
    if dtype.kind == "O":
        raise RefusedPickle("refused an object array given as raw bytes")
    if not isinstance(data, bytes | bytearray):
        raise RefusedPickle(f"refused numpy array data of type {describe(data)}")
    count = math.prod(shape)
    if count * dtype.itemsize != len(data):
        raise RefusedPickle(
            f"refused a numpy array of shape {shape} over {len(data)} bytes"
        )
    ctx.spend(nbytes=len(data))
    flat = np.frombuffer(data, dtype=dtype, count=count)
    if dtype.kind == "b":  # a bool byte other than 0 or 1 is not a bool numpy expects
        flat = flat.view(np.uint8) != 0
    elif not flat.flags.writeable:  # bytes are read-only; pandas expects writable
        flat = flat.copy()
    return flat.reshape(shape, order=order)  # type: ignore[call-overload]


def scalar_value(ctx: Context, call: Call) -> Any:
    """``numpy.core.multiarray.scalar(dtype, bytes)``: one numeric value."""
    if len(call.args) != 2 or call.kwargs or call.has_state:
        raise RefusedPickle("refused a malformed numpy scalar")
    dtype, data = decode_dtype(ctx, call.args[0]), raw_bytes(ctx, call.args[1])
    return _numeric(ctx, data, dtype, (), "C")[()]
