"""Every mode finds a file's shapes the same way (``core.columns.shape_keys``):
kbench's runtime parameters (``$M=256`` in a spec string), else the columns constant
within every file; ``-p`` overrides. Through the real command on genuine kbench runs
(``fixtures/realkbench/A``: 3 shapes in one file, written by kbench itself); pandas
reading the CSV is the oracle for which shapes there are and each one's best.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml
from support import FIXTURES, run

REAL = FIXTURES / "realkbench"
SHAPE = ["M", "N", "K"]
TUNING = ["BM", "BN", "BK"]


def _bests(path: str) -> pd.DataFrame:
    """Each shape's fastest row of kbench's CSV, the spec's values as ints."""
    raw = pd.read_csv(path)
    params = pd.DataFrame(
        [
            {k.lstrip("$"): int(v) for k, v in (t.split("=") for t in s.split("/")[1:])}
            for s in raw["spec"]
        ]
    )
    table = raw.join(params)
    best = table.loc[table.groupby(SHAPE, sort=False)["met (s)"].idxmin()]
    return best[SHAPE + TUNING].reset_index(drop=True)


def test_diff_of_a_file_of_three_shapes_compares_shape_by_shape(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (real / "plain").mkdir()
    (real / "pivots").mkdir()
    args = ["-d", "A/out.pkl", "B/out.pkl", "--out-dir"]
    code, out, err = run(capsys, *args, "plain")
    assert code == 0, err
    code_p, out_p, err_p = run(capsys, *args, "pivots", "-p", "M,N,K")
    assert (code_p, err_p) == (0, err)
    assert out.replace("plain/", "pivots/") == out_p
    shapes = _bests("A/out.csv")[SHAPE]
    names = {
        "_".join(f"{c}={row[c]}" for c in SHAPE) + ".csv"
        for _, row in shapes.iterrows()
    }
    assert {p.name for p in (real / "plain").iterdir()} == names
    for name in names:
        assert (real / "plain" / name).read_bytes() == (
            real / "pivots" / name
        ).read_bytes()
    assert "(all)" not in out
    assert "shapes by  M, N, K" in out


def test_update_without_p_puts_in_each_shapes_best_as_with_p(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = "params:\n- M: 256\n  N: 256\n  K: 256\n  BM: 1\n"
    Path("plain.yaml").write_text(first)
    Path("pivots.yaml").write_text(first)
    code, out, err = run(capsys, "A/out.pkl", "--update", "plain.yaml")
    assert code == 0, err
    code_p, out_p, err_p = run(
        capsys, "A/out.pkl", "-p", "M,N,K", "--update", "pivots.yaml"
    )
    assert (code_p, err_p) == (0, err.replace("plain.yaml", "pivots.yaml"))
    assert out.replace("plain.yaml", "pivots.yaml") == out_p
    assert Path("plain.yaml").read_bytes() == Path("pivots.yaml").read_bytes()
    written = yaml.safe_load(Path("plain.yaml").read_text())["params"]
    assert written == _bests("A/out.csv").to_dict("records")
    assert "matched by  M, N, K" in out
    assert "no pivot columns" not in err


def test_the_shapes_note_and_update_agree_on_the_shape(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The per-file view's per-shape table is by the columns --update groups by
    without -p, and names the -p that shows each shape on its own."""
    code, out, _ = run(capsys, "A/out.csv")
    assert code == 0
    assert "shapes by        M, N, K\n" in out
    assert "-p M,N,K shows each on its own" in out


def test_p_still_overrides_the_shapes_found(
    real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``-p M`` matches and groups by M alone, in -d and --update alike."""
    code, out, err = run(capsys, "-d", "A/out.pkl", "B/out.pkl", "-p", "M",
                         "--out-dir", ".")  # fmt: skip
    assert code == 0, err
    assert "shapes by  M\n" in out
    ms = pd.read_csv("A/out.csv")["spec"].str.extract(r"\$M=(\d+)")[0].unique()
    assert [f"M={m}.csv" for m in ms] == [
        line.removeprefix("wrote ")
        for line in out.splitlines()
        if line.startswith("wrote ")
    ]
    Path("t.yaml").write_text("params:\n- M: 256\n  BM: 1\n")
    code, out, err = run(capsys, "A/out.pkl", "-p", "M", "--update", "t.yaml")
    assert code == 0, err
    assert "matched by  M\n" in out
    written = yaml.safe_load(Path("t.yaml").read_text())["params"]
    assert [e["M"] for e in written] == [int(m) for m in ms]
