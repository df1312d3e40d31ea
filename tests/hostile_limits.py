"""Hostile pickles that aim at the decoder's limits: memory and time bombs, zone names
that are paths, and malformed streams (the other classes are in hostile_pickles.py)."""

from __future__ import annotations

import functools
import random
import struct
from typing import Any

from pickle_asm import (
    INTS,
    ROWS,
    VALID,
    Build,
    Get,
    Glob,
    Memo,
    New,
    Raw,
    Red,
    block,
    dtype,
    emit,
    frame,
    frombuffer,
    index,
    long4,
    object_array,
    pickle_of,
    range_index,
    result,
    span,
)


def _meta(**values: Any) -> bytes:
    """A valid result whose metadata carries ``values``."""
    return result(frame(), **values)


def _spec_block() -> tuple[Any, ...]:
    return (block(object_array(["a", "b", "c"], (1, ROWS)), span(1, 2)),)


def _int_block(placement: Any, rows: int = ROWS, columns: int = 1) -> Red:
    data = struct.pack(f"<{rows * columns}q", *range(rows * columns))
    return block(frombuffer(data, dtype("i8"), (columns, rows)), placement)


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
    }


def _structure_bombs() -> dict[str, bytes]:
    """Memo tricks, nesting and numbers: refused by the scan or the walk's limits."""
    return {
        "bomb-memo-index": b"\x80\x02N" + b"r" + struct.pack("<I", 2**28) + b".",
        "bomb-memo-index-text": b"(lp268435456\n.",
        "bomb-binbytes8-length": b"\x80\x04\x8e" + struct.pack("<Q", 2**40) + b"x.",
        "bomb-frame-length": b"\x80\x04\x95" + struct.pack("<Q", 2**60) + b"N.",
        "bomb-memo-dag": pickle_of({"merged_df": frame(), "dag": Raw(_memo_dag(48))}),
        "bomb-colliding-dict-keys": _meta(x={k * (2**61 - 1): k for k in range(5000)}),
        "bomb-long-metadata-list": _meta(x=[None] * 200_000),
        "bomb-deep-lists": b"\x80\x04" + b"]" * 200_000 + b"a" * 199_999 + b".",
        "bomb-deep-tuples": b"\x80\x04" + b"(" * 100_000 + b")" + b"t" * 100_000 + b".",
        "bomb-deep-dicts": b"\x80\x04" + b"}K\x01" * 100_000 + b"s" * 99_999 + b".",
        "bomb-deep-metadata": _meta(x=Raw(b"]" * 200_000 + b"a" * 199_999)),
        "bomb-int-10e5000-text": b"(dp0\nS'x'\nL" + b"9" * 5001 + b"L\ns.",
        "bomb-int-long4": _meta(x=Raw(long4(b"\x01" * 2100))),
        "bomb-int-10e500-metadata": _meta(x=10**700),
        "bomb-many-frames": pickle_of(
            {"merged_df": frame(), "x": [Memo(frame(), 0)] + [Get(0)] * 5000}
        ),
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


def bounded_cases() -> dict[str, bytes]:
    """Heavy but legitimate shapes: they may load, within the same limits."""
    stamp = Red(
        Glob("pandas._libs.tslibs.timestamps", "_unpickle_timestamp"),
        (1, None, None, 10),
    )
    cells = [Memo(stamp, 0)] + [Get(0)] * 200_000
    shared = block(object_array(cells, (1, len(cells))), span(0, 1))
    wide = tuple(
        block(frombuffer(struct.pack("<q", i), dtype("i8"), (1, 1)), span(i, i + 1))
        for i in range(10_000)
    )
    return {
        "heavy-one-timestamp-in-200000-cells": result(
            frame(
                blocks=(shared,), columns=range_index(1), rows=range_index(len(cells))
            )
        ),
        "heavy-10000-columns": result(
            frame(blocks=wide, columns=range_index(10_000), rows=range_index(1))
        ),
        "heavy-4000-colliding-keys": _meta(x={k * (2**61 - 1): k for k in range(4000)}),
        "heavy-memo-spam": b"\x80\x04N" + b"\x94" * 3_000_000 + b".",
    }


@functools.cache  # built once per process: collection and the tests both ask
def limit_cases() -> dict[str, bytes]:
    return _bombs() | _structure_bombs() | _file_reads() | _garbage()
