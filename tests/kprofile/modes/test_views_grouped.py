"""The per-file views, built for every ``-p`` group at once, show each group as the
views did when they ran on the group split off (``split_by``): the same text, the
same Markdown, the same JSON, the same rows selected.

The expected sections are computed here, independently of the views: the entries
tables as pandas DataFrames of the group's own rows, the common configs by the
oracle (``tests/select_oracle.py``, one group at a time), the summary with pandas,
and every title, label and fact spelled out in this file. Then through the
command: ``kprofile FILE -p M`` with every view shows each group as ``kprofile``
shows the group written as a file of its own.
"""

from __future__ import annotations

import json
import math
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from group_support import AMOUNTS, PIVOTS, result_rows
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from select_oracle import common_config
from support import examples, run

from kprofile.core.columns import group_rows
from kprofile.core.metric import Metric
from kprofile.core.ranked import rank_groups
from kprofile.core.summary import summaries
from kprofile.inputs.load import Results, load_results
from kprofile.modes import VIEWS
from kprofile.modes.views import Groups, summary_view
from kprofile.render import render_json, render_markdown, render_plain
from kprofile.render.section import Section

COMMON = {"--top": "top", "--top-fraction": "top-fraction", "--within": "within"}


def _metric(frame: pd.DataFrame, metric: Metric) -> np.ndarray:
    """The metric column as floats; a run failed where it is not a positive finite
    number (the project's convention)."""
    return pd.to_numeric(frame[metric.column], errors="coerce").to_numpy(float)


def _valid(values: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.isfinite(values) & (values > 0)


def _order(values: np.ndarray, metric: Metric) -> np.ndarray:
    """Positions of the runs that succeeded, best first, ties in input order."""
    ran = np.flatnonzero(_valid(values))
    key = -values[ran] if metric.higher_is_better else values[ran]
    return ran[np.argsort(key, kind="stable")]


def _ratio(values: np.ndarray, best: float, metric: Metric) -> np.ndarray:
    with np.errstate(all="ignore"):
        ratio = best / values if metric.higher_is_better else values / best
    return np.where(_valid(values), ratio, np.nan)


def _python(value: Any) -> Any:
    """A cell as a Python value, missing as None."""
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return None
    return value.item() if isinstance(value, np.generic) else value


def _label(value: Any) -> str:
    value = _python(value)
    return "NA" if value is None else str(value)


def _varying(part: Results) -> list[str]:
    frame = part.frame
    return [p for p in part.params if frame[p].nunique(dropna=False) > 1]


def _title(part: Results, group: str, what: str = "") -> str:
    head = part.path + (f" [{group}]" if group else "")
    return f"{head}: {what}" if what else head


def _entries(
    results: Results, positions: np.ndarray, metric: Metric, *, failed: bool = False
) -> pd.DataFrame:
    """An entries table as a DataFrame of the group's own rows: the row key, the
    parameters that vary, the metric and the ratio to the best."""
    frame = results.frame
    values = _metric(frame, metric)
    order = _order(values, metric)
    best_value = float(values[order[0]]) if len(order) else math.nan
    if failed:
        positions = np.concatenate([positions, np.flatnonzero(~_valid(values))])
    positions = np.asarray(positions, dtype=np.intp)
    data: dict[str, Any] = {
        c: frame[c].array.take(positions) for c in [results.row_key, *_varying(results)]
    }
    data[metric.column] = values[positions]
    data["ratio"] = _ratio(values[positions], best_value, metric)
    ran = _valid(values[positions])
    if not ran.all():  # a failed row says so (these files record no kind)
        data["status"] = np.where(ran, "ran", "failed").astype(object)
    return pd.DataFrame(data, copy=False)


def _selection(flag: str, amount: float, metric: Metric) -> str:
    if flag == "--top":
        band = (
            "above max - {0:g} x max"
            if metric.higher_is_better
            else ("below min + {0:g} x max")
        )
        return f"top {amount:g} ({band.format(amount)})"
    if flag == "--top-fraction":
        return f"top fraction {amount:g} ({amount * 100:g}% of ranked entries)"
    return f"within {amount:g} of the best (ratio <= {1 + amount:g})"


def _measured(part: Results, common: Any) -> str:
    if not len(common.subset):
        return "no run succeeded"
    if common.measured is None:
        return "never benchmarked"
    row = f"mesh_idx {part.frame['mesh_idx'].iloc[common.measured]}"
    if math.isnan(common.ratio):
        return f"{row}, but the run failed"
    return f"{row}, ratio {common.ratio:.3f}"


def _expected(
    part: Results,
    metric: Metric,
    flag: str,
    amount: Any,
    group: str,
    verbose: bool,
) -> tuple[list[Section], np.ndarray | None]:
    """A view of one group split off, and the rows it selects (the group's own)."""
    order = _order(_metric(part.frame, metric), metric)
    path = part.path
    top = (0,) if len(order) else ()
    if flag == "--ratio":
        table = _entries(part, order, metric, failed=True)
        title = _title(part, group, "ratio to best")
        return [Section("ratio", title, path, (), table, highlight=top)], None
    if flag == "--head":
        chosen = order[:amount]
        table = _entries(part, chosen, metric)
        title = _title(part, group, f"best {amount}")
        return [
            Section("head", title, path, (), table, highlight=top[: len(chosen)])
        ], chosen
    if flag == "--tail":
        chosen = order[max(len(order) - amount, 0) :]
        title = _title(part, group, f"worst {amount}")
        return [
            Section("tail", title, path, (), _entries(part, chosen, metric))
        ], chosen
    kind = COMMON[flag]
    common = common_config(part, metric, kind=kind, amount=amount)
    what = _selection(flag, amount, metric)
    config = "/".join(f"{k}={_label(v)}" for k, v in common.config.items())
    facts = (
        ("selection", what),
        ("entries", f"{len(common.subset)} of {len(order)} that ran"),
        ("common config", config or "-"),
        ("measured", _measured(part, common)),
    )
    table = pd.DataFrame(
        {
            "parameter": [m.name for m in common.modes],
            "most frequent": pd.Series([m.value for m in common.modes], dtype=object),
            "share": [m.share for m in common.modes],
        }
    )
    sections = [Section(kind, _title(part, group, what), path, facts, table)]
    if verbose:
        subset = _entries(part, common.subset, metric)
        sections.append(
            Section(
                f"{kind}-subset",
                _title(part, group, f"{kind} subset"),
                path,
                (),
                subset,
                highlight=(0,) if len(subset) else (),
            )
        )
    return sections, common.subset


def _summary(part: Results, metric: Metric, group: str) -> Section:
    """The summary section of one group split off, computed with pandas."""
    frame = part.frame
    values = _metric(frame, metric)
    valid = _valid(values)
    varying = _varying(part)
    shape = "/".join(
        f"{p}={_label(frame[p].iloc[0])}" for p in part.params if p not in varying
    )
    facts: list[tuple[str, object]] = [
        ("entries", len(frame)),
        ("failed", int((~valid).sum())),
    ]
    if not valid.any():
        facts.append(("shape", shape or "-"))
        notes = ("every run failed: no best entry",)
        return Section(
            "summary", _title(part, group), part.path, tuple(facts), notes=notes
        )
    order = _order(values, metric)
    best, worst = int(order[0]), int(order[len(order) - 1])
    worst = int(np.flatnonzero(valid & (values == values[worst]))[0])  # first of ties
    best_value, worst_value = float(values[best]), float(values[worst])
    ratio = _ratio(np.array([worst_value]), best_value, metric)[0]
    facts += [
        ("best mesh_idx", _python(frame["mesh_idx"].iloc[best])),
        (f"worst {metric.column}", worst_value),
        (f"best {metric.column}", best_value),
        ("best/worst" if metric.higher_is_better else "worst/best", float(ratio)),
        ("shape", shape or "-"),
    ]
    tuning = varying or list(part.params)
    config = np.empty(len(tuning), dtype=object)
    config[:] = [_python(frame[p].iloc[best]) for p in tuning]
    table = pd.DataFrame({"parameter": tuning, "value": config}) if tuning else None
    notes = (f"best spec: {frame['spec'].iloc[best]}",)
    return Section(
        "summary", _title(part, group), part.path, tuple(facts), table, notes=notes
    )


def _shown(sections: list[Section]) -> tuple[str, str, str]:
    return (
        render_plain(sections),
        render_markdown(sections),
        render_json(sections, {}),
    )


AMOUNT_OF = {
    "--ratio": st.just(True),
    "--head": st.integers(1, 5),
    "--tail": st.integers(1, 5),
    "--top": AMOUNTS,
    "--top-fraction": AMOUNTS,
    "--within": AMOUNTS,
}


@settings(
    max_examples=examples(500),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    result_rows(),
    st.booleans(),
    PIVOTS,
    st.sampled_from([v.flag for v in VIEWS]),
    st.data(),
    st.booleans(),
)
@pytest.mark.slow  # a property run, or a real process under a limit
def test_every_view_of_every_group_shows_the_group_as_alone(
    kb_write: Callable[..., Path],
    rows: list[dict[str, Any]],
    higher: bool,
    pivots: tuple[str, ...],
    flag: str,
    data: st.DataObject,
    verbose: bool,
) -> None:
    assert {v.flag for v in VIEWS} == set(AMOUNT_OF)  # a new view is tested
    amount = data.draw(AMOUNT_OF[flag])
    if flag in ("--top", "--top-fraction") and amount == 0.0:
        amount = 1.0  # not a --top or --top-fraction the command admits
    results = load_results(str(kb_write("r.pkl", rows)))
    pivots = tuple(p for p in pivots if p in results.params)
    metric = Metric("met (ms)", higher)
    grouping = group_rows(results, pivots)
    build = next(v for v in VIEWS if v.flag == flag).builder
    view = build(Groups(rank_groups(grouping, metric)), amount, verbose=verbose)
    found = summaries(grouping, metric)
    for g in range(len(grouping)):
        part, group = grouping.part(g), grouping.label(g)
        result = view(g)
        expected, chosen = _expected(part, metric, flag, amount, group, verbose)
        assert _shown(result.sections) == _shown(expected)
        rows_of_part = grouping.order[grouping.starts[g] : grouping.stops[g]]
        if chosen is None:
            assert result.rows is None
        else:
            assert result.rows is not None
            assert result.rows.tolist() == rows_of_part[chosen].tolist()
        summary = summary_view(results, metric, group=group, summary=found[g])
        assert _shown([summary]) == _shown([_summary(part, metric, group)])


def _without_names(out: str) -> list[dict[str, Any]]:
    """The sections without what names the file (title, source), and without the
    per-shape table of a run over several groups (a group run alone is one shape:
    test_per_shape_view.py checks that table)."""
    return [
        {k: v for k, v in section.items() if k not in ("title", "source")}
        for section in json.loads(out)["sections"]
        if section["view"] != "shapes"
    ]


@pytest.mark.parametrize(
    "views",
    [
        ["--ratio", "--head", "2", "--tail", "2"],
        ["--top", "0.5", "-v"],
        ["--top-fraction", "0.5", "-v"],
        ["--within", "0.1", "-v"],
        ["--within", "0", "--ratio"],
    ],
)
@pytest.mark.parametrize("higher", [False, True])
def test_grouped_views_equal_the_groups_run_alone(
    kb_write: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    views: list[str],
    higher: bool,
) -> None:
    """Each group written as a kbench pickle of its own (same mesh_idx), then run
    alone: the grouped run shows the same sections, group by group."""
    metric = [2.0, 1.0, 1.0, 0.0, math.nan, 3.0, 0.0, 0.0, 1.5, 1.5, 9.0, -2.5]
    metric += [1.2, 1.1, 4.0, 1.0]
    rows = [
        {
            "M": (7, 3, 7, 5)[i % 4],
            "BM": 64 * (1 + i % 3),
            "S": "ab"[i % 2 if i % 5 else 0],
            "met (ms)": m,
        }
        for i, m in enumerate(metric)
    ]
    path = kb_write("all.pkl", rows)
    payload = pd.read_pickle(path)  # trusted: written just now by the test
    frame = payload["merged_df"]
    for m in (7, 3, 5):
        mine = frame[frame["spec"].str.contains(f"/M={m}/", regex=False)]
        alone = dict(payload, merged_df=mine.reset_index(drop=True))
        (tmp_path / f"m{m}.pkl").write_bytes(pickle.dumps(alone))
    monkeypatch.chdir(tmp_path)
    direction = ["--higher-is-better"] if higher else []
    args = [*views, *direction, "--format", "json"]
    code, out, _ = run(capsys, "all.pkl", "-p", "M", *args)
    assert code == 0
    grouped = _without_names(out)
    assert len(grouped) > 3 * (1 + views.count("-v"))  # every group, every view
    separately = []
    for m in (7, 3, 5):
        code, out, _ = run(capsys, f"m{m}.pkl", *args)
        assert code == 0
        separately += _without_names(out)
    assert grouped == separately
