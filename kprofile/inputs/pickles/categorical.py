"""Categoricals: codes over categories, and the ``CategoricalIndex`` made of them.

A ``CategoricalDtype``'s categories are an index (``index``), so categoricals sit one
layer above indexes and the other extension arrays. Codes must fall inside the
categories (``Categorical.from_codes`` checks), which are at most ``MAX_CATEGORIES``.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from kprofile.inputs.pickles.context import Context
from kprofile.inputs.pickles.errors import RefusedPickle
from kprofile.inputs.pickles.extension import backed_parts, backed_values, rows
from kprofile.inputs.pickles.index import decode_index
from kprofile.inputs.pickles.records import Call, instance_state, is_global
from kprofile.inputs.pickles.values import decode_value

MAX_CATEGORIES = 10_000  # pandas hashes them; bounds collision work
_FIELDS = frozenset({"categories", "ordered", "_ordered", "categories_dtype"})


def is_categorical(value: Any) -> bool:
    """Whether ``value`` is the record of a ``Categorical`` array."""
    return (
        isinstance(value, Call)
        and value.target == "pandas.NDArrayBacked"
        and bool(value.args)
        and is_global(value.args[0], "pandas.Categorical")
    )


def categorical_columns(ctx: Context, value: Any) -> list[pd.Categorical]:
    """A Categorical block's columns: codes over a checked ``CategoricalDtype``."""
    call = ctx.call(value, "pandas.NDArrayBacked")
    ctx.spend(elements=1)
    kind, dtype_record, values_record = backed_parts(ctx, call)
    if kind != "pandas.Categorical":
        raise RefusedPickle("refused a Categorical of another array")
    codes = backed_values(ctx, kind, values_record)
    dtype = categorical_dtype(ctx, dtype_record)
    return [_build(pd.Categorical.from_codes, c, dtype=dtype) for c in rows(codes)]


def categorical_dtype(ctx: Context, value: Any) -> pd.CategoricalDtype:
    """``CategoricalDtype`` from its state: a checked Index of at most
    ``MAX_CATEGORIES`` unique values, and ``ordered``."""
    call = ctx.call(value, "pandas.CategoricalDtype", "copyreg._reconstructor")
    state = instance_state(call, "pandas.CategoricalDtype", _FIELDS)
    ordered = state.get("ordered", state.get("_ordered", False))
    if type(ordered) is not bool:
        raise RefusedPickle("refused a CategoricalDtype whose ordered is not a bool")
    categories = decode_index(ctx, state.get("categories"))
    if len(categories) > MAX_CATEGORIES:
        raise RefusedPickle(f"refused a Categorical of {len(categories)} categories")
    try:
        return pd.CategoricalDtype(categories, ordered=ordered)
    except (ValueError, TypeError) as exc:
        raise RefusedPickle(f"refused CategoricalDtype ({exc})") from None


def decode_axis(ctx: Context, value: Any) -> pd.Index:
    """A frame's axis: any index of ``index``, or a ``CategoricalIndex``."""
    if not (
        isinstance(value, Call)
        and value.target == "pandas._new_Index"
        and len(value.args) == 2
        and is_global(value.args[0], "pandas.CategoricalIndex")
    ):
        return decode_index(ctx, value)
    ctx.spend(elements=1)
    if value.kwargs or value.has_state or not isinstance(value.args[1], dict):
        raise RefusedPickle("refused a malformed pandas index")
    state = value.args[1]
    if set(state) - {"data", "name"}:
        raise RefusedPickle("refused an index with a frequency or other attributes")
    (column,) = _one(categorical_columns(ctx, state.get("data")))
    name = decode_value(ctx, state.get("name"))
    return _build(pd.CategoricalIndex, column, name=name)


def _one(columns: list[Any]) -> list[Any]:
    if len(columns) != 1:
        raise RefusedPickle("refused an index that is not one-dimensional")
    return columns


def _build(factory: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return factory(*args, **kwargs)
    except (ValueError, TypeError, OverflowError) as exc:
        raise RefusedPickle(f"refused a pandas array ({type(exc).__name__})") from None
