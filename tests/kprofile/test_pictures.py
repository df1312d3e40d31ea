"""The pictures of every mode, drawn by the real command from genuine kbench runs
(fixtures/realkbench, fixtures/heldout) and read back from each figure: labels inside
the figure and never over one another (matplotlib's text extents), the time unit, the
y = x line, failures drawn as failures, a width read at 100 % in a pull request; the
same bytes twice; bad --heatmap input refused with nothing written."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from chart_check import (
    all_text,
    has_failures,
    has_identity_line,
    layout_problems,
    width_px,
)
from matplotlib.figure import Figure
from support import FIXTURES, run, snapshot

from kprofile.render.section import Picture
from kprofile.sinks import pictures as sink

HELDOUT = ["heldout/run_a.pkl", "heldout/run_b.pkl"]


@pytest.fixture
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The genuine kbench runs and the held-out pair, as the working directory."""
    shutil.copytree(FIXTURES / "realkbench", tmp_path / "real")
    shutil.copytree(FIXTURES / "heldout", tmp_path / "heldout")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[Picture, Figure]]]:
    """Every picture the command draws, with the figure its PNG was made from."""
    seen: list[tuple[Picture, Figure]] = []
    figures: list[Figure] = []
    real_drawn, real_png = sink.drawn, sink.png_bytes

    def keeping(figure: Figure) -> bytes:
        figures.append(figure)
        return real_png(figure)

    def capturing(pictures: list[Picture], *args: object) -> object:
        figures.clear()
        out = real_drawn(pictures, *args)  # type: ignore[arg-type]
        seen.extend(zip(pictures, figures, strict=True))
        return out

    monkeypatch.setattr(sink, "png_bytes", keeping)
    monkeypatch.setattr(sink, "drawn", capturing)
    yield seen


def pictures_of(
    capsys: pytest.CaptureFixture[str], seen: list[tuple[Picture, Figure]], *args: str
) -> dict[str, Figure]:
    """``kprofile ARGS --plot out``: each picture's file stem and figure, every one
    checked for its layout and width."""
    seen.clear()
    shutil.rmtree("out", ignore_errors=True)
    code, _, err = run(capsys, *args, "--plot", "out", "-q")
    assert code in (0, 1), err
    for picture, figure in seen:
        assert layout_problems(figure) == [], picture.name
        assert 900 <= width_px(figure) <= 1600, picture.name
        assert "?" in picture.title, picture.title  # the question it answers
    assert len(list(Path("out").iterdir())) == len(seen)
    return {p.name: f for p, f in seen}


def test_each_shape_gets_its_best_configs_its_landscape_and_a_heatmap(
    runs: Path, capsys: pytest.CaptureFixture[str], drawn: list
) -> None:
    found = pictures_of(capsys, drawn, "real/A/out.pkl", "real/B/out.pkl")
    shapes = ["M=256/N=256/K=256", "M=128/N=512/K=192", "M=384/N=192/K=320"]
    for shape in shapes:
        top = found[f"top-{shape}"]
        assert shape in all_text(top) and " ms" in all_text(top)  # met (s) in ms
        assert {"A/out.pkl", "B/out.pkl"} <= set(all_text(top).split("\n"))
        heatmap = found[f"heatmap-BN-BM-{shape}"]
        assert "BN" in all_text(heatmap) and "1.000" in all_text(heatmap)
    # N=192 is not a multiple of BN=128: kbench recorded 12 execution failures
    assert has_failures(found["top-M=384/N=192/K=320"])
    assert "execution 12" in all_text(found["top-M=384/N=192/K=320"])
    assert has_failures(found["heatmap-BN-BM-M=384/N=192/K=320"])
    assert "12 of 48 failed" in all_text(found["landscape-1"])
    assert has_identity_line(found["runs"])
    assert "met (ms) in A/out.pkl" in all_text(found["runs"])


def test_the_per_shape_view_draws_how_clear_each_best_is(
    runs: Path, capsys: pytest.CaptureFixture[str], drawn: list
) -> None:
    """I and J, two runs of one numpy sweep: each shape's runner-up ratio per run,
    read at 1.0 as a toss-up (pandas on kbench's CSVs for the figures)."""
    found = pictures_of(capsys, drawn, "real/I/out.pkl", "real/J/out.pkl")
    figure = found["shapes-runner-up"]
    (axes,) = figure.axes
    assert any(list(line.get_ydata()) == [1.0, 1.0] for line in axes.lines)
    text = all_text(figure)
    for run_dir in ("I", "J"):
        frame = pd.read_csv(f"real/{run_dir}/out.csv")
        shape = frame["spec"].str.extract(r"(\$M=\d+/N=\d+/K=\d+)")[0]
        for label, times in frame.groupby(shape, sort=False)["met (s)"]:
            first, second = sorted(times)[:2]
            assert label.lstrip("$") in text
            assert f"{second / first:.3f}" in text, (run_dir, label)
        assert f"{run_dir}/out.pkl" in text


def test_a_timeout_and_a_build_failure_are_drawn_with_their_kind(
    runs: Path, capsys: pytest.CaptureFixture[str], drawn: list
) -> None:
    found = pictures_of(capsys, drawn, "real/C/out.pkl")  # numpy: met (s)
    text = "\n".join(all_text(f) for n, f in found.items() if n.startswith("top-"))
    assert "timeout 1" in text and "execution" in text and " ms" in text
    found = pictures_of(capsys, drawn, "real/D/out.pkl")  # Mojo: met (ms)
    text = "\n".join(all_text(f) for n, f in found.items() if n.startswith("top-"))
    assert "build" in text and "execution" in text
    assert " ns" in text  # Mojo's met (ms) of nanoseconds, read in ns


def test_diff_draws_kplots_bars_its_ratio_mode_and_the_runs_scatter(
    runs: Path, capsys: pytest.CaptureFixture[str], drawn: list
) -> None:
    found = pictures_of(capsys, drawn, "-d", *HELDOUT, "--out-dir", ".")
    ratio = [f for n, f in found.items() if n.startswith("diff-ratio")]
    best = [f for n, f in found.items() if n.startswith("diff-best")]
    assert ratio and best
    for figure in ratio:
        (axes,) = [a for a in figure.axes]
        assert any(list(line.get_ydata()) == [1.0, 1.0] for line in axes.lines)
        assert "run_b" in all_text(figure)
    assert all(" us" in all_text(f) for f in best)
    assert has_identity_line(found["runs"])


def test_diff_charts_say_not_run_and_compare_only_what_a_later_run_measured(
    runs: Path, capsys: pytest.CaptureFixture[str], drawn: list
) -> None:
    """L and M share one problem: the ratio chart has that shape alone (a shape one
    run has is compared with nothing), and the best chart marks the other run's
    missing shapes ``not run``, not ``failed``."""
    found = pictures_of(capsys, drawn, "-d", "real/L/out.pkl", "real/M/out.pkl",
                        "--out-dir", ".")  # fmt: skip
    l_only = set(_csv_shapes("real/L/out.csv"))
    m_only = set(_csv_shapes("real/M/out.csv"))
    (ratio,) = [f for n, f in found.items() if n.startswith("diff-ratio")]
    ticks = [t.get_text().replace("\n", "") for t in ratio.axes[0].get_xticklabels()]
    assert ticks == sorted(l_only & m_only)
    assert not has_failures(ratio)
    (best,) = [f for n, f in found.items() if n.startswith("diff-best")]
    labels = [t.get_text() for t in best.axes[0].texts]
    assert labels.count("not run") == len(l_only ^ m_only)
    assert "failed" not in labels
    assert layout_problems(best) == [] and layout_problems(ratio) == []


def _csv_shapes(path: str) -> list[str]:
    specs = pd.read_csv(path)["spec"].str.split("/").str[1:4]
    return sorted({"/".join(t.lstrip("$") for t in s) for s in specs})


def test_combine_draws_the_runs_against_each_other_and_their_spread(
    runs: Path, capsys: pytest.CaptureFixture[str], drawn: list
) -> None:
    found = pictures_of(capsys, drawn, *HELDOUT, "--combine", "median")
    assert has_identity_line(found["runs"])
    assert "median run-to-run spread" in all_text(found["runs"])
    assert "median spread" in all_text(found["spread"])


@pytest.mark.parametrize(
    "args",
    [
        ["--score", "table.yaml", "heldout/run_b.pkl", "--fail-above", "1.05"],
        ["heldout/run_a.pkl", "--cover", "0.05"],
        ["heldout/run_a.pkl", "--budget", "3"],
    ],
    ids=["score", "cover", "budget"],
)
def test_a_table_is_drawn_shape_by_shape_against_its_gate(
    runs: Path, capsys: pytest.CaptureFixture[str], drawn: list, args: list[str]
) -> None:
    code, _, err = run(capsys, "heldout/run_a.pkl", "-p", "M,N,K", "-o", "table")
    assert code == 0, err
    figure = pictures_of(capsys, drawn, *args)["shapes-ratio"]
    text = all_text(figure)
    assert "M=384/N=4096/K=4096" in text and "geomean" in text
    if args[0] == "--score":  # run B never ran M=96's config: counted apart
        assert "--fail-above 1.05" in text and "not measured" in text
        assert any(p.get_hatch() for p in figure.axes[0].patches)


def test_ranges_are_drawn_along_m_with_their_boundaries(
    runs: Path, capsys: pytest.CaptureFixture[str], drawn: list
) -> None:
    found = pictures_of(capsys, drawn, "heldout/run_a.pkl", "--ranges", "M")
    figure = found["ranges-N=4096/K=4096"]
    (axes,) = figure.axes
    dashed = [line for line in axes.lines if line.get_linestyle() == "--"]
    assert len(dashed) == len([t for t in all_text(figure).split("\n")
                               if t.startswith("range ")]) - 1  # fmt: skip
    assert "tolerance 0.03" in all_text(figure)


def test_importance_and_correlation_are_drawn(
    runs: Path, capsys: pytest.CaptureFixture[str], drawn: list
) -> None:
    found = pictures_of(capsys, drawn, "heldout/run_a.pkl", "--importance")
    assert {"importance", "importance-BM"} <= set(found)
    found = pictures_of(capsys, drawn, "-c", "heldout/run_a.pkl")
    assert "ratio to its shape's best" in all_text(found["correlation"])


def test_the_same_runs_make_the_same_bytes(
    runs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repeats = ["real/I/out.pkl", "real/J/out.pkl"]  # two runs of one Mojo sweep
    for folder in ("a", "b"):
        code, _, err = run(capsys, *repeats, "-p", "M,N,K", "--plot", folder)
        assert code == 0, err
    first, second = snapshot(runs / "a"), snapshot(runs / "b")
    assert {k: v[0] for k, v in first.items()} == {k: v[0] for k, v in second.items()}
    clear = [name for name in first if name.startswith("shapes-runner-up")]
    assert clear  # the per-shape view's chart, in as many pieces as its labels need
    # per shape its best configs and a heatmap; one landscape chart; runs.png
    assert len(first) == 3 + 3 + 1 + 1 + len(clear)


def test_an_unknown_heatmap_parameter_is_refused_and_nothing_is_written(
    runs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(runs)
    code, out, err = run(
        capsys, "real/A/out.pkl", "--plot", "out", "--heatmap", "BM,XX", "-q"
    )
    assert (code, out) == (2, "")
    assert err == (
        "kprofile: error: --heatmap: no tuning parameter 'XX'; tuning parameters: "
        "BM, BN, BK\n"
    )
    assert snapshot(runs) == before
