"""The per-shape view: whenever the inputs hold several shapes, the default view ends
with one table over all of them, one row per shape (and per file holding it), in
every format. Through the real command on genuine kbench runs
(``fixtures/realkbench``: a Mojo sweep of two problems, one over a shared ``$M``
list, a numpy sweep, the same under pandas 2, two runs of one sweep); every
expectation is pandas on kbench's own ``out.csv`` and ``out.failures.json``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from support import run, sections

SHAPE = ["M", "N", "K"]
KINDS = ("build", "execution", "timeout")


def _rows(run_dir: str) -> tuple[pd.DataFrame, str, list[str]]:
    """kbench's CSV with a column per spec parameter (``$`` dropped), its metric
    and its tuning parameters."""
    frame = pd.read_csv(f"{run_dir}/out.csv")
    tokens = frame["spec"].str.split("/").str[1:]
    params = pd.DataFrame(
        [dict(t.lstrip("$").split("=") for t in row) for row in tokens],
        index=frame.index,
    ).astype(int)
    metric = next(c for c in frame.columns if c.startswith("met ("))
    return frame.join(params), metric, [c for c in params if c not in SHAPE]


def _failures(run_dir: str) -> pd.DataFrame:
    """kbench's record of the failed points: the shape and the kind of each."""
    record = json.loads(Path(f"{run_dir}/out.failures.json").read_text())
    return pd.DataFrame(
        [
            {**{k.lstrip("$"): v for k, v in f["params"].items()},
             "kind": f["failure_type"]}
            for f in record["failures"]
        ]
    )  # fmt: skip


def expected(run_dir: str) -> list[dict[str, Any]]:
    """Per shape, in the order kbench ran them: its columns, the best config, the
    best metric, the best other config's ratio, the configs within 2% of the best,
    and the failed points, by kind."""
    frame, metric, tuning = _rows(run_dir)
    failed = _failures(run_dir)
    out = []
    for shape, group in frame.groupby(SHAPE, sort=False):
        ranked = group.sort_values(metric, kind="stable")
        best = ranked.iloc[0]
        mine = failed[(failed[SHAPE] == list(shape)).all(axis=1)]
        kinds = mine["kind"].value_counts()
        out.append(
            {
                **dict(zip(SHAPE, shape)),
                **{p: best[p] for p in tuning},
                f"best {metric}": best[metric],
                "runner-up ratio": ranked[metric].iloc[1] / best[metric],
                "within 2%": int((ranked[metric] / best[metric] <= 1.02).sum()),
                "failed": len(mine),
                **{
                    f"failed {k}": int(kinds.get(k, 0))
                    for k in KINDS
                    if k in set(failed["kind"])
                },
            }
        )
    return out


def _shapes(out: str) -> dict[str, Any]:
    return sections(out)["shapes"]


@pytest.mark.parametrize("run_dir", ["F", "G", "I", "K", "A", "C", "D"])
def test_each_shape_has_its_row_as_pandas_finds_it(
    real: Path, capsys: pytest.CaptureFixture[str], run_dir: str
) -> None:
    code, out, err = run(capsys, f"{run_dir}/out.pkl", "--format", "json")
    assert code == 0, err
    table = _shapes(out)
    want = expected(run_dir)
    assert table["columns"] == list(want[0])
    assert table["rows"] == [_approx(row) for row in want]
    assert table["facts"]["shapes"] == len(want)
    assert table["facts"]["shapes by"] == "M, N, K"


def _approx(row: dict[str, Any]) -> dict[str, Any]:
    return {k: pytest.approx(v) if isinstance(v, float) else v for k, v in row.items()}


def test_the_csv_and_the_pickle_give_the_same_rows(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = {}
    for name in ("G/out.pkl", "G/out.csv"):
        code, out, _ = run(capsys, name, "--format", "json")
        assert code == 0
        rows[name] = _shapes(out)["rows"]
    assert rows["G/out.pkl"] == rows["G/out.csv"] == [_approx(r) for r in expected("G")]


def test_several_files_make_one_table_shape_by_shape_with_their_file(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two runs of one numpy sweep and the same under pandas 2: each shape's three
    runs together, in argument order, each named by its file."""
    code, out, err = run(capsys, "I/out.pkl", "J/out.pkl", "K/out.pkl", "--format",
                         "json")  # fmt: skip
    assert code == 0, err
    table = _shapes(out)
    assert table["columns"][:4] == [*SHAPE, "file"]
    by_file = {d: expected(d) for d in ("I", "J", "K")}
    want = [
        {**{k: row[k] for k in SHAPE}, "file": f"{d}/out.pkl",
         **{k: v for k, v in row.items() if k not in SHAPE}}
        for i in range(len(by_file["I"]))
        for d, row in ((d, by_file[d][i]) for d in by_file)
    ]  # fmt: skip
    assert table["rows"] == [_approx(r) for r in want]
    assert table["facts"]["shapes"] == 3


@pytest.mark.parametrize("quiet", [[], ["-q"]])
def test_quiet_never_hides_that_there_are_several_shapes(
    real: Path, capsys: pytest.CaptureFixture[str], quiet: list[str]
) -> None:
    code, out, err = run(capsys, "F/out.pkl", *quiet)
    assert (code, err) == (0, "")
    table = out[out.index("== shapes: the best config of each (met (ms)) ==") :]
    lines = table.splitlines()
    header = next(i for i, line in enumerate(lines) if line.lstrip().startswith("M "))
    assert re.split(r"\s+", lines[header].strip()) == [
        "M", "N", "K", "BM", "BN", "best", "met", "(ms)", "runner-up", "ratio",
        "within", "2%", "failed", "failed", "build", "failed", "execution",
    ]  # fmt: skip
    assert len(lines) - header - 2 == len(expected("F"))  # a row each, then the note
    assert lines[-1] == (
        "the summary of F/out.pkl above is over all its shapes; -p M,N,K shows each "
        "on its own"
    )


def test_markdown_shows_the_table_too(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "G/out.pkl", "--format", "markdown")
    assert code == 0
    part = out[out.index("### shapes: the best config of each") :]
    rows = [line for line in part.splitlines() if line.startswith("|")]
    assert rows[0].split("|")[1:5] == [" M ", " N ", " K ", " BM "]
    assert len(rows) == 2 + len(expected("G"))  # the header, its rule, a row each


def test_the_report_holds_the_table(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "G/out.pkl", "--report", "r.html")
    assert code == 0, err
    page = Path("r.html").read_text(encoding="utf-8")
    caption = "<caption>shapes: the best config of each (met (ms))</caption>"
    assert caption in page
    table = page[page.index(caption) : page.index("</table>", page.index(caption))]
    assert table.count("<tr") == 1 + len(expected("G"))


def test_with_p_the_table_follows_the_groups_and_needs_no_hint(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "F/out.pkl", "-p", "M,N,K", "--format", "json")
    assert code == 0
    table = _shapes(out)
    assert table["rows"] == [_approx(r) for r in expected("F")]
    assert table["notes"] == []
    code, out, _ = run(capsys, "F/out.pkl", "-p", "N,K", "--format", "json")
    rows = _shapes(out)["rows"]
    frame, metric, _ = _rows("F")
    best = frame.groupby(["N", "K"], sort=False)[metric].min()
    assert [(r["N"], r["K"], r[f"best {metric}"]) for r in rows] == [
        (n, k, pytest.approx(v)) for (n, k), v in best.items()
    ]
    assert "M" in _shapes(out)["columns"]  # M varies within a group: tuning here


def test_one_shape_makes_no_table(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = pd.read_csv("G/out.csv")
    frame[frame["spec"].str.contains("/[$]M=64/N=512/", regex=True)].to_csv(
        "one.csv", index=False
    )
    code, out, _ = run(capsys, "one.csv", "--format", "json")
    assert code == 0 and "shapes" not in sections(out)


def test_a_config_measured_twice_is_never_its_own_runner_up(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file holding every row of F twice, the second time 1% slower: the runner-up
    is another config, and a config counts once within 2%."""
    frame = pd.read_csv("F/out.csv")
    again = frame.assign(**{"met (ms)": frame["met (ms)"] * 1.01})
    pd.concat([frame, again]).to_csv("twice.csv", index=False)
    code, out, _ = run(capsys, "twice.csv", "--format", "json")
    assert code == 0
    rows = _shapes(out)["rows"]
    want = expected("F")
    assert [r["runner-up ratio"] for r in rows] == [
        pytest.approx(w["runner-up ratio"]) for w in want
    ]
    assert [r["within 2%"] for r in rows] == [w["within 2%"] for w in want]


def test_a_shape_where_nothing_ran_has_no_best(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = pd.read_csv("F/out.csv")
    dead = frame["spec"].str.contains("/[$]M=64/N=512/", regex=True)
    frame.loc[dead, "met (ms)"] = 0.0
    frame.to_csv("dead.csv", index=False)
    code, out, _ = run(capsys, "dead.csv", "--format", "json")
    assert code == 0
    (row,) = [r for r in _shapes(out)["rows"] if (r["M"], r["N"]) == (64, 512)]
    assert (row["BM"], row["best met (ms)"], row["runner-up ratio"]) == (
        None, None, None
    )  # fmt: skip
    assert (row["within 2%"], row["failed"]) == (0, int(dead.sum()))
    assert not np.isnan(_shapes(out)["rows"][0]["best met (ms)"])


def test_combined_runs_make_one_row_per_shape_of_their_median(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "I/out.pkl", "J/out.pkl", "--combine", "median",
                         "--format", "json")  # fmt: skip
    assert code == 0, err
    table = _shapes(out)
    assert "file" not in table["columns"]  # one measurement: the median of both
    frames = [_rows(d)[0] for d in ("I", "J")]
    _, metric, tuning = _rows("I")
    ran = pd.concat(frames)
    ran = ran[ran[metric] > 0]
    median = ran.groupby([*SHAPE, *tuning], sort=False)[metric].median()
    best = median.groupby(level=SHAPE, sort=False).min()
    assert [r[f"best {metric}"] for r in table["rows"]] == [
        pytest.approx(v) for v in best
    ]
