"""Hostile result pickles, one per attack class and variants (see tests/pickle_asm.py).

    python tests/hostile_pickles.py OUT_FOLDER MARKER   # write every case as OUT/NAME.pkl

Each case differs from a frame that loads (``VALID``, ``VALID_TZ``) only in the part it
forges. ``cases(marker)`` returns ``{name: bytes}``; a payload that ran would create
``marker``.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path
from typing import Any

from hostile_kbench import kbench_cases
from hostile_limits import VALID_TZ, bounded_cases, limit_cases
from pickle_asm import (
    INTS,
    ROWS,
    VALID,
    Build,
    Glob,
    New,
    Raw,
    Red,
    block,
    dtype,
    emit,
    frame,
    frombuffer,
    index,
    object_array,
    pickle_of,
    range_index,
    result,
    span,
)

__all__ = ["VALID", "VALID_TZ", "bounded_cases", "cases"]

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


def _categorical(categories: Any, codes: bytes) -> Any:
    dtype_ = Build(
        New(Glob("pandas", "CategoricalDtype")),
        {"categories": categories, "ordered": False},
    )
    backed = Red(
        Glob("pandas._libs.arrays", "__pyx_unpickle_NDArrayBacked"),
        (Glob("pandas", "Categorical"), 82904607, None),
    )
    values = frombuffer(codes, dtype("i1", "|"), (len(codes),))
    return result(
        frame(
            blocks=(block(Build(backed, (dtype_, values)), span(0, 1)),) + _spec_block()
        )
    )


def _categoricals() -> dict[str, bytes]:
    """Categorical codes index the categories: they must stay inside them."""
    two = index("Index", {"data": object_array(["a", "b"], (2,)), "name": None})
    twice = index("Index", {"data": object_array(["a", "a"], (2,)), "name": None})
    return {
        "categorical-code-out-of-range": _categorical(two, bytes([0, 99, 1])),
        "categorical-negative-code": _categorical(two, bytes([0, 0xF0, 1])),
        "categorical-duplicate-categories": _categorical(twice, bytes([0, 1, 1])),
        "categorical-1e9-categories": _categorical(
            range_index(10**9), bytes([0, 1, 1])
        ),
        "categorical-20000-categories": _categorical(
            range_index(20_000), bytes([0, 1, 1])
        ),
    }


def cases(marker: str | Path) -> dict[str, bytes]:
    """Every hostile case, by name; each must be refused."""
    return (
        _code(str(marker))
        | _patching()
        | _pointers()
        | _placements()
        | _categoricals()
        | limit_cases()
        | kbench_cases()
    )


def main(argv: list[str]) -> int:
    out, marker = Path(argv[0]), argv[1]
    out.mkdir(parents=True, exist_ok=True)
    for name, data in cases(marker).items():
        (out / f"{name}.pkl").write_bytes(data)
    for name, data in bounded_cases().items():
        (out / f"{name}.pkl").write_bytes(data)
    (out / "valid.pkl").write_bytes(VALID)
    (out / "valid-tz.pkl").write_bytes(VALID_TZ)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
