"""The charts as a kernel engineer reads them: ratios from 1.0 on one scale, the worst
shape named, a laptop-sized image; the correlation without the shape columns."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from matplotlib.figure import Figure
from support import METRIC, RUN1, results_of, run, sections

from kprofile.core.combine import combine
from kprofile.core.importance import ImportanceResult, importance
from kprofile.core.metric import resolve_metric
from kprofile.inputs.load import load_inputs
from kprofile.render.charts.importance import draw_importance_param, importance_top

pytestmark = pytest.mark.slow  # matplotlib draws and compares charts


def _size(png: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def test_the_plot_is_laptop_sized_and_the_same_bytes_twice(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, *RUN1, "--importance", "--plot", "a")[0] == 0
    assert run(capsys, *RUN1, "--importance", "--plot", "b")[0] == 0
    names = sorted(p.name for p in Path("a").iterdir())
    assert len(names) == 7
    for name in names:
        png = Path("a", name).read_bytes()
        assert png == Path("b", name).read_bytes()
        width, height = _size(png)
        assert 800 <= width <= 1400 and 400 <= height <= 900, (name, width, height)


def _result(demo: Path) -> ImportanceResult:
    loaded, _ = load_inputs(RUN1)
    combined = combine(loaded, ())
    metric = resolve_metric([r.frame for r in loaded], "met (ms)", higher=None)
    return importance(
        combined.frame,
        shape_cols=combined.shape_cols,
        param_cols=combined.param_cols,
        metric=metric,
    )


def test_every_parameter_chart_starts_at_one_on_one_scale(demo: Path) -> None:
    result = _result(demo)
    top = importance_top(result)
    assert top > max(p.cost for p in result.params)
    for p in result.params:
        figure = Figure()
        draw_importance_param(figure, p, result.shapes_total, top)
        (axes,) = figure.axes
        assert axes.get_ylim() == (1.0, top)
        assert p.worst.worst_shape in axes.get_title()
        texts = [t.get_text() for t in axes.texts]
        for v in p.values:
            assert any(v.worst_shape in t and f"{v.worst:.3f}" in t for t in texts)


def test_the_worst_shape_is_named_per_parameter(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, *RUN1, "--importance", "--format", "json")
    ranked = sections(out)["importance"]["rows"]
    assert code == 0
    assert {r["param"]: r["worst shape"] for r in ranked} == {
        "BN": "M=8/N=7168/K=2048",
        "BM": "M=8/N=7168/K=2048",
        "SWAP_AB": "M=8/N=7168/K=2048",
        "STAGES": "M=4096/N=4096/K=4096",
        "CLUSTER": "M=8/N=7168/K=2048",
        "SCHEDULE": "M=8/N=7168/K=2048",
    }


def test_correlation_leaves_the_shape_out_and_names_what_it_cannot_correlate(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "-c", *RUN1, "--format", "json")
    found = sections(out)["correlation"]
    assert code == 0
    assert found["facts"]["shape columns"] == (
        "M, N, K (left out; --include-shapes adds them)"
    )
    assert found["facts"]["not numeric"] == "SCHEDULE (no correlation)"
    expected = _ratio_correlations(["BM", "BN", "STAGES", "CLUSTER", "SWAP_AB"])
    assert {r["parameter"]: r["kendall tau"] for r in found["rows"]} == (
        pytest.approx(expected)
    )
    code, out, _ = run(capsys, "-c", *RUN1, "--include-shapes", "--format", "json")
    found = sections(out)["correlation"]
    assert code == 0 and "shape columns" not in found["facts"]
    assert {r["parameter"]: r["kendall tau"] for r in found["rows"]} == (
        pytest.approx(_ratio_correlations(["M", "N", "K", *expected]))
    )


def _ratio_correlations(params: list[str]) -> dict[str, float]:
    """Kendall's tau-b (scipy) of each parameter with each run's ratio to its own
    shape's best, from the pickles read by pandas: never the raw times, which
    across shapes measure the problem's size."""
    import pandas as pd
    from scipy.stats import kendalltau

    table = results_of(*RUN1)
    table = table[table[METRIC] > 0].reset_index(drop=True)
    best = table.groupby(["M", "N", "K"])[METRIC].transform("min")
    ratio = table[METRIC] / best
    numbers = {"True": 1.0, "False": 0.0}
    return {
        p: float(kendalltau(pd.to_numeric(table[p].replace(numbers)), ratio)[0])
        for p in params
    }
