"""``--update --keep-within`` through the real command on genuine kbench runs: which
entries keep their config and which change, the gain or ratio the summary shows for
each, all computed here with pandas from kbench's own ``out.csv`` and
``out.failures.json`` (the parameters read off each spec string by hand).

The runs: ``I``/``J``, two runs of one numpy spec (problem sizes N and K at compile
time, ``met (s)``); ``F``/``H``, two runs of one Mojo spec (``met (ms)``)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from support import FIXTURES, run, sections

from tuning_codegen.manifest import load_manifest

REAL = FIXTURES / "realkbench"
SHAPE = ["M", "N", "K"]
SLACK = 1e-12  # --within's band: ratio <= 1 + X, one rounding of value / best above


def runs_of(*names: str) -> pd.DataFrame:
    """Every successful row of each run's out.csv: its parameters and metric."""
    frames = []
    for name in names:
        raw = pd.read_csv(REAL / name / "out.csv")
        metric = next(c for c in raw.columns if c.startswith("met ("))
        params = pd.DataFrame(
            [dict(t.lstrip("$").split("=") for t in s.split("/")[1:]) for s in raw.spec]
        ).astype(int)
        frames.append(params.assign(value=raw[metric].to_numpy(), run=name))
    return pd.concat(frames, ignore_index=True)


def failed_in(name: str) -> set[tuple[int, ...]]:
    """The points kbench recorded as failed, as (M, N, K, tiles...)."""
    record = json.loads((REAL / name / "out.failures.json").read_text())
    return {tuple(int(v) for v in f["params"].values()) for f in record["failures"]}


def table_text(name: str, entries: Sequence[dict[str, int]]) -> str:
    lines = [f"name: {name}", "params:"]
    for entry in entries:
        items = [f"{k}: {v}" for k, v in entry.items()]
        lines += [f"- {items[0]}", *(f"  {item}" for item in items[1:])]
    return "\n".join(lines) + "\n"


def label(entry: dict[str, int]) -> str:
    return "/".join(f"{k}={entry[k]}" for k in SHAPE)


def expected_rows(
    measured: pd.DataFrame,
    entries: Sequence[dict[str, int]],
    tiles: list[str],
    limit_of: Any,
) -> dict[str, dict[str, Any]]:
    """Per entry's shape: its status, gain, ratio and the config it ends with.
    ``measured``: one value per (shape, config); ``limit_of(shape rows, old row)``:
    the largest ratio the old config may have and stay."""
    rows = {}
    for entry in entries:
        at = measured[np.logical_and.reduce([measured[k] == entry[k] for k in SHAPE])]
        best = at.loc[at["value"].idxmin()]
        old = at[np.logical_and.reduce([at[t] == entry[t] for t in tiles])]
        ratio = float(old["value"].iloc[0] / best["value"]) if len(old) else None
        if ratio is not None and all(best[t] == entry[t] for t in tiles):
            status = "unchanged"
        elif ratio is not None and ratio <= limit_of(at, old.iloc[0]):
            status = "kept"
        else:
            status = "changed"
        stays = status != "changed"
        rows[label(entry)] = {
            "status": status,
            "gain": None if stays else ratio,
            "ratio": ratio if stays else None,
            "config": {t: int(entry[t] if stays else best[t]) for t in tiles},
        }
    return rows


def summary_rows(out: str) -> dict[str, dict[str, Any]]:
    return {r["shape"]: r for r in sections(out)["update"]["rows"]}


def check_summary(
    out: str, expected: dict[str, dict[str, Any]], table: Path, tiles: list[str]
) -> None:
    """The summary says what ``expected`` says, and the manifest holds it."""
    shown = summary_rows(out)
    assert {s: r["status"] for s, r in shown.items()} == {
        s: e["status"] for s, e in expected.items()
    }
    for shape, want in expected.items():
        for column in ("gain", "ratio"):
            if want[column] is None:
                assert shown[shape][column] is None, (shape, column)
            else:
                assert shown[shape][column] == pytest.approx(want[column], rel=1e-12)
    entries = load_manifest(str(table)).entries
    ended = {label(dict(e.values)): {t: e.values[t] for t in tiles} for e in entries}
    assert ended == {s: e["config"] for s, e in expected.items()}


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in "FHIJ":
        shutil.copytree(REAL / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


# A curated numpy table: each shape's runner-up of run I, and at N=512 a config that
# fails there in every run.
NUMPY_TABLE = [
    {"M": 128, "N": 256, "K": 256, "BM": 64, "BN": 128, "BK": 128},
    {"M": 128, "N": 512, "K": 128, "BM": 64, "BN": 128, "BK": 256},
    {"M": 64, "N": 128, "K": 512, "BM": 64, "BN": 128, "BK": 128},
]
NUMPY_TILES = ["BM", "BN", "BK"]


def test_entries_within_x_of_the_new_best_keep_their_config(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "table.yaml").write_text(table_text("np_gemm_blocked", NUMPY_TABLE))
    code, out, err = run(capsys, "J/out.pkl", "--update", "table.yaml",
                         "--keep-within", "6%", "--format", "json")  # fmt: skip
    assert code == 0, err
    expected = expected_rows(
        runs_of("J"), NUMPY_TABLE, NUMPY_TILES, lambda at, old: 1.06 + SLACK
    )
    assert [e["status"] for e in expected.values()] == ["changed", "changed", "kept"]
    check_summary(out, expected, folder / "table.yaml", NUMPY_TILES)
    update = sections(out)["update"]
    assert update["facts"]["keep within"] == "0.06 (ratio <= 1.06)"
    assert (update["facts"]["kept"], update["facts"]["changed"]) == (1, 2)
    failed = (128, 512, 128, 64, 128, 256)
    assert failed in failed_in("J")  # the N=512 entry's config failed in run J
    assert update["notes"][-1] == (
        "no gain measured, the old config having no successful run there: "
        "params[1] (config failed); changed as without --keep-within"
    )


def test_a_mojo_table_judged_on_another_run(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The table is run F's best config of each shape; run H judges it."""
    first = runs_of("F")
    best = first.loc[first.groupby(SHAPE, sort=False)["value"].idxmin()]
    entries = [
        {k: int(v) for k, v in row.items() if k in [*SHAPE, "BM", "BN"]}
        for row in best.to_dict("records")
    ]
    (folder / "table.yaml").write_text(table_text("gemm_blocked", entries))
    code, out, err = run(capsys, "H/out.pkl", "--update", "table.yaml",
                         "--keep-within", "0.1", "--format", "json")  # fmt: skip
    assert code == 0, err
    expected = expected_rows(
        runs_of("H"), entries, ["BM", "BN"], lambda at, old: 1.1 + SLACK
    )
    statuses = sorted(e["status"] for e in expected.values())
    assert statuses == ["changed", "changed", "kept", "kept", "unchanged"]
    check_summary(out, expected, folder / "table.yaml", ["BM", "BN"])


def combined(*names: str, tiles: list[str]) -> pd.DataFrame:
    """The median of each (shape, config)'s runs, and their spread (max / min)."""
    rows = runs_of(*names).groupby([*SHAPE, *tiles], sort=False)["value"]
    stats = rows.agg(["median", "min", "max"]).reset_index()
    return stats.assign(value=stats["median"], spread=stats["max"] / stats["min"])


def test_keep_within_noise_keeps_what_the_runs_cannot_tell_apart(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With repeated runs joined, an old config stays when its ratio to the best is
    at most the larger spread of its runs and of the best's."""
    (folder / "table.yaml").write_text(table_text("np_gemm_blocked", NUMPY_TABLE))
    code, out, err = run(capsys, "I/out.pkl", "J/out.pkl", "--combine", "median",
                         "--update", "table.yaml", "--keep-within", "noise",
                         "--format", "json")  # fmt: skip
    assert code == 0, err
    measured = combined("I", "J", tiles=NUMPY_TILES)

    def noise(at: pd.DataFrame, old: pd.Series) -> float:
        return float(max(at.loc[at["value"].idxmin(), "spread"], old["spread"]))

    expected = expected_rows(measured, NUMPY_TABLE, NUMPY_TILES, noise)
    assert [e["status"] for e in expected.values()] == ["changed", "changed", "kept"]
    check_summary(out, expected, folder / "table.yaml", NUMPY_TILES)
    shown = summary_rows(out)
    kept = shown["M=64/N=128/K=512"]
    at = measured[(measured.M == 64) & (measured.N == 128) & (measured.K == 512)]
    old = at[(at.BM == 64) & (at.BN == 128) & (at.BK == 128)].iloc[0]
    assert kept["noise"] == pytest.approx(noise(at, old), rel=1e-12)
    assert kept["ratio"] > 1.0  # kept although another config measured better


def test_the_text_summary_shows_gain_and_ratio(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "table.yaml").write_text(table_text("np_gemm_blocked", NUMPY_TABLE))
    code, out, err = run(capsys, "J/out.pkl", "--update", "table.yaml",
                         "--keep-within", "6%", "--dry-run", "-q")  # fmt: skip
    assert (code, err) == (0, "")
    rows = summary_rows_text(out)
    measured = runs_of("J")
    at = measured[(measured.M == 128) & (measured.N == 256)]
    gain = at[(at.BK == 128) & (at.BN == 128) & (at.BM == 64)]["value"].iloc[0]
    assert rows[0].split()[:3] == ["M=128/N=256/K=256", "changed", "0"]
    assert rows[0].split()[-2:] == [f"{gain / at['value'].min():.3f}", "-"]
    assert rows[1].split()[-2:] == ["-", "-"]  # its config failed: no gain
    assert rows[2].split()[:4] == ["M=64/N=128/K=512", "kept", "2", "best"]


def summary_rows_text(out: str) -> list[str]:
    block = out.split("\n\n")[1]
    return block.splitlines()[1:]


def test_markdown_and_json_carry_the_same_columns(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "table.yaml").write_text(table_text("np_gemm_blocked", NUMPY_TABLE))
    args = ["J/out.pkl", "--update", "table.yaml", "--keep-within", "6%", "--dry-run"]
    code, out, _ = run(capsys, *args, "--format", "markdown")
    assert code == 0
    header = next(line for line in out.splitlines() if line.startswith("| shape"))
    assert [c.strip() for c in header.strip("|").split("|")] == [
        "shape", "status", "entry", "changes", "gain", "ratio",
    ]  # fmt: skip
    code, out, _ = run(capsys, *args, "--format", "json")
    assert sections(out)["update"]["columns"] == [
        "shape", "status", "entry", "changes", "gain", "ratio",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--update", "table.yaml", "--keep-within", "2"],
         "kprofile: error: --keep-within: expected a fraction below 1 like 0.02 or "
         "2%, got '2'; did you mean 2%?"),
        (["--update", "table.yaml", "--keep-within", "lots"],
         "kprofile: error: --keep-within: expected a fraction like 0.05 or 5%, got "
         "'lots'"),
        (["--keep-within", "2%"],
         "kprofile: error: --keep-within only applies to --update"),
        (["--update", "table.yaml", "--keep-within", "noise"],
         "kprofile: error: --keep-within noise: the noise is measured by repeated "
         "runs joined with --combine median|min|mean"),
        (["--ranges", "M", "--update", "table.yaml", "--keep-within", "2%"],
         "kprofile: error: --keep-within only applies to the per-file views"),
    ],
    ids=["percent-hint", "not-a-number", "without-update", "noise-alone", "ranges"],
)  # fmt: skip
def test_keep_within_errors_are_one_line_and_change_nothing(
    folder: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    (folder / "table.yaml").write_text(table_text("np_gemm_blocked", NUMPY_TABLE))
    before = (folder / "table.yaml").read_bytes()
    code, out, err = run(capsys, "J/out.pkl", *args)
    assert (code, out, err) == (2, "", message + "\n")
    assert (folder / "table.yaml").read_bytes() == before
