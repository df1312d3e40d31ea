"""pandas dtypes of extension columns: ``StringDtype``, ``ArrowDtype`` and
``DatetimeTZDtype``.

Strings keep their missing-value semantics (``NA``, or NaN for pandas 3's ``str`` and
the ``pyarrow_numpy`` storage of pandas 2.1-2.2) and are rebuilt with python storage
whatever storage was written, so reading needs no pyarrow.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from kprofile.inputs.pickles.arrow import arrow_type
from kprofile.inputs.pickles.context import Context, describe
from kprofile.inputs.pickles.dtypes import decode_dtype
from kprofile.inputs.pickles.errors import RefusedPickle, shown
from kprofile.inputs.pickles.records import Call, instance_of, instance_state, is_global
from kprofile.inputs.pickles.timezones import decode_tz

_STORAGES = frozenset({"python", "pyarrow", "pyarrow_numpy"})
_TZ_UNITS = frozenset({"s", "ms", "us", "ns"})
_ARROW_FIELDS = frozenset({"pyarrow_dtype", "storage", "_storage", "_cache"})


def string_dtype(ctx: Context, value: Any) -> Any:
    """``StringDtype(storage[, na_value])`` (pandas 2.0: an instance with a state
    ``{'storage': ...}``) as a python-storage dtype with the same missing value."""
    call = ctx.call(value, "pandas.StringDtype", "copyreg._reconstructor")
    fields = _string_fields(call)
    storage, missing = fields[0], fields[1] if len(fields) == 2 else None
    if storage not in _STORAGES:
        raise RefusedPickle(f"refused StringDtype storage {shown(storage)}")
    if storage == "pyarrow_numpy" and missing is None:
        missing = np.nan
    if missing is None or is_global(missing, "pandas.NA"):
        return pd.StringDtype("python")
    if isinstance(missing, float) and np.isnan(missing):
        return pd.StringDtype("python", na_value=np.nan)  # pandas 3's "str"
    raise RefusedPickle(f"refused StringDtype missing value {describe(missing)}")


def arrow_dtype(ctx: Context, value: Any) -> str:
    """``ArrowDtype`` (an instance whose state holds the pyarrow type): the name of
    the type, one of ``arrow.TYPES``."""
    call = ctx.call(value, "pandas.ArrowDtype", "copyreg._reconstructor")
    state = instance_state(call, "pandas.ArrowDtype", _ARROW_FIELDS)
    if state.get("storage", state.get("_storage", "pyarrow")) != "pyarrow":
        raise RefusedPickle("refused an ArrowDtype of another storage")
    return arrow_type(ctx, state.get("pyarrow_dtype"))


def _string_fields(call: Call) -> tuple[Any, ...]:
    if call.target == "pandas.StringDtype" and call.args:
        if len(call.args) > 2 or call.kwargs or call.has_state:
            raise RefusedPickle("refused a malformed StringDtype")
        return call.args
    state = call.state
    if instance_of(call) != "pandas.StringDtype" or not isinstance(state, dict):
        raise RefusedPickle("refused a malformed StringDtype")
    if not set(state) <= {"storage", "_na_value", "_cache"} or "storage" not in state:
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
