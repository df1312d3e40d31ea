"""Hostile result pickles, written opcode by opcode: one per attack class and variants.

    python tests/hostile_pickles.py OUT_FOLDER MARKER   # write every case as OUT/NAME.pkl

Nothing here imports or calls what the pickles name: ``emit`` writes the opcodes for a
small tree of ``Glob`` (a global by name), ``Red`` (call), ``New`` (NEWOBJ), ``Build``
(BUILD) and ``Raw`` (bytes as they are) over plain values. ``frame`` writes a
DataFrame the way pandas 3 does, with keyword overrides for the part an attack forges;
with no overrides it decodes to a valid two-column frame (``VALID``), which keeps each
attack honest: only the forged part differs from a frame that loads.

``cases(marker)`` returns ``{name: bytes}``; a payload that ran would create ``marker``.
"""

from __future__ import annotations

import struct
import sys
from dataclasses import dataclass
from pathlib import Path
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
        return b"\x8a" + bytes([len(raw)]) + raw if len(raw) < 256 else _long4(raw)
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


def _long4(raw: bytes) -> bytes:
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


# ------------------------------------------------------------------------ the attacks


def _meta(**values: Any) -> bytes:
    """A valid result whose metadata carries ``values``."""
    return result(frame(), **values)


def _code(marker: str) -> dict[str, bytes]:
    """Code execution: any of these that ran would create ``marker``."""
    touch = f"open({marker!r}, 'w').write('x')"
    getattr_ = Glob("builtins", "getattr")
    calls = {
        "os-system": Red(Glob("os", "system"), (f"touch {marker}",)),
        "posix-system": Red(Glob("posix", "system"), (f"touch {marker}",)),
        "builtins-exec": Red(Glob("builtins", "exec"), (touch,)),
        "builtins-eval": Red(Glob("builtins", "eval"), (touch,)),
        "subprocess-popen": Red(Glob("subprocess", "Popen"), (["touch", marker],)),
        "builtins-open": Red(Glob("builtins", "open"), (marker, "w")),
        "import-getattr-chain": Red(
            Red(getattr_, (Red(Glob("builtins", "__import__"), ("os",)), "system")),
            (f"touch {marker}",),
        ),
        "getattr-on-a-stand-in": Red(
            Red(getattr_, (Glob("pandas", "DataFrame"), "to_pickle")), (marker,)
        ),
        "getattr-subclasses": Red(
            Red(getattr_, (Glob("builtins", "object"), "__subclasses__")), ()
        ),
        "getattr-zoneinfo-from-file": Red(
            Red(getattr_, (Glob("zoneinfo", "ZoneInfo"), "from_file")), (marker,)
        ),
        "nested-pickle-loads": Red(
            Glob("pickle", "loads"),
            (pickle_of(Red(Glob("os", "system"), (f"touch {marker}",))),),
        ),
        "pandas-eval": Red(Glob("pandas", "eval"), ("1+1",)),
        "copyreg-reconstructor-os": Red(
            Glob("copyreg", "_reconstructor"),
            (Glob("os", "system"), Glob("builtins", "object"), None),
        ),
        "reduce-inside-dtype-state": dtype(
            "i8", "<", Red(Glob("os", "system"), ("x",))
        ),
    }
    found = {f"code-{k}-merged-df": result(v) for k, v in calls.items()}
    found["code-os-system-in-metadata"] = _meta(note=calls["os-system"])
    found["code-os-system-in-a-block"] = result(
        frame(blocks=(block(calls["os-system"], span(0, 1)),))
    )
    found["code-inst-opcode"] = b"(S'touch " + marker.encode() + b"'\nios\nsystem\n."
    found["code-ext1-opcode"] = b"\x80\x02\x82\x01)R."
    found["code-persistent-id"] = b"\x80\x05K\x01Q."
    found["code-next-buffer"] = b"\x80\x05\x97."
    return found


def _patching() -> dict[str, bytes]:
    """BUILD (and item assignment) on a stand-in, meant to patch the real class."""
    index = Glob("pandas.core.indexes.base", "Index")
    return {
        "patch-build-index-contains": _meta(x=Build(index, {"__contains__": "x"})),
        "patch-build-slotstate": _meta(x=Build(index, (None, {"__contains__": 1}))),
        "patch-build-dataframe": result(Build(Glob("pandas", "DataFrame"), {"x": 1})),
        "patch-build-dtype": _meta(x=Build(Glob("numpy", "dtype"), {"kind": "O"})),
        "patch-setitem-on-global": pickle_of(
            {"merged_df": Raw(emit(index) + emit("a") + emit(1) + b"s")}
        ),
        "patch-appends-on-global": pickle_of({"x": Raw(emit(index) + b"(K\x01e")}),
        "patch-second-build-on-a-record": result(Build(frame(), {"_mgr": None})),
    }


def _pointers() -> dict[str, bytes]:
    """Dtypes that would make numpy read bytes from the file as object pointers."""
    fake = b"\x41" * 8 * ROWS
    object_field = dtype(
        "V8", "|", 0, names=("f0",), fields={"f0": (dtype("O8", "|", 63), 0)}, elsize=8
    )
    forged = {
        "dtype-object-field-flags-zeroed": frombuffer(fake, object_field, (1, ROWS)),
        "object-dtype-over-raw-bytes": frombuffer(fake, dtype("O8", "|", 0), (1, ROWS)),
        "object-array-state-with-bytes": object_array(fake, (1, ROWS)),  # type: ignore[arg-type]
        "void-dtype": frombuffer(fake, dtype("V8", "|"), (1, ROWS)),
        "custom-elsize": frombuffer(fake, dtype("i8", elsize=1), (1, ROWS)),
        "subarray": frombuffer(
            fake, dtype("i8", subarray=(dtype("O8"), (1,))), (1, ROWS)
        ),
        "unknown-byte-order": frombuffer(fake, dtype("i8", "!"), (1, ROWS)),
    }
    return {
        f"pointer-{k}": result(frame(blocks=(block(v, span(0, 1)),) + _spec_block()))
        for k, v in forged.items()
    }


def _spec_block() -> tuple[Any, ...]:
    return (block(object_array(["a", "b", "c"], (1, ROWS)), span(1, 2)),)


def _int_block(placement: Any, rows: int = ROWS, columns: int = 1) -> Red:
    data = struct.pack(f"<{rows * columns}q", *range(rows * columns))
    return block(frombuffer(data, dtype("i8"), (columns, rows)), placement)


def _array_placement(*positions: int) -> Red:
    data = struct.pack(f"<{len(positions)}q", *positions)
    return frombuffer(data, dtype("i8"), (len(positions),))


def _placements() -> dict[str, bytes]:
    """Block placements outside the frame, overlapping, missing or mis-sized."""
    layouts = {
        "slice-far-outside": (_int_block(span(1000, 1001)),) + _spec_block(),
        "slice-negative": (_int_block(span(-1, 0)),) + _spec_block(),
        "slice-backwards": (_int_block(span(1, 0, -1)),) + _spec_block(),
        "slice-huge-stop": (_int_block(span(0, 2**62)),) + _spec_block(),
        "array-outside": (_int_block(_array_placement(99_999)),) + _spec_block(),
        "array-negative": (_int_block(_array_placement(-1)),) + _spec_block(),
        "overlapping": (_int_block(span(0, 1)), _int_block(span(0, 1))) + _spec_block(),
        "overlapping-array": (_int_block(_array_placement(1)),) + _spec_block(),
        "missing-column": (_int_block(span(0, 1)),),
        "block-with-more-rows": (_int_block(span(0, 1), rows=ROWS + 1),)
        + _spec_block(),
        "block-with-more-columns": (_int_block(span(0, 1), columns=2),) + _spec_block(),
        "block-of-three-dimensions": (
            block(frombuffer(INTS, dtype("i8"), (1, 1, ROWS)), span(0, 1)),
        )
        + _spec_block(),
        "empty-block-of-many-columns": (
            block(frombuffer(b"", dtype("i8"), (2**40, 0)), span(0, 2)),
        ),
    }
    found = {f"placement-{k}": result(frame(blocks=v)) for k, v in layouts.items()}
    found["placement-index-longer-than-blocks"] = result(frame(rows=range_index(10**6)))
    found["placement-ndim-3-block"] = result(
        frame(blocks=(block(frombuffer(INTS, dtype("i8"), (1, ROWS)), span(0, 1), 3),))
    )
    return found


def _memo_dag(levels: int) -> bytes:
    """A list of two references to a list of two references ... 2**levels leaves."""
    out = emit(Memo(["leaf"], 0))
    for level in range(1, levels + 1):
        out += b"0" + emit(Memo([Get(level - 1), Get(level - 1)], level))  # POP, push
    return out


def _bombs() -> dict[str, bytes]:
    """Small files that would take seconds and gigabytes if trusted."""
    zero_stride = frombuffer(struct.pack("<q", 7), dtype("i8"), (1, 10**8))
    huge = frombuffer(struct.pack("<q", 7), dtype("i8"), (1, 10**12))
    keys = {k * (2**61 - 1): k for k in range(5000)}  # all hash to 0
    return {
        "bomb-frozenset-range": result(
            Red(
                Glob("builtins", "frozenset"),
                (Red(Glob("builtins", "range"), (10**8,)),),
            )
        ),
        "bomb-frozenset-opcode": b"\x80\x04(" + b"K\x01" * 10 + b"\x91.",
        "bomb-bytearray-call": _meta(x=Red(Glob("builtins", "bytearray"), (10**10,))),
        "bomb-zero-stride-1e8-rows": result(
            frame(blocks=(block(zero_stride, span(0, 1)),) + _spec_block())
        ),
        "bomb-1e12-rows": result(
            frame(blocks=(block(huge, span(0, 1)),), rows=range_index(10**12))
        ),
        "bomb-rangeindex-1e12": result(
            frame(blocks=(), columns=range_index(0), rows=range_index(10**12))
        ),
        "bomb-columns-rangeindex-1e9": result(
            frame(blocks=(), columns=range_index(10**9))
        ),
        "bomb-object-array-shape": result(
            frame(blocks=(block(object_array(["a"], (1, 10**9)), span(0, 1)),))
        ),
        "bomb-memo-index": b"\x80\x02N" + b"r" + struct.pack("<I", 2**28) + b".",
        "bomb-memo-index-text": b"(lp268435456\n.",
        "bomb-binbytes8-length": b"\x80\x04\x8e" + struct.pack("<Q", 2**40) + b"x.",
        "bomb-frame-length": b"\x80\x04\x95" + struct.pack("<Q", 2**60) + b"N.",
        "bomb-memo-dag": pickle_of({"merged_df": frame(), "dag": Raw(_memo_dag(48))}),
        "bomb-colliding-dict-keys": _meta(x=keys),
        "bomb-long-metadata-list": _meta(x=[None] * 200_000),
        "bomb-deep-lists": b"\x80\x04" + b"]" * 200_000 + b"a" * 199_999 + b".",
        "bomb-deep-tuples": b"\x80\x04" + b"(" * 100_000 + b")" + b"t" * 100_000 + b".",
        "bomb-deep-dicts": b"\x80\x04" + b"}K\x01" * 100_000 + b"s" * 99_999 + b".",
        "bomb-deep-metadata": _meta(x=Raw(b"]" * 200_000 + b"a" * 199_999)),
        "bomb-int-10e5000-text": b"(dp0\nS'x'\nL" + b"9" * 5001 + b"L\ns.",
        "bomb-int-long4": _meta(x=Raw(_long4(b"\x01" * 2100))),
        "bomb-int-10e500-metadata": _meta(x=10**700),
        "bomb-empty-lists": b"\x80\x04]" + b"]a" * 3_000_000 + b".",
        "bomb-deep-calls": _meta(
            x=Raw(
                emit(Glob("builtins", "slice")) * 100_000
                + b")"
                + b"R\x85" * 99_999
                + b"R"
            )
        ),
        "bomb-large-attrs": result(frame(state={"attrs": {"x": list(range(5000))}})),
        "bomb-frame-in-an-object-cell": result(
            frame(
                blocks=(
                    _int_block(span(0, 1)),
                    block(object_array([frame(), 1, 2], (1, ROWS)), span(1, 2)),
                )
            )
        ),
    }


def _tz(zone: Any) -> dict[str, Any]:
    """A tz-aware column whose DatetimeTZDtype names ``zone``."""
    tz_dtype = Build(New(Glob("pandas", "DatetimeTZDtype")), {"unit": "ns", "tz": zone})
    values = frombuffer(INTS, dtype("M8", "<"), (1, ROWS))
    backed = Build(
        Red(Glob("pandas._libs.arrays", "__pyx_unpickle_NDArrayBacked"),
            (Glob("pandas.arrays", "DatetimeArray"), 82904607, None)),
        (tz_dtype, values),
    )  # fmt: skip
    return {"merged_df": frame(blocks=(block(backed, span(0, 1)),) + _spec_block())}


def _zoneinfo(key: str) -> Red:
    unpickle = Red(
        Glob("builtins", "getattr"), (Glob("zoneinfo", "ZoneInfo"), "_unpickle")
    )
    return Red(unpickle, (key, 1))


def _file_reads() -> dict[str, bytes]:
    """Zone names that are paths: a decoder that trusted them would open the file."""
    zones = {
        "dateutil-passwd": "dateutil//etc/passwd",
        "dateutil-dotdot": "dateutil/../../../../etc/passwd",
        "absolute-path": "/etc/passwd",
        "zoneinfo-dotdot": _zoneinfo("../../../../../../etc/passwd"),
        "zoneinfo-absolute": _zoneinfo("/etc/passwd"),
        "zoneinfo-unknown-name": _zoneinfo("etc/passwd"),
        "zoneinfo-dot-segments": _zoneinfo("Europe/./../../../etc/passwd"),
        "pytz-dotdot": Red(Glob("pytz", "_p"), ("../../../../etc/passwd", 0, 0, "X")),
        "dateutil-tzfile": Red(Glob("dateutil.tz.tz", "tzfile"), ("/etc/passwd",)),
    }
    found = {f"file-tz-{k}": pickle_of(_tz(v)) for k, v in zones.items()}
    stamp = Red(
        Glob("pandas._libs.tslibs.timestamps", "_unpickle_timestamp"),
        (0, None, "dateutil//etc/passwd", 10),
    )
    found["file-timestamp-tz"] = _meta(when=stamp)
    return found


def _garbage() -> dict[str, bytes]:
    """Malformed streams and values that once gave tracebacks."""
    import random

    noise = random.Random(9).randbytes(400)
    columns = index(
        "Index", {"data": object_array(["x", "\ud800"], (2,)), "name": None}
    )
    return {
        "garbage-random": noise,
        "garbage-after-header": b"\x80\x04" + noise,
        "garbage-frame-overflow": b"\x80\x04\x95" + b"\xff" * 8 + b"N.",
        "garbage-protocol-255": b"\x80\xff.",
        "garbage-empty": b"",
        "garbage-stack-underflow": b"\x80\x04R.",
        "garbage-odd-setitems": b"\x80\x04}(K\x01u.",
        "garbage-no-mark": b"\x80\x04K\x01t.",
        "garbage-truncated": VALID[: len(VALID) // 2],
        "garbage-negative-binstring": b"\x80\x02T\xff\xff\xff\xffN.",
        "garbage-unknown-opcode": b"\x80\x04\xff.",
        "garbage-surrogate-column-name": result(frame(columns=columns)),
        "garbage-surrogate-metadata": _meta(name="\udcff"),
        "garbage-not-a-dict": pickle_of([1, 2, 3]),
        "garbage-float-dict-key": _meta(x={1.5: 1}),
        "garbage-memo-get-unset": b"\x80\x04j\x05\x00\x00\x00.",
    }


VALID_TZ = pickle_of(_tz(_zoneinfo("Europe/Paris")))


def cases(marker: str | Path) -> dict[str, bytes]:
    """Every hostile case, by name; each must be refused."""
    return (
        _code(str(marker))
        | _patching()
        | _pointers()
        | _placements()
        | _bombs()
        | _file_reads()
        | _garbage()
    )


def main(argv: list[str]) -> int:
    out, marker = Path(argv[0]), argv[1]
    out.mkdir(parents=True, exist_ok=True)
    for name, data in cases(marker).items():
        (out / f"{name}.pkl").write_bytes(data)
    (out / "valid.pkl").write_bytes(VALID)
    (out / "valid-tz.pkl").write_bytes(VALID_TZ)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
