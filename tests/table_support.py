"""Helpers for the --score, --budget and --combine tests: tables as real manifests, and
the dispatch rule written out by hand (a brute-force scan of the entries in order)."""

from __future__ import annotations

import math
from typing import Any

import yaml

from tuning_codegen.manifest import Manifest, parse_manifest


def table(entries: list[dict[str, Any]], header: str = "") -> Manifest:
    """A manifest holding ``entries`` as a person writes one (block style), parsed by
    tuning_codegen's reader."""
    body = yaml.safe_dump({"params": entries}, sort_keys=False)
    return parse_manifest(header + body, "table.yaml")


def same(a: Any, b: Any) -> bool:
    """The documented equality, written out: missing == missing; booleans only equal
    booleans; numbers compare as numbers; strings as strings."""
    missing_a = a is None or (isinstance(a, float) and math.isnan(a))
    missing_b = b is None or (isinstance(b, float) and math.isnan(b))
    if missing_a or missing_b:
        return missing_a and missing_b
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    return type(a) is type(b) and a == b


def number(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return None if math.isnan(v) else float(v)


def brute(
    entries: list[dict[str, Any]], rows: list[dict[str, Any]], cols: list[str]
) -> list[int]:
    keys = [c for c in cols if any(c in e for e in entries)]
    out = []
    for row in rows:
        taken = -1
        for i, e in enumerate(entries):
            ok = True
            for c in keys:
                end = c + ("_end" if c.islower() else "_END")
                if end in e:
                    v = number(row[c])
                    ok = v is not None and e[c] <= v < e[end]
                else:
                    ok = same(e.get(c), row[c])
                if not ok:
                    break
            if ok:
                taken = i
                break
        out.append(taken)
    return out
