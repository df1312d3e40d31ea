"""A restricted unpickler for kbench result pickles.

A pickle can name any importable callable and call it while loading; ``pickle.load``
would run ``os.system`` if the file asked it to. This unpickler resolves only the
(module, name) pairs a pandas DataFrame pickle needs, as written by pandas 2.x and 3.x
(with numpy 1.x or 2.x), and refuses every other global before anything is imported
or called. Persistent ids and out-of-band buffers are refused as well.
"""

from __future__ import annotations

import importlib
import importlib.util
import io
import pickle
from typing import IO, Any

# (module as written in the pickle, name) -> (module to import here, attribute).
# Old paths written by pandas 2.x / numpy 1.x map to where the object lives now.
_NUMPY_CORE = "numpy._core" if importlib.util.find_spec("numpy._core") else "numpy.core"


Target = tuple[str, str]
Allowlist = dict[tuple[str, str], Target]


def _allow(
    modules: tuple[str, ...], name: str, target: Target | None = None
) -> Allowlist:
    """``name`` as written under each of ``modules``, resolved to ``target`` (default: itself)."""
    return {(module, name): target or (module, name) for module in modules}


def _python() -> Allowlist:
    """Builtins that plain data (and protocol 2 bytes) need."""
    table: Allowlist = {}
    for name in ("slice", "set", "frozenset", "bytearray", "complex", "range"):
        table |= _allow(("builtins",), name) | _allow(
            ("__builtin__",), name, ("builtins", name)
        )
    table |= _allow(("_codecs",), "encode") | _allow(("collections",), "OrderedDict")
    for name in ("datetime", "date", "time", "timedelta", "timezone"):
        table |= _allow(("datetime",), name)
    return table


def _numpy() -> Allowlist:
    """Arrays, dtypes and scalars, under numpy 1.x (``numpy.core``) or 2.x (``numpy._core``) paths."""
    table = _allow(("numpy",), "ndarray") | _allow(("numpy",), "dtype")
    for name in ("_reconstruct", "scalar"):
        table |= _allow(
            ("numpy.core.multiarray", "numpy._core.multiarray"),
            name,
            (f"{_NUMPY_CORE}.multiarray", name),
        )
    return table | _allow(
        ("numpy.core.numeric", "numpy._core.numeric"),
        "_frombuffer",
        (f"{_NUMPY_CORE}.numeric", "_frombuffer"),
    )


# pandas containers, arrays and dtypes: public name -> the modules pickles name them under.
_PANDAS_PUBLIC: dict[str, tuple[str, ...]] = {
    "DataFrame": ("pandas.core.frame",),
    "Series": ("pandas.core.series",),
    "Index": ("pandas.core.indexes.base",),
    "RangeIndex": ("pandas.core.indexes.range",),
    "DatetimeIndex": ("pandas.core.indexes.datetimes",),
    "CategoricalIndex": ("pandas.core.indexes.category",),
    "Categorical": ("pandas.core.arrays.categorical", "pandas.arrays"),
    "CategoricalDtype": ("pandas.core.dtypes.dtypes",),
    "DatetimeTZDtype": ("pandas.core.dtypes.dtypes",),
    "StringDtype": ("pandas.core.arrays.string_",),
    "BooleanDtype": ("pandas.core.arrays.boolean",),
    "Timestamp": ("pandas._libs.tslibs.timestamps",),
    "Timedelta": ("pandas._libs.tslibs.timedeltas",),
    "NA": ("pandas._libs.missing",),
    "NaT": ("pandas._libs.tslibs.nattype",),
    **{
        f"{kind}{size}Dtype": ("pandas.core.arrays.integer",)
        for kind in ("Int", "UInt")
        for size in (8, 16, 32, 64)
    },
    **{f"Float{size}Dtype": ("pandas.core.arrays.floating",) for size in (32, 64)},
}
_PANDAS_ARRAYS = {
    "StringArray": "pandas.core.arrays.string_",
    "IntegerArray": "pandas.core.arrays.integer",
    "FloatingArray": "pandas.core.arrays.floating",
    "BooleanArray": "pandas.core.arrays.boolean",
    "DatetimeArray": "pandas.core.arrays.datetimes",
    "TimedeltaArray": "pandas.core.arrays.timedeltas",
}
# pandas internals that DataFrame.__reduce__ and its blocks refer to.
_PANDAS_INTERNALS = (
    ("pandas.core.indexes.base", "_new_Index"),
    ("pandas.core.indexes.datetimes", "_new_DatetimeIndex"),
    ("pandas.core.internals.managers", "BlockManager"),
    ("pandas.core.internals.managers", "SingleBlockManager"),
    ("pandas._libs.internals", "_unpickle_block"),
    ("pandas._libs.arrays", "__pyx_unpickle_NDArrayBacked"),
    ("pandas._libs.tslibs.timestamps", "_unpickle_timestamp"),
    ("pandas._libs.tslibs.timedeltas", "_timedelta_unpickle"),
)


def _pandas() -> Allowlist:
    table: Allowlist = {}
    for name, modules in _PANDAS_PUBLIC.items():
        table |= _allow(("pandas", *modules), name, ("pandas", name))
    for name, module in _PANDAS_ARRAYS.items():
        table |= _allow(("pandas.arrays", module), name, ("pandas.arrays", name))
    # pandas 1.x index classes, gone since 2.0: a plain Index holds the same values.
    for name in ("Int64Index", "UInt64Index", "Float64Index", "NumericIndex"):
        table |= _allow(("pandas.core.indexes.numeric",), name, ("pandas", "Index"))
    for module, name in _PANDAS_INTERNALS:
        table |= _allow((module,), name)
    return table


ALLOWED: Allowlist = _python() | _numpy() | _pandas()


class RefusedPickle(Exception):
    """The file is not a pickle this program will load; nothing in it was run."""


class _Restricted(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        target = ALLOWED.get((module, name))
        if target is None:
            hint = (
                " (pyarrow-backed columns need pyarrow; write with plain dtypes)"
                if module.startswith("pyarrow")
                else ""
            )
            raise RefusedPickle(
                f"refused to load global {module}.{name}: not part of a pandas DataFrame pickle{hint}"
            )
        target_module, attribute = target
        return getattr(importlib.import_module(target_module), attribute)

    def persistent_load(self, pid: Any) -> Any:
        raise RefusedPickle(
            "refused persistent id: not part of a pandas DataFrame pickle"
        )


def restricted_load(handle: IO[bytes]) -> Any:
    """Unpickle from ``handle`` admitting only what a pandas DataFrame pickle needs.

    Raises ``RefusedPickle`` for a forbidden global (before resolving or calling it) and
    for anything that is not a well-formed pickle.
    """
    try:
        return _Restricted(handle).load()
    except RefusedPickle:
        raise
    except (pickle.UnpicklingError, EOFError) as exc:
        raise RefusedPickle(f"not a valid pickle ({exc or 'truncated'})") from None
    except (
        AttributeError,
        ImportError,
        TypeError,
        ValueError,
        IndexError,
        KeyError,
        MemoryError,
    ) as exc:
        raise RefusedPickle(
            f"not a valid pickle ({type(exc).__name__}: {exc})"
        ) from None


def restricted_loads(data: bytes) -> Any:
    """``restricted_load`` over bytes in memory."""
    return restricted_load(io.BytesIO(data))
