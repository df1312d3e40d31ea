"""Output that reads well, through the real command on the two
genuine kbench runs of ``fixtures/realkbench``: a manifest without an empty
``defaults``, labels and best rows that tell inputs apart, the best row marked
without colour, a warning when a written common config is far from the best,
directions named right, and notices once per run, silenced by ``-q``."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from support import BIN, FIXTURES, in_terminal, run

from tuning_codegen.manifest import load_manifest

REAL = FIXTURES / "realkbench"
SGR = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def test_a_manifest_sharing_no_key_has_no_defaults(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each shape's best of run A differs in every key: no ``defaults`` mapping and
    no merge key, and the entries read back as the best rows."""
    code, _, err = run(capsys, "A/out.pkl", "-p", "M,N,K", "-o", "best")
    assert code == 0, err
    text = Path("best.yaml").read_text(encoding="utf-8")
    assert "defaults" not in text and "<<" not in text
    document = yaml.safe_load(text)
    assert set(document) == {"name", "file", "params"}
    entries = [dict(e.values) for e in load_manifest("best.yaml").entries]
    assert entries == document["params"]
    assert entries == _bests("A/out.csv")


def _bests(path: str) -> list[dict[str, int]]:
    """Each shape's best row of a kbench CSV, by pandas, its spec's parameters as
    ints, shapes in the order they first appear."""
    raw = pd.read_csv(path)
    params = pd.DataFrame(
        [
            {k.lstrip("$"): int(v) for k, v in (t.split("=") for t in s.split("/")[1:])}
            for s in raw["spec"]
        ]
    )
    table = params.assign(met=raw["met (s)"])
    best = table.loc[table.groupby(["M", "N", "K"], sort=False)["met"].idxmin()]
    return best.drop(columns="met").to_dict("records")


def _kbench(path: str) -> pd.DataFrame:
    """A kbench CSV by pandas: its spec's parameters as ints, the metric, and the line
    each row is on (header on line 1, one row per line in these files)."""
    raw = pd.read_csv(path)
    params = pd.DataFrame(
        [
            {k.lstrip("$"): int(v) for k, v in (t.split("=") for t in s.split("/")[1:])}
            for s in raw["spec"]
        ]
    )
    return params.assign(met=raw["met (s)"], line=range(2, len(raw) + 2))


def _diff_rows(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, Any]]:
    code, out, err = run(capsys, "-d", *args, "-p", "M,N,K", "--format", "json")
    assert code == 0, err
    (diff,) = [s for s in json.loads(out)["sections"] if s["view"] == "diff"]
    return diff["rows"]


def test_diff_labels_name_each_input_by_what_tells_it_apart(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _diff_rows(capsys, "A/out.pkl", "A/out.csv")
    assert {r["file"] for r in rows} == {"out.pkl (baseline)", "out.csv"}
    rows = _diff_rows(capsys, "A/out.pkl", "B/out.pkl")
    assert {r["file"] for r in rows} == {"A/out.pkl (baseline)", "B/out.pkl"}
    rows = _diff_rows(capsys, "A/out.csv", "B/out.csv")
    assert {r["file"] for r in rows} == {"A/out.csv (baseline)", "B/out.csv"}


def test_diff_best_row_is_named_the_same_way_for_every_file(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pickle's best row by its mesh_idx, a CSV's by its line: each without the
    path (the ``file`` column names it), both as ``WHAT VALUE``."""
    rows = _diff_rows(capsys, "A/out.pkl", "A/out.csv")
    table = _kbench("A/out.csv")
    mesh = pd.read_pickle("A/out.pkl")["merged_df"]
    mesh = mesh.assign(met=mesh["met (s)"].astype(float))
    expected = []
    for (m, n, k), group in table.groupby(["M", "N", "K"], sort=False):
        best = group.loc[group["met"].idxmin()]
        spec = mesh.loc[mesh["spec"].str.contains(f"/\\$M={m}/\\$N={n}/\\$K={k}/")]
        mesh_idx = int(spec.loc[spec["met"].idxmin(), "mesh_idx"])
        expected += [f"mesh_idx {mesh_idx}", f"line {int(best['line'])}"]
    assert [r["best row"] for r in rows] == [*expected, None]  # then the geomean


def _blocks(text: str) -> list[list[list[str]]]:
    """Every rich table block of a terminal's output: its header and rows, each
    split into its cells (runs of text between two or more spaces)."""
    lines = SGR.sub("", text).splitlines()
    blocks = []
    for i, line in enumerate(lines):
        if line and set(line.strip()) == {"━"}:
            end = next(
                (j for j in range(i + 1, len(lines)) if not lines[j].startswith(" ")),
                None,
            )
            rows = [lines[i - 1], *lines[i + 1 : end]]
            blocks.append([re.split(r"\s{2,}", r.strip()) for r in rows])
    return blocks


@pytest.mark.parametrize(
    ("columns", "args"),
    [
        (80, ["A/out.pkl", "-p", "M,N,K", "--importance"]),
        (60, ["-d", "A/out.pkl", "A/out.csv", "-p", "M,N,K", "--out-dir", "."]),
    ],
)
def test_continuation_blocks_repeat_what_tells_rows_apart(
    real: Path, columns: int, args: list[str]
) -> None:
    """A table in blocks: every block after the first begins with columns shown in
    the one before it, and those tell every row apart (``rank`` and ``shape`` do
    not: the importance table's rank is its parameter's, shared by 4 rows; a shape
    is on one row per file)."""
    code, out = in_terminal(["kprofile", "-q", *args], columns=columns, cwd=real)
    assert code == 0, out
    blocks = _blocks(out)
    continued = [(a, b) for a, b in zip(blocks, blocks[1:]) if len(a) == len(b)]
    assert continued, out  # at 80 columns some table is in blocks
    for before, block in continued:
        header = block[0]
        key = [c for c in header if c in before[0]]
        assert key and header[: len(key)] == key, header
        cells = [tuple(row[: len(key)]) for row in block[1:]]
        assert len(set(cells)) == len(cells), (key, cells)


@pytest.mark.parametrize(
    ("env", "args"), [({"NO_COLOR": "1"}, []), ({}, ["--color", "never"])]
)
def test_the_best_row_is_marked_without_colour(
    real: Path, env: dict[str, str], args: list[str]
) -> None:
    """``-d``'s baseline rows, highlighted in colour, carry a ``*`` without it, in
    every block of the table."""
    argv = [
        "kprofile",
        "-q",
        "-d",
        "A/out.pkl",
        "B/out.pkl",
        "-p",
        "M,N,K",
        "--out-dir",
        ".",
    ]
    code, out = in_terminal([*argv, *args], columns=80, env=env, cwd=real)
    assert code == 0, out
    assert re.search("\x1b\\[[0-9;]*m", out) is None  # no colour, no bold
    blocks = _blocks(out)
    assert blocks
    for block in blocks:
        marked = [row for row in block[1:] if row[0] == "*"]
        assert len(marked) == 3 and all("A/out.pkl (baseline)" in r for r in marked)
        assert len(block) == 8  # its header, 6 runs, the geomean


@pytest.mark.parametrize(
    ("metric", "name"),
    [("met (s)", "worst/best"), ("Arithmetic (GFLOPS/s)", "best/worst")],
)
def test_the_spread_is_named_by_the_metric_direction(
    real: Path, capsys: pytest.CaptureFixture[str], metric: str, name: str
) -> None:
    """A time's spread is worst/best (the slowest over the fastest); a throughput's
    is best/worst (the highest over the lowest): named as it divides."""
    code, out, err = run(
        capsys, "A/out.csv", "-p", "M,N,K", "-m", metric, "--format", "json"
    )
    assert code == 0, err
    summaries = [s for s in json.loads(out)["sections"] if s["view"] == "summary"]
    raw = pd.read_csv("A/out.csv")
    shapes = raw["spec"].str.extract(r"(\$M=\d+/\$N=\d+/\$K=\d+)")[0]
    spread = raw.groupby(shapes, sort=False)[metric].agg(lambda v: v.max() / v.min())
    assert [s["facts"][name] for s in summaries] == pytest.approx(list(spread))
    assert all(
        ("worst/best" in s["facts"]) == (name == "worst/best") for s in summaries
    )


def test_the_diff_ratio_says_how_it_divides(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["-d", "A/out.pkl", "B/out.pkl", "--format", "json"]
    for metric, quotient in [
        ("met (s)", "file best / baseline best"),
        ("Arithmetic (GFLOPS/s)", "baseline best / file best"),
    ]:
        code, out, _ = run(capsys, *args, "-m", metric)
        (diff,) = [s for s in json.loads(out)["sections"] if s["view"] == "diff"]
        assert code == 0 and diff["facts"]["ratio"].startswith(f"{quotient}; > 1 is")
        best = []  # per file, each shape's best in the order kbench ran them
        for name in ("A/out.csv", "B/out.csv"):
            raw = pd.read_csv(name)
            shape = raw["spec"].str.extract(r"(\$M=\d+/\$N=\d+/\$K=\d+)")[0]
            pick = "max" if "/s)" in metric else "min"
            best.append(raw.groupby(shape, sort=False)[metric].agg(pick).to_numpy())
        expected = best[0] / best[1] if "/s)" in metric else best[1] / best[0]
        ratios = [
            r["ratio"]
            for r in diff["rows"]
            if not r["file"].endswith("(baseline)") and r["shape"] != "geomean"
        ]
        assert ratios == pytest.approx(list(expected))


METRIC_NOTICE = (
    "kprofile: no 'met (ms)' column; metric 'met (s)' (lower is better); "
    "-m chooses another"
)


@pytest.mark.parametrize(
    "args",
    [
        ["A/out.pkl", "B/out.pkl", "A/out.csv"],
        ["A/out.pkl", "B/out.pkl", "-p", "M,N,K", "--combine", "median"],
        ["A/out.pkl", "-p", "M,N,K", "--importance"],
        ["-d", "A/out.pkl", "B/out.pkl", "-p", "M,N,K", "--format", "json"],
    ],
)
def test_notices_are_said_once_and_not_with_quiet(real: Path, args: list[str]) -> None:
    """Through the installed command: the metric chosen by default is said once per
    run (however many files), and ``-q`` silences it and the other notices while
    the report on stdout stays the same."""
    kprofile = str(BIN / "kprofile")
    said = subprocess.run([kprofile, *args], capture_output=True, text=True)
    quiet = subprocess.run([kprofile, "-q", *args], capture_output=True, text=True)
    assert said.returncode == quiet.returncode == 0, said.stderr
    assert said.stderr.splitlines().count(METRIC_NOTICE) == 1
    assert len(set(said.stderr.splitlines())) == len(said.stderr.splitlines())
    assert "several shapes" not in quiet.stderr
    assert METRIC_NOTICE not in quiet.stderr
    assert quiet.stdout == said.stdout
    written = [line for line in said.stderr.splitlines() if line.startswith("wrote ")]
    assert [
        line for line in quiet.stderr.splitlines() if line.startswith("wrote ")
    ] == written


def _common_ratios(path: str, band: float) -> dict[str, tuple[float, int]]:
    """``--top band``'s common config of each shape of a kbench CSV, by pandas: the
    rows below ``min + band * max``, each tuning parameter's most frequent value
    among them (first in rank order on a tie), that config's time over the best, and
    the line of its run."""
    table = _kbench(path)
    ratios = {}
    for (m, n, k), shape in table.groupby(["M", "N", "K"], sort=False):
        edge = shape["met"].min() + band * shape["met"].max()
        top = shape[shape["met"] < edge].sort_values("met", kind="stable")
        config = {}
        for name in ("BM", "BN", "BK"):
            counts = top[name].value_counts(sort=False)  # first seen first
            config[name] = counts.index[counts.to_numpy().argmax()]
        match = shape[(shape[list(config)] == pd.Series(config)).all(axis=1)]
        run = match.loc[match["met"].idxmin()]
        ratios[f"M={m}/N={n}/K={k}"] = (
            run["met"] / shape["met"].min(),
            int(run["line"]),
        )
    return ratios


@pytest.mark.parametrize("sink", [["-o", "common"], ["--update", "table.yaml"]])
def test_a_written_common_config_far_from_the_best_is_warned_of(
    real: Path, capsys: pytest.CaptureFixture[str], sink: list[str]
) -> None:
    """Run A's ``--top 0.05`` common config of M=256/N=256/K=256 is 1.669x that
    shape's best: a warning names how far and the threshold; the shapes within
    1.10x get none."""
    Path("table.yaml").write_text("params: []\n", encoding="utf-8")
    code, _, err = run(capsys, "A/out.csv", "-p", "M,N,K", "--top", "0.05", *sink)
    assert code == 0, err
    ratios = _common_ratios("A/out.csv", 0.05)
    far = {shape: r for shape, r in ratios.items() if r[0] > 1.10}
    assert far and len(far) < len(ratios)  # the case has both kinds
    warnings = [line for line in err.splitlines() if ": warning: " in line]
    assert warnings == [
        f"A/out.csv [{shape}]: warning: the common config is {r:.3f}x the best "
        f"(its run: A/out.csv:{line}; warned above 1.10x); a smaller "
        "--top/--within, or none (the best entry), gives a closer one"
        for shape, (r, line) in far.items()
    ]
