"""The summary of every ``-p`` group at once (``core.summary``) says what the
per-group definitions say: ``best_position``/``worst_position`` on the group's own
rows (first on ties, failed runs never best), its values at those rows, and the
parameters constant in it. Then through the command: ``kprofile FILE -p M`` reports
each group as ``kprofile`` reports the group written as a file of its own."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples, run

from kprofile.core.columns import group_rows, shape_columns
from kprofile.core.metric import (
    Metric,
    best_position,
    metric_values,
    ratio_to,
    worst_position,
)
from kprofile.core.summary import summaries
from kprofile.core.values import plain
from kprofile.inputs.load import Results

METRICS = st.sampled_from([1.0, 2.0, 2.0, 0.0, -1.0, math.nan, math.inf, 5e-324, 1e308])


def _results(rows: list[tuple[int, int, str, float]]) -> Results:
    frame = pd.DataFrame(
        {
            "mesh_idx": np.arange(len(rows)),
            "met (ms)": [r[3] for r in rows],
            "M": [r[0] for r in rows],
            "BM": [r[1] for r in rows],
            "S": [r[2] for r in rows],
        }
    )
    return Results("r.pkl", "pkl", frame, ("M", "BM", "S"))


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 2), st.sampled_from("ab"), METRICS),
        min_size=1,
        max_size=30,
    ),
    st.booleans(),
    st.sampled_from([(), ("M",), ("M", "S")]),
)
def test_every_group_is_summarized_as_it_would_be_alone(
    rows: list[tuple[int, int, str, float]], higher: bool, pivots: tuple[str, ...]
) -> None:
    results = _results(rows)
    metric = Metric("met (ms)", higher)
    grouping = group_rows(results, pivots)
    for g, summary in enumerate(summaries(grouping, metric)):
        part = grouping.part(g)
        frame = part.frame
        alone = Results(part.path, part.kind, frame, part.params)  # constant unknown
        values = metric_values(frame, metric)
        best, worst = best_position(values, metric), worst_position(values, metric)
        assert (summary.best, summary.worst) == (best, worst)
        assert summary.entries == len(frame)
        assert summary.failed == int((~(np.isfinite(values) & (values > 0))).sum())
        assert set(summary.shape) == set(shape_columns(alone))
        assert summary.shape == {c: plain(frame[c].iloc[0]) for c in summary.shape}
        if best is None:
            assert summary.config == {} and summary.best_row == ("", None)
            continue
        assert worst is not None
        assert summary.best_value == values[best]
        assert summary.worst_value == values[worst]
        expected = float(ratio_to(values[worst], values[best], metric))
        assert summary.worst_ratio == expected or (
            math.isnan(expected) and math.isnan(summary.worst_ratio)
        )
        assert summary.config == {p: plain(frame[p].iloc[best]) for p in part.params}
        assert summary.best_row == ("mesh_idx", plain(frame["mesh_idx"].iloc[best]))


def _summaries(out: str) -> list[dict[str, Any]]:
    """The summary sections without what names the file (title, source, mesh_idx:
    a file of one group numbers its rows from 0)."""
    found = []
    for section in json.loads(out)["sections"]:
        if section["view"] == "summary":
            section["facts"].pop("best mesh_idx", None)
            found.append(
                {k: section[k] for k in section if k not in ("title", "source")}
            )
    return found


def test_grouped_summaries_equal_the_groups_run_alone(
    kb_write: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    metric = [2.0, 1.0, 1.0, 0.0, math.nan, 3.0, 0.0, 0.0, 1.5, 1.5, 9.0, -2.5]
    rows = [
        {"M": (7, 3, 7, 5)[i % 4], "BM": 64 * (1 + i % 3), "met (ms)": m}
        for i, m in enumerate(metric)
    ]
    kb_write("all.pkl", rows)
    for m in (7, 3, 5):
        kb_write(f"m{m}.pkl", [r for r in rows if r["M"] == m])
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "all.pkl", "-p", "M", "--format", "json", "-o", "a")
    assert code == 0
    best_mesh = [
        s["facts"].get("best mesh_idx")
        for s in json.loads(out)["sections"]
        if s["view"] == "summary"
    ]
    assert best_mesh == [2, 1, None]  # M=5: every run failed
    grouped = _summaries(out)
    alone = []
    for m in (7, 3, 5):
        code, out, _ = run(capsys, f"m{m}.pkl", "--format", "json")
        alone += _summaries(out)
    assert grouped == alone
