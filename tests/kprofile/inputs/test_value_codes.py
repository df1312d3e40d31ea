"""The loader's value codes (``Results.value_codes``) number a parameter's values as
``pd.factorize`` of its column does: the views use them instead of factorizing again."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kprofile.inputs.load import load_results
from kprofile.inputs.spec import expand_specs

ROOT = Path(__file__).resolve().parents[3] / "fixtures"
GENUINE = sorted(
    [
        *(ROOT / "realkbench").glob("*/out.*"),
        *(ROOT / "heldout").glob("run_*"),
        *(ROOT / "kbench").glob("*/*.pkl"),
    ]
)
# E: a sweep where nothing ran (no merged_df: refused, tests/kprofile/test_failures.py)
GENUINE = [p for p in GENUINE if p.suffix in (".pkl", ".csv") and p.parent.name != "E"]


def same_partition(codes: np.ndarray, column: object) -> bool:
    """The same values share a code in both (first-appearance numbering compared;
    a missing value, -1 in ``codes``, a value like any other)."""
    expected = pd.factorize(column, use_na_sentinel=False)[0]  # type: ignore[call-overload]
    return bool(np.array_equal(pd.factorize(codes)[0], expected))


@pytest.mark.parametrize("path", GENUINE, ids=lambda p: str(p.relative_to(ROOT)))
def test_genuine_runs_codes_are_factorize_codes(path: Path) -> None:
    results = load_results(str(path))
    assert results.params
    for p in results.params:
        codes = results.value_codes(p)
        assert results.known_codes is not None and p in results.known_codes.codes
        assert (codes < 0).sum() == results.frame[p].isna().sum()
        assert same_partition(codes, results.frame[p]), p


SPECS = [
    "b/X=1/Y=0",
    "b/X=1.0/Y=-0",
    "b/X=True/Y=0.0",
    "b/X='1'/Y=-0.0",
    "b/X=9223372036854775808/Y=1e999",
    "b/X=9223372036854775809",
    "b/Y=inf",
    "b/X=ws/Z=1",
]


def test_mixed_values_codes_follow_pandas_equality() -> None:
    """1, 1.0 and True are one value to pandas in an object column; two ints past
    int64 stay apart, as do 0 and -0.0's neighbours; a missing value is -1."""
    decoded = expand_specs(SPECS * 3)
    for name in decoded.names:
        column = pd.Series(decoded.columns[name])
        assert same_partition(decoded.codes[name], column), name
        assert (decoded.codes[name] < 0).sum() == column.isna().sum()
    assert len(set(decoded.codes["X"][:8].tolist())) < 7  # some merged by pandas


def test_a_record_with_another_frame_factorizes_its_own() -> None:
    """Codes made for the loaded frame are never used for a filtered one."""
    results = load_results(str(ROOT / "realkbench" / "A" / "out.pkl"))
    name = results.params[-1]
    kept = results.frame.iloc[::-2].reset_index(drop=True)
    narrowed = dataclasses.replace(results, frame=kept)
    codes = narrowed.value_codes(name)
    assert len(codes) == len(kept)
    assert same_partition(codes, kept[name])
