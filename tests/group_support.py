"""Files of ``-p`` groups for property tests: rows of a kbench run whose parameter
columns decode to every kind a spec string makes (int64, float64 with ``-0.0`` beside
``0.0``, nullable integers where a spec lacks the parameter, objects mixing ``1``,
``True`` and text), metrics that tie, fail or sit at the ends of the floats."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

METRICS = st.sampled_from([1.0, 2.0, 2.0, 0.0, -1.0, math.nan, math.inf, 5e-324, 1e308])
VALUES = {
    "BM": st.sampled_from([64, 64, 128, 256]),
    "S": st.sampled_from(["a", "b", "b"]),
    "X": st.sampled_from(["1", "True", "x", "1.0", "0.0", "-0.0"]),
    "F": st.sampled_from(["0.0", "-0.0", "0.5"]),
}
PIVOTS = st.sampled_from([(), ("M",), ("M", "S"), ("S",)])
AMOUNTS = st.sampled_from([0.0, 0.01, 0.25, 0.5, 1.0, 3.0])


@st.composite
def result_rows(draw: st.DrawFn, most: int = 24) -> list[dict[str, Any]]:
    """Rows of a kbench run: a shape M, some parameters (each may be left out of a
    row's spec), a metric that may have failed."""
    rows = []
    for _ in range(draw(st.integers(1, most))):
        row: dict[str, Any] = {"M": draw(st.sampled_from([1, 2, 3]))}
        for name, values in VALUES.items():
            if draw(st.integers(0, 5)):  # mostly set
                row[name] = draw(values)
        row["met (ms)"] = draw(METRICS)
        rows.append(row)
    return rows


def same(a: Any, b: Any) -> bool:
    """Equal as values and types (``True`` is not ``1``, ``-0.0`` not ``0.0``); NaN
    equal to NaN."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return type(a) is type(b) and bool(a == b) and str(a) == str(b)
