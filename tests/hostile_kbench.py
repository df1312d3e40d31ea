"""Hostile pickles aimed at what kbench's files hold: pyarrow buffers, paths, strided
placements, MultiIndex rows, tuples in cells, read-only arrays, compressed streams.

Each case differs from ``VALID_KBENCH`` (a frame whose ``spec`` column and column
labels are pyarrow-backed, with a nullable pyarrow ``double`` column, a strided block,
and ``file`` a ``pathlib.PosixPath``) only in the part it forges. ``kbench_cases()``
returns ``{name: bytes}``, every one to be refused.
"""

from __future__ import annotations

import bz2
import functools
import lzma
import struct
import zlib
from typing import Any

from pickle_asm import (
    ROWS,
    Build,
    Glob,
    New,
    Red,
    block,
    dtype,
    frame,
    frombuffer,
    index,
    object_array,
    result,
    span,
)

LIB = "pyarrow.lib"
SPECS = ["k/BM=1", "k/BM=2", "k/BM=3"]


def buffer(data: bytes) -> Red:
    return Red(Glob(LIB, "py_buffer"), (bytearray(data),))


def arrow(
    kind: str,
    length: int,
    buffers: list[Any],
    *,
    nulls: int = 0,
    offset: int = 0,
    children: Any = None,
    dictionary: Any = None,
) -> Red:
    """``_restore_array`` of an array of ``kind`` over raw ``buffers`` (None: absent)."""
    described = (
        Red(Glob(LIB, "type_for_alias"), (kind,)),
        length,
        nulls,
        offset,
        [
            None if b is None else b if isinstance(b, Red) else buffer(b)
            for b in buffers
        ],
        [] if children is None else children,
        dictionary,
    )
    return Red(Glob(LIB, "_restore_array"), (described,))


def text_buffers(texts: list[str], width: str = "<q") -> list[Any]:
    data = "".join(texts).encode()
    bounds = [0]
    for text in texts:
        bounds.append(bounds[-1] + len(text.encode()))
    return [None, struct.pack(f"{width[0]}{len(bounds)}{width[1]}", *bounds), data]


def strings(texts: list[str]) -> Red:
    return arrow("large_string", len(texts), text_buffers(texts))


def string_array(pa: Any, **state: Any) -> Build:
    """pandas 3's ``ArrowStringArray`` over the pyarrow array ``pa``."""
    dtype_ = Red(Glob("pandas", "StringDtype"), ("pyarrow", Glob("pandas", "NA")))
    full = {"_pa_array": pa, "_dtype": dtype_, "_readonly": False, "_cache": {}}
    return Build(New(Glob("pandas.arrays", "ArrowStringArray")), full | state)


def extension_array(pa: Any, kind: str = "double") -> Build:
    arrow_dtype = Build(
        New(Glob("pandas", "ArrowDtype")),
        {
            "pyarrow_dtype": Red(Glob(LIB, "type_for_alias"), (kind,)),
            "_storage": "pyarrow",
        },
    )
    state = {"_pa_array": pa, "_dtype": arrow_dtype, "_readonly": False}
    return Build(New(Glob("pandas.arrays", "ArrowExtensionArray")), state)


DOUBLES = struct.pack("<3d", 0.5, 0.0, 2.5)


def doubles(**overrides: Any) -> Red:
    """A nullable pyarrow double column: 0.5, null, 2.5."""
    fields = {"length": ROWS, "nulls": 1, "buffers": [b"\x05", DOUBLES]} | overrides
    return arrow("double", fields.pop("length"), fields.pop("buffers"), **fields)


def posix_path(*parts: Any) -> Red:
    return Red(Glob("pathlib._local", "PosixPath"), parts)


def kbench_frame(
    *,
    spec: Any = None,
    met: Any = None,
    ints: Any = None,
    columns: Any = None,
    rows: Any = None,
) -> Build:
    """Columns x (int64), spec (pyarrow strings), met (pyarrow doubles), n (int64):
    the two int64 columns are one block placed at ``slice(0, 6, 3)``."""
    values = struct.pack(f"<{2 * ROWS}q", *range(2 * ROWS))
    blocks = (
        block(
            frombuffer(values, dtype("i8"), (2, ROWS)),
            span(0, 6, 3) if ints is None else ints,
        ),
        block(string_array(strings(SPECS)) if spec is None else spec, span(1, 2)),
        block(extension_array(doubles()) if met is None else met, span(2, 3)),
    )
    if columns is None:
        columns = index(
            "Index",
            {"data": string_array(strings(["x", "spec", "met", "n"])), "name": None},
        )
    return frame(blocks=blocks, columns=columns, rows=rows)


def kbench_result(df: Any = None, **meta: Any) -> bytes:
    file = meta.pop("file", posix_path("/", "home", "k", "bench.mojo"))
    return result(kbench_frame() if df is None else df, file=file, **meta)


VALID_KBENCH = kbench_result()


def _arrow_cases() -> dict[str, bytes]:
    """Forged pyarrow buffers, offsets, lengths and types: none may be read past."""
    texts = text_buffers(SPECS)
    short_data = [None, texts[1], texts[2][:-3]]
    backwards = [None, struct.pack("<4q", 0, 6, 2, 18), texts[2]]
    negative = [None, struct.pack("<4q", -6, 0, 6, 12), texts[2]]
    huge_offset = [None, struct.pack("<4q", 0, 6, 12, 2**62), texts[2]]
    bad_utf8 = [None, struct.pack("<4q", 0, 2, 4, 6), b"\xff\xfe\xc3\x28ok"]
    spec = {
        "offsets-past-the-text": arrow("large_string", ROWS, short_data),
        "offsets-going-backwards": arrow("large_string", ROWS, backwards),
        "offsets-negative": arrow("large_string", ROWS, negative),
        "offset-beyond-2-62": arrow("large_string", ROWS, huge_offset),
        "offsets-buffer-too-short": arrow(
            "large_string", ROWS, [None, texts[1][:16], texts[2]]
        ),
        "length-past-the-offsets": arrow("large_string", 2**40, texts),
        "length-negative": arrow("large_string", -1, texts),
        "array-offset-past-the-buffers": arrow("large_string", ROWS, texts, offset=2),
        "array-offset-huge": arrow("large_string", ROWS, texts, offset=2**62),
        "text-not-utf8": arrow("large_string", ROWS, bad_utf8),
        "no-offsets-buffer": arrow("large_string", ROWS, [None, None, texts[2]]),
        "string-32-bit-offsets-as-64": arrow("string", ROWS, texts),
        "two-buffers-for-text": arrow("large_string", ROWS, texts[1:]),
        "null-count-above-length": arrow("large_string", ROWS, texts, nulls=4),
        "type-timestamp": arrow("timestamp[ns]", ROWS, [None, DOUBLES]),
        "type-dictionary": arrow(
            "dictionary<values=string, indices=int8>", ROWS, texts
        ),
        "array-of-unknown-layout": Red(
            Glob(LIB, "_restore_array"), ((Glob(LIB, "py_buffer"), 3),)
        ),
        "children": arrow("large_string", ROWS, texts, children=[strings(SPECS)]),
        "dictionary": arrow("large_string", ROWS, texts, dictionary=strings(SPECS)),
        "chunks-of-another-type": Red(
            Glob(LIB, "chunked_array"),
            (
                [strings(SPECS[:1]), doubles(length=2)],
                Red(Glob(LIB, "type_for_alias"), ("large_string",)),
            ),
        ),
        "buffer-of-a-list": arrow(
            "large_string",
            ROWS,
            [None, Red(Glob(LIB, "py_buffer"), ([1, 2],)), texts[2]],
        ),
    }
    met = {
        "validity-bitmap-empty": doubles(buffers=[b"", DOUBLES]),
        "null-count-disagrees-with-bitmap": doubles(nulls=2),
        "nulls-without-a-bitmap": doubles(buffers=[None, DOUBLES]),
        "numbers-buffer-too-short": doubles(buffers=[b"\x05", DOUBLES[:16]]),
        "numbers-offset-past-the-buffer": doubles(offset=1, nulls=-1),
        "bitmap-offset-huge": doubles(offset=2**40, nulls=-1),
        "dtype-disagrees": extension_array(doubles(), kind="int64"),
        "bool-data-too-short": extension_array(
            arrow("bool", ROWS, [None, b""]), kind="bool"
        ),
    }
    found = {
        f"arrow-spec-{k}": kbench_result(kbench_frame(spec=string_array(v)))
        for k, v in spec.items()
    }
    found |= {
        f"arrow-met-{k}": kbench_result(
            kbench_frame(met=v if isinstance(v, Build) else extension_array(v))
        )
        for k, v in met.items()
    }
    found["arrow-string-array-of-numbers"] = kbench_result(
        kbench_frame(spec=string_array(doubles()))
    )
    found["arrow-readonly-not-a-bool"] = kbench_result(
        kbench_frame(spec=string_array(strings(SPECS), _readonly="yes"))
    )
    found["arrow-state-with-other-attributes"] = kbench_result(
        kbench_frame(spec=string_array(strings(SPECS), __class__="x"))
    )
    found["arrow-labels-forged"] = kbench_result(
        kbench_frame(
            columns=index(
                "Index",
                {
                    "data": string_array(arrow("large_string", 4, short_data)),
                    "name": None,
                },
            )
        )
    )
    return found


def _other_cases() -> dict[str, bytes]:
    """Paths, strided placements, MultiIndex rows, tuples and read-only arrays."""
    ints = struct.pack(f"<{ROWS}q", *range(ROWS))
    level = index("Index", {"data": object_array(["a", "b"], (2,)), "name": None})

    def multi(codes: list[Any], levels: Any = None, names: Any = None) -> Red:
        state = {
            "levels": [level] if levels is None else levels,
            "codes": codes,
            "sortorder": None,
            "names": [None] if names is None else names,
        }
        return index("MultiIndex", state)

    def codes(*values: int) -> Red:
        return frombuffer(
            struct.pack(f"<{len(values)}b", *values), dtype("i1", "|"), (len(values),)
        )

    def cells(items: list[Any], attributes: Any) -> bytes:
        """A frame of pandas 3's read-only StringArray (a sliced frame's view)."""
        backed = Red(
            Glob("pandas._libs.arrays", "__pyx_unpickle_NDArrayBacked"),
            (Glob("pandas.arrays", "StringArray"), 82904607, None),
        )
        dtype_ = Red(Glob("pandas", "StringDtype"), ("python", Glob("pandas", "NA")))
        values = Build(backed, (dtype_, object_array(items, (ROWS,)), attributes))
        first = block(frombuffer(ints, dtype("i8"), (1, ROWS)), span(0, 1))
        return result(frame(blocks=(first, block(values, span(1, 2)))))

    def tuples(items: list[Any]) -> bytes:
        column = block(object_array(items, (1, ROWS)), span(1, 2))
        first = block(frombuffer(ints, dtype("i8"), (1, ROWS)), span(0, 1))
        return result(frame(blocks=(first, column)))

    nested: Any = 1
    for _ in range(100):
        nested = (nested,)
    return {
        "path-of-too-many-parts": kbench_result(file=posix_path(*(["a"] * 10_000))),
        "path-part-not-text": kbench_result(file=posix_path("/", 7)),
        "path-part-huge": kbench_result(file=posix_path("/", "a" * 5000)),
        "path-with-state": kbench_result(
            file=Build(posix_path("/", "a"), {"_str": "/etc"})
        ),
        "path-part-a-record": kbench_result(
            file=posix_path("/", Red(Glob("os", "getcwd")))
        ),
        "placement-strided-outside": kbench_result(kbench_frame(ints=span(0, 7, 3))),
        "placement-strided-overlapping": kbench_result(
            kbench_frame(ints=span(1, 3, 1))
        ),
        "placement-strided-zero-step": kbench_result(kbench_frame(ints=span(0, 6, 0))),
        "multiindex-code-past-its-level": result(frame(rows=multi([codes(0, 1, 2)]))),
        "multiindex-code-below-minus-one": result(frame(rows=multi([codes(0, -2, 1)]))),
        "multiindex-codes-and-levels-disagree": result(
            frame(rows=multi([codes(0, 1, 1), codes(0, 0, 0)]))
        ),
        "multiindex-float-codes": result(
            frame(
                rows=multi([frombuffer(struct.pack("<3d", 0, 1, 1), dtype("f8"), (3,))])
            )
        ),
        "multiindex-of-100-levels": result(
            frame(rows=multi([codes(0, 1, 1)] * 100, [level] * 100, [None] * 100))
        ),
        "multiindex-other-attributes": result(
            frame(
                rows=index(
                    "MultiIndex",
                    {
                        "levels": [level],
                        "codes": [codes(0, 1, 1)],
                        "names": [None],
                        "sortorder": None,
                        "x": 1,
                    },
                )
            )
        ),
        "multiindex-shorter-than-rows": result(frame(rows=multi([codes(0, 1)]))),
        "tuple-of-a-frame": tuples([("a",), (frame(),), ("c",)]),
        "tuple-of-100-items": tuples([tuple(range(100)), (1,), (2,)]),
        "tuple-nested-100-deep": tuples([nested, (1,), (2,)]),
        "tuple-of-a-code-record": tuples(
            [(Red(Glob("builtins", "eval"), ("1",)),), (1,), (2,)]
        ),
        "readonly-not-a-bool": cells(SPECS, {"_readonly": 1}),
        "readonly-with-other-attributes": cells(
            SPECS, {"_readonly": True, "_ndarray": 1}
        ),
        "readonly-cells-not-text": cells([b"raw", "b", "c"], {"_readonly": True}),
    }


def _zstd_bomb(size: int) -> bytes:
    """A zstd frame of RLE blocks (4 bytes each for 128 KiB of zeros), made by hand."""
    block_size = 2**17
    count = size // block_size
    header = b"\x28\xb5\x2f\xfd" + bytes([0x00, 7 << 3])  # no size; 128 KiB window
    blocks = [
        struct.pack("<I", (block_size << 3) | (1 << 1) | (n == count - 1))[:3] + b"\0"
        for n in range(count)
    ]
    return header + b"".join(blocks)


def _compressed_cases() -> dict[str, bytes]:
    """Decompression bombs and broken streams, under a plain ``.pkl`` name."""
    zeros = 80 * 2**20  # past 100x the compressed size + 64 MiB
    gz = _gzip(bytes(zeros))
    good = _gzip(VALID_KBENCH)
    return {
        "compressed-gzip-bomb": gz,
        "compressed-bz2-bomb": bz2.compress(bytes(zeros)),
        "compressed-xz-bomb": lzma.compress(bytes(zeros), preset=1),
        "compressed-zstd-bomb": _zstd_bomb(zeros),
        "compressed-gzip-truncated": good[: len(good) // 2],
        "compressed-gzip-corrupt": good[:20] + bytes(len(good) - 28) + good[-8:],
        "compressed-gzip-of-a-hostile-pickle": _gzip(
            result(Red(Glob("os", "system"), ("true",)))
        ),
        "compressed-gzip-of-gzip-bomb": _gzip(gz),
    }


def _gzip(data: bytes) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)
    return packer.compress(data) + packer.flush()


@functools.cache  # built once per process: collection and the tests both ask
def kbench_cases() -> dict[str, bytes]:
    """Every hostile case of this module, by name; each must be refused."""
    return _arrow_cases() | _other_cases() | _compressed_cases()
