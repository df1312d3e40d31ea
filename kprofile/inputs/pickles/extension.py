"""pandas extension arrays, rebuilt by public constructors from validated arrays.

``StringArray``, ``DatetimeArray`` and ``TimedeltaArray`` pickle as an
``NDArrayBacked`` record whose state holds a dtype and a numpy array; the masked arrays
(``Int64``, ``boolean``, ``Float64``...) as a record whose state holds ``_data`` and
``_mask``; the pyarrow-backed ``ArrowStringArray`` and ``ArrowExtensionArray`` as a
record whose state holds a pyarrow array (rebuilt by ``arrow``) and a dtype. Each
becomes a list of one-dimensional columns (two-dimensional backing arrays hold one row
per column of the block): pyarrow-backed strings as python-storage strings with the
same missing value, pyarrow numbers and booleans as pandas' masked arrays. Categoricals
(whose categories are an index) are the next layer up, ``categorical``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from kprofile.inputs.pickles.arrays import ARRAY_TARGETS, decode_array
from kprofile.inputs.pickles.arrow import ArrowColumn, arrow_column
from kprofile.inputs.pickles.context import Context, describe
from kprofile.inputs.pickles.dtypes import decode_dtype
from kprofile.inputs.pickles.errors import RefusedPickle, shown
from kprofile.inputs.pickles.objects import Unchecked
from kprofile.inputs.pickles.records import Call, instance_of, is_global
from kprofile.inputs.pickles.typed import arrow_dtype, datetime_dtype, string_dtype

MASKED = {
    "pandas.IntegerArray": ("iu", pd.arrays.IntegerArray),
    "pandas.FloatingArray": ("f", pd.arrays.FloatingArray),
    "pandas.BooleanArray": ("b", pd.arrays.BooleanArray),
}
ARROW = ("pandas.ArrowStringArray", "pandas.ArrowExtensionArray")
BACKED = {
    "pandas.Categorical": "iu",
    "pandas.StringArray": "O",
    "pandas.DatetimeArray": "M",
    "pandas.TimedeltaArray": "m",
}


MAX_COLUMNS = 10_000  # a kbench frame has about a dozen


def rows(array: np.ndarray[Any, Any]) -> list[np.ndarray[Any, Any]]:
    """The columns a (columns, rows) block array holds; a 1-D array is one column."""
    if array.ndim == 1:
        return [array]
    if array.shape[0] > MAX_COLUMNS:  # an empty (2**40, 0) array is a few bytes
        raise RefusedPickle(f"refused a block of {array.shape[0]} columns")
    return list(array)


def decode_columns(ctx: Context, value: Any) -> list[Any]:
    """The block values of ``value`` as one-dimensional columns."""
    if isinstance(value, Call) and value.target in ARRAY_TARGETS:
        array = decode_array(ctx, value)
        if array.ndim != 2:
            raise RefusedPickle("refused a numpy block that is not two-dimensional")
        return rows(array)
    call = ctx.call(
        value, "pandas.NDArrayBacked", "copyreg._reconstructor", *MASKED, *ARROW
    )
    ctx.spend(elements=1)
    if call.target == "pandas.NDArrayBacked":
        return _backed(ctx, call)
    target = instance_of(call)
    if target in ARROW:
        return [_arrow(ctx, target, call.state)]
    return _masked(ctx, target, call)


def backed_parts(ctx: Context, call: Call) -> tuple[str, Any, Any]:
    """An ``NDArrayBacked`` record's kind, dtype record and values record."""
    # __pyx_unpickle_NDArrayBacked(cls, checksum, None) + BUILD (dtype, ndarray[, {}])
    if len(call.args) != 3 or call.kwargs or not isinstance(call.state, tuple):
        raise RefusedPickle("refused a malformed pandas array")
    kind = next((k for k in BACKED if is_global(call.args[0], k)), None)
    state = call.state
    if kind is None or len(state) not in (2, 3) or not _plain_attributes(state[2:]):
        raise RefusedPickle(f"refused pandas array {describe(call.args[0])}")
    return kind, state[0], state[1]


def backed_values(ctx: Context, kind: str, record: Any) -> np.ndarray[Any, Any]:
    """The numpy values of an ``NDArrayBacked`` array of ``kind``, checked."""
    values = decode_array(ctx, record)
    if values.dtype.kind not in BACKED[kind] or values.ndim not in (1, 2):
        raise RefusedPickle(f"refused {kind} over {values.dtype} values")
    return values


def _backed(ctx: Context, call: Call) -> list[Any]:
    kind, dtype_record, values_record = backed_parts(ctx, call)
    if kind == "pandas.StringArray":
        return _string_columns(ctx, dtype_record, values_record)
    if kind == "pandas.Categorical":
        raise RefusedPickle("refused a Categorical here: not a column of a block")
    values = backed_values(ctx, kind, values_record)
    if kind == "pandas.DatetimeArray":
        dtype = datetime_dtype(ctx, dtype_record, values.dtype)
        return [_datetimes(column, dtype) for column in rows(values)]
    if values.dtype != decode_dtype(ctx, dtype_record):
        raise RefusedPickle("refused a TimedeltaArray whose dtype disagrees")
    return [_build(pd.array, column) for column in rows(values)]


def _plain_attributes(extra: tuple[Any, ...]) -> bool:
    """pandas 2 adds a dict of attributes: no frequency, a cache left unread, and
    (pandas 3, a view of a sliced frame) a read-only flag; the array rebuilt here is a
    new one, writable."""
    if not extra:
        return True
    (attributes,) = extra
    return (
        isinstance(attributes, dict)
        and set(attributes) <= {"_freq", "_cache", "_readonly"}
        and attributes.get("_freq") is None
        and type(attributes.get("_readonly", False)) is bool
    )


def _string_columns(ctx: Context, dtype_record: Any, values: Any) -> list[Any]:
    """StringArray columns. First without element checks: where every element is
    ASCII text (the decoder saw each), the array is made over them as they are;
    otherwise the StringArray class (pandas 3) refuses anything but text and missing
    values; if it refuses, or is pandas 2's, every element is checked and
    ``pd.array`` converts NA records."""
    dtype = string_dtype(ctx, dtype_record)
    unchecked = Unchecked()
    array = _text_array(decode_array(ctx, values, unchecked=unchecked))
    make = _text_only if unchecked.all_text else _string_array
    try:
        columns = [make(c, dtype) for c in rows(array)]
        ctx.spend(elements=array.size)
        return columns
    except (TypeError, ValueError):
        array = _text_array(decode_array(ctx, values))
        return [_build(pd.array, column, dtype=dtype) for column in rows(array)]


def _string_array(values: np.ndarray[Any, Any], dtype: Any) -> Any:
    """The StringArray class's own check of text (pandas 3): fast, in C."""
    return pd.arrays.StringArray(values, dtype=dtype)  # type: ignore[call-arg]


def _text_only(values: np.ndarray[Any, Any], dtype: Any) -> Any:
    """A StringArray over ``values`` known to be all ``str``: made from an empty
    one's backing-data constructor, which skips the class's check (and its pass
    that turns missing values into NA, none here) where this pandas has it; the
    checked constructor otherwise."""
    empty = _string_array(np.empty(0, dtype=object), dtype)
    made = getattr(empty, "_from_backing_data", None)
    if made is not None:
        column = made(values)
        if type(column) is type(empty) and column.dtype == dtype:
            return column
    return _string_array(values, dtype)


def _arrow(ctx: Context, target: str, state: Any) -> Any:
    """``ArrowStringArray`` or ``ArrowExtensionArray``: state ``{'_pa_array'`` (pandas
    2.0: ``'_data'``) ``, '_dtype'[, '_readonly', '_cache']}``."""
    if not isinstance(state, dict) or not set(state) <= _ARROW_STATE:
        raise RefusedPickle(f"refused a malformed {target}")
    if type(state.get("_readonly", False)) is not bool:
        raise RefusedPickle(f"refused a malformed {target}")
    column = arrow_column(ctx, state.get("_pa_array", state.get("_data")))
    if target == "pandas.ArrowStringArray":
        if not column.is_text:
            raise RefusedPickle(f"refused an ArrowStringArray of {column.type}")
        dtype = string_dtype(ctx, state["_dtype"]) if "_dtype" in state else None
        return text_column(column, dtype or pd.StringDtype("python"))
    if arrow_dtype(ctx, state.get("_dtype")) != column.type:
        raise RefusedPickle("refused an ArrowExtensionArray whose dtype disagrees")
    if column.is_text:
        return text_column(column, pd.StringDtype("python"))
    return _masked_from(column)


_ARROW_STATE = frozenset({"_pa_array", "_data", "_dtype", "_readonly", "_cache"})
_MASKED_BY_KIND = {
    "b": pd.arrays.BooleanArray,
    "i": pd.arrays.IntegerArray,
    "u": pd.arrays.IntegerArray,
    "f": pd.arrays.FloatingArray,
}


def text_column(column: ArrowColumn, dtype: Any) -> Any:
    """Strings (None where missing) as a python-storage string array of ``dtype``."""
    if column.valid is None:
        try:
            return _string_array(column.values, dtype)
        except (TypeError, ValueError):
            pass  # pandas 2's StringArray takes no dtype
    return _build(pd.array, column.values, dtype=dtype)


def _masked_from(column: ArrowColumn) -> Any:
    values = column.values
    missing = (
        np.zeros(len(values), dtype=bool) if column.valid is None else ~column.valid
    )
    if values.dtype.kind == "f":
        values = np.where(missing, 0.0, values).astype(values.dtype)
    return _build(_MASKED_BY_KIND[values.dtype.kind], values, missing)


def _text_array(values: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    if values.dtype.kind != "O" or values.ndim not in (1, 2):
        raise RefusedPickle(f"refused a StringArray over {values.dtype} values")
    return values


def _datetimes(column: np.ndarray[Any, Any], dtype: Any) -> Any:
    index = _build(pd.DatetimeIndex, column)
    if isinstance(dtype, pd.DatetimeTZDtype):
        index = index.tz_localize("UTC").tz_convert(dtype.tz)
    return index.array


def _masked(ctx: Context, target: str, call: Call) -> list[Any]:
    if target not in MASKED or not isinstance(call.state, dict):
        raise RefusedPickle(f"refused pandas array {shown(target)}")
    kinds, factory = MASKED[target]
    state = call.state
    data = decode_array(ctx, state.get("_data"))
    mask = decode_array(ctx, state.get("_mask"))
    if data.dtype.kind not in kinds or mask.dtype != bool or data.shape != mask.shape:
        raise RefusedPickle(f"refused {target} over {data.dtype} values")
    if data.ndim not in (1, 2):
        raise RefusedPickle(f"refused {target} of {data.ndim} dimensions")
    return [_build(factory, d, m) for d, m in zip(rows(data), rows(mask))]


def _build(factory: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return factory(*args, **kwargs)
    except (ValueError, TypeError, OverflowError) as exc:
        raise RefusedPickle(f"refused a pandas array ({type(exc).__name__})") from None
