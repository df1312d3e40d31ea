"""pandas dtypes of extension columns: ``StringDtype`` and ``DatetimeTZDtype``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from kprofile.inputs.pickles.context import Context, describe
from kprofile.inputs.pickles.dtypes import decode_dtype
from kprofile.inputs.pickles.errors import RefusedPickle, shown
from kprofile.inputs.pickles.records import Call, instance_of, is_global
from kprofile.inputs.pickles.timezones import decode_tz

_PYARROW = " (pyarrow-backed columns need pyarrow; write with plain dtypes)"
_TZ_UNITS = frozenset({"s", "ms", "us", "ns"})


def string_dtype(ctx: Context, value: Any) -> Any:
    """``StringDtype(storage[, na_value])`` (pandas 2.0: an instance with a state
    ``{'storage': ...}``): python storage, NA or NaN for missing values."""
    call = ctx.call(value, "pandas.StringDtype", "copyreg._reconstructor")
    fields = _string_fields(call)
    storage, missing = fields[0], fields[1] if len(fields) == 2 else None
    if storage != "python":
        hint = _PYARROW if isinstance(storage, str) and "pyarrow" in storage else ""
        raise RefusedPickle(f"refused StringDtype storage {shown(storage)}{hint}")
    if missing is None or is_global(missing, "pandas.NA"):
        return pd.StringDtype("python")
    if isinstance(missing, float) and np.isnan(missing):
        return pd.StringDtype("python", na_value=np.nan)  # pandas 3's "str"
    raise RefusedPickle(f"refused StringDtype missing value {describe(missing)}")


def _string_fields(call: Call) -> tuple[Any, ...]:
    if call.target == "pandas.StringDtype" and call.args:
        if len(call.args) > 2 or call.kwargs or call.has_state:
            raise RefusedPickle("refused a malformed StringDtype")
        return call.args
    state = call.state
    if instance_of(call) != "pandas.StringDtype" or not isinstance(state, dict):
        raise RefusedPickle("refused a malformed StringDtype")
    if not set(state) <= {"storage", "_na_value"} or "storage" not in state:
        raise RefusedPickle("refused a malformed StringDtype")
    return (state["storage"], state.get("_na_value"))


def datetime_dtype(ctx: Context, value: Any, values: np.dtype[Any]) -> Any:
    """The dtype of a DatetimeArray over ``values``: the same datetime64, or a
    ``DatetimeTZDtype`` of the same unit and a zone checked by ``timezones``."""
    if isinstance(value, Call) and value.target == "numpy.dtype":
        if decode_dtype(ctx, value) != values:
            raise RefusedPickle("refused a DatetimeArray whose dtype disagrees")
        return values
    call = ctx.call(value, "pandas.DatetimeTZDtype", "copyreg._reconstructor")
    if instance_of(call) != "pandas.DatetimeTZDtype":
        raise RefusedPickle(f"refused datetime dtype {describe(call)}")
    state = call.state
    if not isinstance(state, dict) or set(state) != {"unit", "tz"}:
        raise RefusedPickle("refused a DatetimeTZDtype without unit and tz")
    unit, tz = state["unit"], decode_tz(ctx, state["tz"])
    if unit not in _TZ_UNITS or tz is None or values != np.dtype(f"M8[{unit}]"):
        raise RefusedPickle(f"refused DatetimeTZDtype unit {shown(unit)}")
    try:
        return pd.DatetimeTZDtype(unit=unit, tz=tz)
    except (ValueError, TypeError) as exc:
        raise RefusedPickle(f"refused DatetimeTZDtype ({exc})") from None


MAX_CATEGORIES = 10_000  # pandas hashes them; bounds collision work


def categorical_dtype(ctx: Context, value: Any) -> pd.CategoricalDtype:
    """``CategoricalDtype`` from its state: a checked Index of at most
    ``MAX_CATEGORIES`` unique values, and ``ordered``."""
    from kprofile.inputs.pickles.index import decode_index

    call = ctx.call(value, "pandas.CategoricalDtype", "copyreg._reconstructor")
    state = call.state
    if instance_of(call) != "pandas.CategoricalDtype" or not isinstance(state, dict):
        raise RefusedPickle("refused a malformed CategoricalDtype")
    if not set(state) <= {"categories", "ordered", "_ordered", "categories_dtype"}:
        raise RefusedPickle("refused a CategoricalDtype with other attributes")
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
