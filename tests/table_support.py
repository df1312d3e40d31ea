"""Helpers for the --score, --budget and --combine tests: tables as real manifests, the
dispatch rule written out by hand (a brute-force scan of the entries in order), the
held-out pair decoded by hand, and a table's score computed apart."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from kprofile.core.score import FAILED, NO_ENTRY, NO_RUN, NOT_MEASURED, SCORED
from tuning_codegen.manifest import Manifest, parse_manifest

HELDOUT = Path(__file__).resolve().parents[1] / "fixtures" / "heldout"
SHAPE = ["M", "N"]
PARAMS = ["BM", "STAGES"]
HELDOUT_SHAPE = ["M", "N", "K"]
HELDOUT_PARAMS = ["BM", "BN", "STAGES", "SWAP_AB"]


def table(entries: list[dict[str, Any]], header: str = "") -> Manifest:
    """A manifest holding ``entries`` as a person writes one (block style), parsed by
    tuning_codegen's reader."""
    body = yaml.safe_dump({"params": entries}, sort_keys=False)
    return parse_manifest(header + body, "table.yaml")


def same(a: Any, b: Any) -> bool:
    """The documented equality, written out: missing == missing; booleans only equal
    booleans; numbers compare as numbers, exactly (Python compares an int with a
    float without rounding either); strings as strings."""
    missing_a = a is None or (isinstance(a, float) and math.isnan(a))
    missing_b = b is None or (isinstance(b, float) and math.isnan(b))
    if missing_a or missing_b:
        return missing_a and missing_b
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return bool(a == b)
    return type(a) is type(b) and a == b


def number(v: Any) -> int | float | None:
    """A number as itself (never rounded to a float), else None."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return None if math.isnan(v) else v


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


def reference(
    df: pd.DataFrame,
    entries: list[dict[str, Any]],
    higher: bool,
    shape: list[str] = SHAPE,
    params: list[str] = PARAMS,
    metric: str = "met",
) -> dict[tuple[Any, ...], tuple[str, float]]:
    """Per shape (tuple of ``shape`` values): its status and ratio (NaN unless
    scored)."""
    good = df[np.isfinite(df[metric]) & (df[metric] > 0)]
    pick = max if higher else min
    out = {}
    for key in df[shape].drop_duplicates().itertuples(index=False):
        at = dict(zip(shape, key))
        here = good[(good[shape] == pd.Series(at)).all(axis=1)]
        entry = brute(entries, [at], shape)[0]
        if entry < 0:
            out[tuple(key)] = (NO_ENTRY, math.nan)
            continue
        if here.empty:
            out[tuple(key)] = (NO_RUN, math.nan)
            continue
        best = pick(here[metric])
        wanted = entries[entry]
        rows = here[
            [
                all(same(wanted.get(p), plain_value(row[p])) for p in params)
                for _, row in here.iterrows()
            ]
        ]
        if rows.empty:  # it ran there and failed, or never ran there
            tried = df[(df[shape] == pd.Series(at)).all(axis=1)]
            failed = any(
                all(same(wanted.get(p), plain_value(row[p])) for p in params)
                for _, row in tried.iterrows()
            )
            out[tuple(key)] = (FAILED if failed else NOT_MEASURED, math.nan)
            continue
        value = pick(rows[metric])
        out[tuple(key)] = (SCORED, best / value if higher else value / best)
    return out


def plain_value(v: Any) -> Any:
    if isinstance(v, np.generic):
        v = v.item()
    return None if isinstance(v, float) and math.isnan(v) else v


def raw_csv(path: Path) -> pd.DataFrame:
    """A kbench CSV with its spec decoded by hand: M, N, K, BM, BN, STAGES as ints,
    SWAP_AB as a boolean."""
    raw = pd.read_csv(path)
    tokens = [
        dict(t.lstrip("$").split("=") for t in s.split("/")[1:]) for s in raw["spec"]
    ]
    params = pd.DataFrame(tokens)
    for column in ("M", "N", "K", "BM", "BN", "STAGES"):
        params[column] = params[column].astype(int)
    params["SWAP_AB"] = params["SWAP_AB"] == "True"
    return pd.concat([params, raw[["met (ms)"]]], axis=1)
