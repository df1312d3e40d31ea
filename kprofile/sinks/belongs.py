"""Whether results belong to the manifest ``--update`` would change, and which of
their problems an entry only nearly matches.

Results of another benchmark (kbench's ``name``), or results whose swept parameters
no entry names (``BM``, ``BN``, ``BK`` against a table of ``TUNE_BM``...), would be put
in as new entries the code generator then refuses ("Missing snippet parameters"):
refused here, before anything is written, unless ``--accept-foreign`` says they
belong. Results that sweep some parameter no entry named before, besides those the
entries name (a tile the kernel gained), go in with a warning that names it.

An entry that agrees with a new shape on every problem column that varies, but names
another value of one the results hold fixed (N=4096 where every result has
N=8192), is another problem: the shape is added, never written over it, and a
warning names the entry and the ``-p`` that would update it instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kprofile.core.structure import GEMM_SIZES
from kprofile.core.values import shape_label
from kprofile.errors import KprofileError
from kprofile.manifest.change import Origin
from kprofile.manifest.layout import Layout
from kprofile.manifest.outcome import ShapeChange
from tuning_codegen.printable import one_line
from tuning_codegen.values import same_value

ACCEPT = "--accept-foreign"
SHOWN = 6  # names listed in a message at most


def check_origin(layout: Layout, origin: Origin, path: str) -> list[str]:
    """Refuse results of another benchmark, or whose swept parameters no entry
    names (an empty manifest takes anything); the warning for those that sweep
    some parameter no entry names."""
    benchmark = manifest_benchmark(layout)
    others = [n for n in origin.names if benchmark is not None and n != benchmark]
    if others:
        raise KprofileError(
            path,
            f"--update: the results are of benchmark {one_line(repr(others[0]))}, "
            f"the manifest's entries of {one_line(repr(benchmark))}; {ACCEPT} puts "
            "them in anyway",
        )
    if not layout.items:
        return []
    named = {k for item in layout.items for k in item.merged}
    unnamed = [p for p in origin.swept if p not in named]
    if unnamed and len(unnamed) == len(origin.swept):
        raise KprofileError(
            path,
            f"--update: no entry names {_names(unnamed)}, which the results sweep "
            f"(the entries name {_names(sorted(named))}); {ACCEPT} puts them in "
            "anyway",
        )
    if unnamed:
        return [
            one_line(
                f"{path}: warning: no entry named {_names(unnamed)} before; the "
                "results sweep it, so the entries they change or add name it"
            )
        ]
    return []


def manifest_benchmark(layout: Layout) -> str | None:
    """The benchmark a manifest's entries are of: its top-level ``name`` (kbench
    re-runs a manifest as a spec under it), else the ``name`` every entry has."""
    name = layout.document.get("name")
    if isinstance(name, str):
        return name
    names = {item.merged.get("name") for item in layout.items}
    if len(names) == 1:
        (only,) = names
        return only if isinstance(only, str) else None
    return None


def fixed_warnings(
    layout: Layout,
    changes: Sequence[ShapeChange],
    *,
    fixed: Sequence[str],
    path: str,
) -> list[str]:
    """A warning per added shape that an entry matches but for a fixed column the
    results cannot tell from an unvaried tile (a GEMM's N or K is a problem size by
    its name: the entry is another problem, and ``-p`` would overwrite it)."""
    if not fixed:
        return []
    out = []
    for change in changes:
        if change.status != "added":
            continue
        varying = {k: v for k, v in change.shape.items() if k not in fixed}
        for item in layout.items:
            differs = _differs_only_in(item.merged, change.shape, varying)
            if all(k.upper() in GEMM_SIZES for k in differs):
                continue  # another N, K: another problem by name, nothing to settle
            if differs:
                out.append(_warning(path, item.index, change.shape, varying, differs))
                break
    return out


def _differs_only_in(
    merged: Mapping[str, Any], shape: Mapping[str, Any], varying: Mapping[str, Any]
) -> list[str]:
    """The fixed columns ``merged`` names with another value, when it agrees on
    every varying one (none: it does not, or it is not another value at all)."""
    if not all(k in merged and same_value(merged[k], v) for k, v in varying.items()):
        return []
    return [
        k
        for k, v in shape.items()
        if k not in varying and k in merged and not same_value(merged[k], v)
    ]


def _warning(
    path: str,
    index: int,
    shape: Mapping[str, Any],
    varying: Mapping[str, Any],
    differs: Sequence[str],
) -> str:
    theirs = ", ".join(f"{k}={shape[k]}" for k in differs)
    keys = ",".join(varying)
    settle = f"; -p {keys} updates params[{index}] instead" if keys else ""
    return one_line(
        f"{path}: warning: added {shape_label(shape)} as a new entry: params[{index}] "
        f"has the same {', '.join(varying) or 'shape'} but another "
        f"{', '.join(differs)}, which every result holds at {theirs} (so taken as "
        f"part of the problem){settle}"
    )


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(names[:SHOWN])
    return shown + (f" and {len(names) - SHOWN} more" if len(names) > SHOWN else "")
