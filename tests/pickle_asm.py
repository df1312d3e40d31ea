"""A tiny pickle assembler for hostile test files, and a DataFrame as pandas 3 writes it.

Nothing here imports or calls what the pickles name: ``emit`` writes the opcodes for a
small tree of ``Glob`` (a global by name), ``Red`` (call), ``New`` (NEWOBJ), ``Build``
(BUILD), ``Memo``/``Get`` (memo slots) and ``Raw`` (bytes as they are) over plain
values. ``frame`` writes a DataFrame with keyword overrides for the part an attack
forges; with no overrides it decodes to a valid two-column frame (``VALID``).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Glob:
    module: str
    name: str


@dataclass(frozen=True)
class Red:
    func: Any
    args: tuple[Any, ...] = ()


@dataclass(frozen=True)
class New:
    cls: Any
    args: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Build:
    obj: Any
    state: Any


@dataclass(frozen=True)
class Raw:
    data: bytes


@dataclass(frozen=True)
class Memo:
    """``value`` stored in memo slot ``slot`` (LONG_BINPUT), for ``Get`` to reuse."""

    value: Any
    slot: int


@dataclass(frozen=True)
class Get:
    slot: int


def emit(x: Any) -> bytes:
    """The opcodes that build ``x``."""
    if isinstance(x, Raw):
        return x.data
    if isinstance(x, Glob):
        return b"c" + x.module.encode() + b"\n" + x.name.encode() + b"\n"
    if isinstance(x, Red):
        return emit(x.func) + emit(tuple(x.args)) + b"R"
    if isinstance(x, New):
        return emit(x.cls) + emit(tuple(x.args)) + b"\x81"
    if isinstance(x, Build):
        return emit(x.obj) + emit(x.state) + b"b"
    if isinstance(x, Memo):
        return emit(x.value) + b"r" + struct.pack("<I", x.slot)
    if isinstance(x, Get):
        return b"j" + struct.pack("<I", x.slot)
    return _plain(x)


def _plain(x: Any) -> bytes:
    if x is None or x is True or x is False:
        return {None: b"N", True: b"\x88", False: b"\x89"}[x]
    if isinstance(x, int):
        raw = x.to_bytes(x.bit_length() // 8 + 1, "little", signed=True)
        return b"\x8a" + bytes([len(raw)]) + raw if len(raw) < 256 else long4(raw)
    if isinstance(x, float):
        return b"G" + struct.pack(">d", x)
    if isinstance(x, str):
        raw = x.encode("utf-8", "surrogatepass")
        return b"X" + struct.pack("<I", len(raw)) + raw
    if isinstance(x, bytes):
        return b"B" + struct.pack("<I", len(x)) + x
    if isinstance(x, bytearray):
        return b"\x96" + struct.pack("<Q", len(x)) + bytes(x)
    if isinstance(x, tuple):
        return b"(" + b"".join(map(emit, x)) + b"t"
    if isinstance(x, list):
        return b"](" + b"".join(map(emit, x)) + b"e"
    if isinstance(x, dict):
        return b"}(" + b"".join(emit(k) + emit(v) for k, v in x.items()) + b"u"
    raise TypeError(type(x))


def long4(raw: bytes) -> bytes:
    return b"\x8b" + struct.pack("<i", len(raw)) + raw


def pickle_of(x: Any) -> bytes:
    return b"\x80\x04" + emit(x) + b"."


# ----------------------------------------------------------- a frame as pandas 3 writes it

NP = "numpy._core.multiarray"


def dtype(code: str, order: str = "<", flags: int = 0, **state: Any) -> Build:
    fields = dict(names=None, fields=None, subarray=None, elsize=-1, align=-1)
    fields |= state
    described = (
        order, fields["subarray"], fields["names"], fields["fields"],
        fields["elsize"], fields["align"], flags,
    )  # fmt: skip
    if code[0] in "Mm":  # datetimes carry their unit
        return Build(
            Red(Glob("numpy", "dtype"), (code, False, True)),
            (4, *described, (None, (b"ns", 1, 1, 1))),
        )
    return Build(Red(Glob("numpy", "dtype"), (code, False, True)), (3, *described))


def frombuffer(data: bytes, dt: Any, shape: tuple[int, ...]) -> Red:
    return Red(
        Glob("numpy._core.numeric", "_frombuffer"), (bytearray(data), dt, shape, "C")
    )


def object_array(items: list[Any], shape: tuple[int, ...], dt: Any = None) -> Build:
    dt = dtype("O8", "|", 63) if dt is None else dt
    return Build(
        Red(Glob(NP, "_reconstruct"), (Glob("numpy", "ndarray"), (0,), b"b")),
        (1, shape, dt, False, items),
    )


def block(values: Any, placement: Any, ndim: int = 2) -> Red:
    unpickle = Glob("pandas._libs.internals", "_unpickle_block")
    return Red(unpickle, (values, placement, ndim))


def span(start: Any, stop: Any, step: Any = 1) -> Red:
    return Red(Glob("builtins", "slice"), (start, stop, step))


def index(kind: str, state: dict[str, Any]) -> Red:
    return Red(
        Glob("pandas.core.indexes.base", "_new_Index"), (Glob("pandas", kind), state)
    )


def range_index(stop: int, start: int = 0, step: int = 1) -> Red:
    return index(
        "RangeIndex", {"name": None, "start": start, "stop": stop, "step": step}
    )


ROWS = 3
INTS = struct.pack("<3q", 1, 2, 3)


def frame(
    *,
    blocks: tuple[Any, ...] | None = None,
    columns: Any = None,
    rows: Any = None,
    state: dict[str, Any] | None = None,
) -> Build:
    """A DataFrame of an int64 column ``x`` and an object column ``spec``."""
    if blocks is None:
        blocks = (
            block(frombuffer(INTS, dtype("i8"), (1, ROWS)), span(0, 1)),
            block(object_array(["k/BM=1", "k/BM=2", "k/BM=3"], (1, ROWS)), span(1, 2)),
        )
    if columns is None:
        columns = index(
            "Index", {"data": object_array(["x", "spec"], (2,)), "name": None}
        )
    manager = Red(
        Glob("pandas.core.internals.managers", "BlockManager"),
        (blocks, [columns, range_index(ROWS) if rows is None else rows]),
    )
    full = {"_mgr": manager, "_typ": "dataframe", "_metadata": [], "attrs": {}}
    return Build(New(Glob("pandas", "DataFrame")), full | (state or {}))


def result(df: Any, **meta: Any) -> bytes:
    return pickle_of({"merged_df": df, "name": "bench", "file": "bench.mojo", **meta})


VALID = result(frame())
