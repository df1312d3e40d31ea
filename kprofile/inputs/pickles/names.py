"""The globals a result pickle names, as written by pandas 1.5-3.x, numpy 1.x/2.x,
pyarrow (the arrays of pyarrow-backed columns) and pathlib (kbench's ``file``).

Each target is one stand-in (see ``records``), whatever module path a version wrote it
under. Nothing here is imported: the names are only compared.
"""

from __future__ import annotations

from types import MappingProxyType

from kprofile.inputs.pickles.errors import RefusedPickle, shown
from kprofile.inputs.pickles.records import GETATTR, Global, stand_in

_NUMPY = ("numpy.core.multiarray", "numpy._core.multiarray")
_BUILTINS = ("builtins", "__builtin__")
_PANDAS_ARRAYS = ("pandas.arrays",)
_PATHLIB = ("pathlib", "pathlib._local")
# target -> the (module, name) pairs that pickles use for it.
ALIASES: dict[str, tuple[tuple[str, str], ...]] = {
    GETATTR: tuple((m, "getattr") for m in _BUILTINS),
    "builtins.slice": tuple((m, "slice") for m in _BUILTINS),
    "builtins.object": tuple((m, "object") for m in _BUILTINS),
    "builtins.bytes": tuple((m, "bytes") for m in _BUILTINS),
    "builtins.bytearray": tuple((m, "bytearray") for m in _BUILTINS),
    # kbench's ``file``: pathlib.Path as Python 3.11-3.12 and 3.13 (pathlib._local)
    # write it, of either flavour; each becomes the text of the path.
    "pathlib.PurePosixPath": tuple(
        (m, n) for m in _PATHLIB for n in ("PosixPath", "PurePosixPath")
    ),
    "pathlib.PureWindowsPath": tuple(
        (m, n) for m in _PATHLIB for n in ("WindowsPath", "PureWindowsPath")
    ),
    "copyreg._reconstructor": (
        ("copyreg", "_reconstructor"),
        ("copy_reg", "_reconstructor"),
    ),
    "_codecs.encode": (("_codecs", "encode"),),
    "datetime.datetime": (("datetime", "datetime"),),
    "datetime.date": (("datetime", "date"),),
    "datetime.time": (("datetime", "time"),),
    "datetime.timedelta": (("datetime", "timedelta"),),
    "datetime.timezone": (("datetime", "timezone"),),
    "zoneinfo.ZoneInfo": (("zoneinfo", "ZoneInfo"),),
    "zoneinfo.ZoneInfo._unpickle": (("zoneinfo", "ZoneInfo._unpickle"),),
    "pytz._p": (("pytz", "_p"),),
    "pytz._UTC": (("pytz", "_UTC"),),
    "numpy.ndarray": (("numpy", "ndarray"),),
    "numpy.dtype": (("numpy", "dtype"),),
    "numpy._reconstruct": tuple((m, "_reconstruct") for m in _NUMPY),
    "numpy.scalar": tuple((m, "scalar") for m in _NUMPY),
    "numpy._frombuffer": (
        ("numpy.core.numeric", "_frombuffer"),
        ("numpy._core.numeric", "_frombuffer"),
    ),
    "pandas.DataFrame": (("pandas", "DataFrame"), ("pandas.core.frame", "DataFrame")),
    "pandas.BlockManager": (("pandas.core.internals.managers", "BlockManager"),),
    "pandas._unpickle_block": (("pandas._libs.internals", "_unpickle_block"),),
    "pandas._new_Index": (("pandas.core.indexes.base", "_new_Index"),),
    "pandas.Index": (
        ("pandas", "Index"),
        ("pandas.core.indexes.base", "Index"),
        # pandas 1.5's numeric indexes: an Index over a numpy array
        *(
            ("pandas.core.indexes.numeric", f"{kind}Index")
            for kind in ("Int64", "UInt64", "Float64", "Numeric")
        ),
    ),
    "pandas.MultiIndex": (
        ("pandas", "MultiIndex"),
        ("pandas.core.indexes.multi", "MultiIndex"),
    ),
    "pandas.RangeIndex": (
        ("pandas", "RangeIndex"),
        ("pandas.core.indexes.range", "RangeIndex"),
    ),
    "pandas.DatetimeIndex": (
        ("pandas", "DatetimeIndex"),
        ("pandas.core.indexes.datetimes", "DatetimeIndex"),
    ),
    "pandas._new_DatetimeIndex": (
        ("pandas.core.indexes.datetimes", "_new_DatetimeIndex"),
    ),
    "pandas.NDArrayBacked": (("pandas._libs.arrays", "__pyx_unpickle_NDArrayBacked"),),
    "pandas.Timestamp": (
        ("pandas", "Timestamp"),
        ("pandas._libs.tslibs.timestamps", "Timestamp"),
    ),
    "pandas._unpickle_timestamp": (
        ("pandas._libs.tslibs.timestamps", "_unpickle_timestamp"),
    ),
    "pandas.Timedelta": (
        ("pandas", "Timedelta"),
        ("pandas._libs.tslibs.timedeltas", "Timedelta"),
    ),
    "pandas._timedelta_unpickle": (
        ("pandas._libs.tslibs.timedeltas", "_timedelta_unpickle"),
    ),
    "pandas.NA": (("pandas", "NA"), ("pandas._libs.missing", "NA")),
    "pandas.NaT": (("pandas", "NaT"), ("pandas._libs.tslibs.nattype", "NaT")),
    "pandas.DatetimeTZDtype": (
        ("pandas", "DatetimeTZDtype"),
        ("pandas.core.dtypes.dtypes", "DatetimeTZDtype"),
    ),
    "pandas.StringDtype": (
        ("pandas", "StringDtype"),
        ("pandas.core.arrays.string_", "StringDtype"),
    ),
    "pandas.BooleanDtype": (
        ("pandas", "BooleanDtype"),
        ("pandas.core.arrays.boolean", "BooleanDtype"),
    ),
    "pandas.Categorical": (
        ("pandas", "Categorical"),
        ("pandas.arrays", "Categorical"),
        ("pandas.core.arrays.categorical", "Categorical"),
    ),
    "pandas.CategoricalIndex": (
        ("pandas", "CategoricalIndex"),
        ("pandas.core.indexes.category", "CategoricalIndex"),
    ),
    "pandas.CategoricalDtype": (
        ("pandas", "CategoricalDtype"),
        ("pandas.core.dtypes.dtypes", "CategoricalDtype"),
    ),
    "pandas.StringArray": (
        *((m, "StringArray") for m in _PANDAS_ARRAYS),
        ("pandas.core.arrays.string_", "StringArray"),
        ("pandas.core.arrays.string_", "StringArrayNumpySemantics"),
    ),
    # pyarrow-backed arrays: the pyarrow array in their state is rebuilt from its
    # buffers (see ``arrow``); pyarrow itself is never imported.
    "pandas.ArrowStringArray": (
        *((m, "ArrowStringArray") for m in _PANDAS_ARRAYS),
        ("pandas.core.arrays.string_arrow", "ArrowStringArray"),
        ("pandas.core.arrays.string_arrow", "ArrowStringArrayNumpySemantics"),
    ),
    "pandas.ArrowExtensionArray": (
        *((m, "ArrowExtensionArray") for m in _PANDAS_ARRAYS),
        ("pandas.core.arrays.arrow.array", "ArrowExtensionArray"),
        ("pandas.core.arrays.arrow", "ArrowExtensionArray"),
    ),
    "pandas.ArrowDtype": (
        ("pandas", "ArrowDtype"),
        ("pandas.core.dtypes.dtypes", "ArrowDtype"),
        ("pandas.core.arrays.arrow.dtype", "ArrowDtype"),
    ),
    "pyarrow._restore_array": (("pyarrow.lib", "_restore_array"),),
    "pyarrow.chunked_array": (("pyarrow.lib", "chunked_array"),),
    "pyarrow.type_for_alias": (("pyarrow.lib", "type_for_alias"),),
    "pyarrow.py_buffer": (("pyarrow.lib", "py_buffer"),),
    "pandas.BooleanArray": (
        *((m, "BooleanArray") for m in _PANDAS_ARRAYS),
        ("pandas.core.arrays.boolean", "BooleanArray"),
    ),
    "pandas.IntegerArray": (
        *((m, "IntegerArray") for m in _PANDAS_ARRAYS),
        ("pandas.core.arrays.integer", "IntegerArray"),
    ),
    "pandas.FloatingArray": (
        *((m, "FloatingArray") for m in _PANDAS_ARRAYS),
        ("pandas.core.arrays.floating", "FloatingArray"),
    ),
    "pandas.DatetimeArray": (
        *((m, "DatetimeArray") for m in _PANDAS_ARRAYS),
        ("pandas.core.arrays.datetimes", "DatetimeArray"),
    ),
    "pandas.TimedeltaArray": (
        *((m, "TimedeltaArray") for m in _PANDAS_ARRAYS),
        ("pandas.core.arrays.timedeltas", "TimedeltaArray"),
    ),
    **{
        f"pandas.{kind}{size}Dtype": (
            ("pandas", f"{kind}{size}Dtype"),
            ("pandas.core.arrays.integer", f"{kind}{size}Dtype"),
        )
        for kind in ("Int", "UInt")
        for size in (8, 16, 32, 64)
    },
    **{
        f"pandas.Float{size}Dtype": (
            ("pandas", f"Float{size}Dtype"),
            ("pandas.core.arrays.floating", f"Float{size}Dtype"),
        )
        for size in (32, 64)
    },
}


def _stand_ins() -> dict[str, type[Global]]:
    made = {
        target: stand_in(target) for target in ALIASES if target != "zoneinfo.ZoneInfo"
    }
    made["zoneinfo.ZoneInfo"] = stand_in(
        "zoneinfo.ZoneInfo", {"_unpickle": made["zoneinfo.ZoneInfo._unpickle"]}
    )
    return made


STAND_INS = MappingProxyType(_stand_ins())
_BY_NAME = MappingProxyType(
    {alias: STAND_INS[target] for target, names in ALIASES.items() for alias in names}
)


def resolve(module: str, name: str) -> type[Global]:
    """The stand-in for ``module.name``, or a refusal naming it."""
    found = _BY_NAME.get((module, name))
    if found is None:
        raise RefusedPickle(
            f"refused to load global {shown(module)[1:-1]}.{shown(name)[1:-1]}: "
            "not part of a pandas DataFrame pickle"
        )
    return found
