"""Row and column indexes: ``Index`` over a validated array, ``RangeIndex`` from three
bounded integers, ``DatetimeIndex`` over validated arrays, and ``MultiIndex`` from
levels (indexes) and codes that fall inside them. A ``CategoricalIndex`` is one layer
up, in ``categorical``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from kprofile.inputs.pickles.arrays import ARRAY_TARGETS, decode_array
from kprofile.inputs.pickles.context import Context, describe
from kprofile.inputs.pickles.errors import RefusedPickle
from kprofile.inputs.pickles.extension import decode_columns
from kprofile.inputs.pickles.records import is_global
from kprofile.inputs.pickles.values import decode_value

_KINDS = (
    "pandas.Index",
    "pandas.RangeIndex",
    "pandas.DatetimeIndex",
    "pandas.MultiIndex",
)
MAX_LEVELS = 64


def decode_index(ctx: Context, value: Any) -> pd.Index:
    """``_new_Index(cls, state)`` (or ``_new_DatetimeIndex``) as a pandas index."""
    call = ctx.call(value, "pandas._new_Index", "pandas._new_DatetimeIndex")
    ctx.spend(elements=1)
    if len(call.args) != 2 or call.kwargs or call.has_state:
        raise RefusedPickle("refused a malformed pandas index")
    cls, state = call.args
    kind = next((k for k in _KINDS if is_global(cls, k)), None)
    if kind is None or not isinstance(state, dict):
        raise RefusedPickle(f"refused index type {describe(cls)}")
    if kind == "pandas.MultiIndex":
        return _multi(ctx, state)
    name = decode_value(ctx, state.get("name"))
    if kind == "pandas.RangeIndex":
        return _range(ctx, state, name)
    extra = set(state) - {"data", "name", "freq", "tz"}
    if extra or state.get("freq") is not None or state.get("tz") is not None:
        raise RefusedPickle("refused an index with a frequency or other attributes")
    data = state.get("data")
    if kind == "pandas.Index" and getattr(data, "target", None) in ARRAY_TARGETS:
        array = decode_array(ctx, data)
        if array.ndim != 1:
            raise RefusedPickle("refused an index that is not one-dimensional")
        return _build(pd.Index, array, dtype=array.dtype, name=name)
    (column,) = _one(decode_columns(ctx, data))
    if kind == "pandas.DatetimeIndex":
        return _build(pd.DatetimeIndex, column, name=name)
    return _build(pd.Index, column, dtype=column.dtype, name=name)


def _one(columns: list[Any]) -> list[Any]:
    if len(columns) != 1:
        raise RefusedPickle("refused an index that is not one-dimensional")
    return columns


def _multi(ctx: Context, state: dict[Any, Any]) -> pd.MultiIndex:
    """``{'levels': [Index], 'codes': [array], 'names': [...], 'sortorder': ...}``:
    pandas checks that every code falls inside its level."""
    if set(state) - {"levels", "codes", "names", "sortorder"}:
        raise RefusedPickle("refused a MultiIndex with other attributes")
    levels, codes = state.get("levels"), state.get("codes")
    names, order = state.get("names"), state.get("sortorder")
    if not (type(levels) is list and type(codes) is list and type(names) is list):
        raise RefusedPickle("refused a malformed MultiIndex")
    if not 1 <= len(levels) <= MAX_LEVELS or {len(codes), len(names)} != {len(levels)}:
        raise RefusedPickle(f"refused a MultiIndex of {len(levels)} levels")
    if order is not None and type(order) is not int:
        raise RefusedPickle("refused a MultiIndex whose sort order is not an integer")
    with ctx.nested():
        built = [decode_index(ctx, level) for level in levels]
        positions = [_codes(ctx, c) for c in codes]
        labels = [decode_value(ctx, name) for name in names]
    return _build(  # type: ignore[return-value]
        pd.MultiIndex,
        levels=built,
        codes=positions,
        names=labels,
        sortorder=order,
        verify_integrity=True,
    )


def _codes(ctx: Context, value: Any) -> np.ndarray[Any, Any]:
    codes = decode_array(ctx, value)
    if codes.ndim != 1 or codes.dtype.kind != "i":
        raise RefusedPickle("refused MultiIndex codes that are not integers")
    return codes


def _range(ctx: Context, state: dict[Any, Any], name: Any) -> pd.RangeIndex:
    if set(state) - {"start", "stop", "step", "name"}:
        raise RefusedPickle("refused a RangeIndex with other attributes")
    start, stop, step = (
        state.get(k, d) for k, d in (("start", 0), ("stop", 0), ("step", 1))
    )
    if (
        not all(type(v) is int and abs(v) < 2**63 for v in (start, stop, step))
        or not step
    ):
        raise RefusedPickle("refused a RangeIndex of non-integer or zero bounds")
    ctx.spend(nbytes=8 * len(range(start, stop, step)))  # as if materialized
    return pd.RangeIndex(start, stop, step, name=name)


def _build(factory: Any, *args: Any, **kwargs: Any) -> pd.Index:
    try:
        return factory(*args, **kwargs)
    except (ValueError, TypeError) as exc:
        raise RefusedPickle(f"refused an index ({type(exc).__name__})") from None
