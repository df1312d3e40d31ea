"""``--rerun SPEC.yaml`` through the real command on genuine kbench runs: the spec it
writes, read back and expanded as kbench expands a spec (kprofile's own
``expand_spec``, and the spec strings kbench names each point by), holds exactly each
shape's contenders, computed here with pandas from kbench's ``out.csv``."""

from __future__ import annotations

import itertools
import os
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml
from support import FIXTURES, run, sections

from kprofile.inputs.specyaml import expand_spec

REAL = FIXTURES / "realkbench"
SHAPE = ["M", "N", "K"]
SLACK = 1e-12  # --within's band: ratio <= 1 + X, one rounding of value / best above


def runs_of(*paths: Path) -> pd.DataFrame:
    """Every successful row of each kbench CSV: its spec string, parameters (read off
    the spec by hand) and metric."""
    frames = []
    for path in paths:
        raw = pd.read_csv(path)
        metric = next(c for c in raw.columns if c.startswith("met ("))
        params = pd.DataFrame(
            [dict(t.lstrip("$").split("=") for t in s.split("/")[1:]) for s in raw.spec]
        )
        params = params.apply(typed)
        frames.append(params.assign(value=raw[metric].to_numpy(), spec=raw.spec))
    return pd.concat(frames, ignore_index=True)


def typed(column: pd.Series) -> pd.Series:
    """A column of spec values as the spec writes them: integers, booleans, text."""
    if column.str.fullmatch(r"-?\d+").all():
        return column.astype(int)
    if column.isin(["True", "False"]).all():
        return column == "True"
    return column


def tiles_of(frame: pd.DataFrame) -> list[str]:
    shape = [c for c in SHAPE if c in frame.columns]
    return [c for c in frame.columns if c not in {*shape, "value", "spec"}]


def within(frame: pd.DataFrame, tol: float) -> set[str]:
    """The spec strings of each shape's configs within ``tol`` of its best."""
    best = frame.groupby(SHAPE)["value"].transform("min")
    return set(frame.loc[frame["value"] / best <= 1 + tol + SLACK, "spec"])


def within_noise(frame: pd.DataFrame) -> set[str]:
    """Of repeated runs, each shape's configs whose median is within the larger spread
    (max / min of the runs) of theirs and the best's of the shape's best median."""
    keys = [*SHAPE, *tiles_of(frame)]
    stats = frame.groupby(keys)["value"].agg(["median", "min", "max"]).reset_index()
    stats["spread"] = stats["max"] / stats["min"]
    stats["spec"] = frame.groupby(keys)["spec"].first().to_numpy()
    best = stats.loc[stats.groupby(SHAPE)["median"].idxmin()].set_index(SHAPE)
    at = stats.set_index(SHAPE).index
    ratio = stats["median"].to_numpy() / best["median"].reindex(at).to_numpy()
    limit = np.maximum(best["spread"].reindex(at).to_numpy(), stats["spread"])
    return set(stats.loc[ratio <= limit, "spec"])


def kbench_names(text: str) -> list[str]:
    """The spec strings of the points the spec runs, named as kbench names them: the
    file's stem, then ``name=value`` of each key of its group, in order (``$``
    kept), the group a cartesian product (first key slowest)."""
    document = yaml.safe_load(text)
    stem = Path(document["file"]).stem
    names = []
    for group in document["params"]:
        lists = [v if isinstance(v, list) else [v] for v in group.values()]
        for combo in itertools.product(*lists):
            pairs = [f"{k}={v}" for k, v in zip(group, combo)]
            names.append("/".join([stem, *pairs]))
    return names


def expanded(text: str) -> list[dict[str, Any]]:
    """The spec expanded by kprofile's reader of kbench specs."""
    return expand_spec(yaml.safe_load(text), "rerun.yaml").records()


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in "AFHIJ":
        shutil.copytree(REAL / name, tmp_path / name)
    for name in ("run_a.pkl", "run_b.pkl", "run_a.csv", "run_b.csv", "spec.yaml"):
        shutil.copyfile(FIXTURES / "heldout" / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    ("run_name", "tol"), [("I", "0.1"), ("F", "20%"), ("J", "0")], ids=str
)
def test_the_spec_holds_each_shapes_configs_within_x(
    folder: Path, capsys: pytest.CaptureFixture[str], run_name: str, tol: str
) -> None:
    code, _, err = run(capsys, f"{run_name}/out.pkl", "--rerun", "again.yaml",
                       "--rerun-within", tol, "-q")  # fmt: skip
    assert code == 0, err
    text = (folder / "again.yaml").read_text()
    fraction = float(tol.rstrip("%")) / (100 if tol.endswith("%") else 1)
    want = within(runs_of(folder / run_name / "out.csv"), fraction)
    names = kbench_names(text)
    assert sorted(names) == sorted(want)  # exactly the contenders, each once
    measured = runs_of(folder / run_name / "out.csv")
    rows = measured[measured.spec.isin(want)][[*SHAPE, *tiles_of(measured)]]
    assert sorted(map(repr, expanded(text))) == sorted(
        map(repr, rows.to_dict("records"))
    )


def test_runtime_parameters_carry_their_dollar_and_sizes_are_plain(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """numpy's spec passes M at run time, N and K at compile time: the groups say
    so, and name the benchmark as kbench recorded it."""
    code, _, err = run(capsys, "I/out.pkl", "--rerun", "again.yaml",
                       "--rerun-within", "5%", "-q")  # fmt: skip
    assert code == 0, err
    document = yaml.safe_load((folder / "again.yaml").read_text())
    original = yaml.safe_load((folder / "I" / "spec.yaml").read_text())
    recorded = pd.read_pickle(folder / "I" / "out.pkl")
    assert document["name"] == original["name"] == recorded["name"]
    assert document["file"] == str(recorded["file"])
    assert {tuple(g) for g in document["params"]} == {tuple(original["params"][0])}
    assert set(document) == {"name", "file", "params"}


@pytest.mark.parametrize("runs", [("I", "J"), ("F", "H")], ids=["numpy", "mojo"])
def test_with_repeated_runs_the_contenders_are_those_within_the_noise(
    folder: Path, capsys: pytest.CaptureFixture[str], runs: tuple[str, str]
) -> None:
    pickles = [f"{r}/out.pkl" for r in runs]
    code, out, err = run(capsys, *pickles, "--combine", "median", "--rerun",
                         "again.yaml", "--format", "json")  # fmt: skip
    assert code == 0, err
    text = (folder / "again.yaml").read_text()
    csvs = [folder / r / "out.csv" for r in runs]
    want = within_noise(runs_of(*csvs))
    assert sorted(kbench_names(text)) == sorted(want)
    facts = sections(out)["rerun"]["facts"]
    assert facts["contenders"] == f"{len(want)} of {facts['contenders'].split()[2]} " \
        "configs that ran"  # fmt: skip
    assert facts["within"].startswith("noise")


def test_the_noise_section_and_the_spec_agree(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each shape's contenders are its best and the configs the noise section counts
    within noise of it."""
    code, out, err = run(capsys, "run_a.pkl", "run_b.pkl", "--combine", "median",
                         "--rerun", "again.yaml", "--format", "json")  # fmt: skip
    assert code == 0, err
    found = sections(out)
    per_shape = {
        tuple(r[c] for c in SHAPE): r["contenders"] for r in found["rerun"]["rows"]
    }
    flagged = {
        tuple(r[c] for c in SHAPE): r["best within noise of"]
        for r in found["noise"]["rows"]
    }
    assert per_shape == {s: 1 + flagged.get(s, 0) for s in per_shape}
    want = within_noise(runs_of(folder / "run_a.csv", folder / "run_b.csv"))
    assert sorted(kbench_names((folder / "again.yaml").read_text())) == sorted(want)


def test_the_same_inputs_write_the_same_bytes(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["I/out.pkl", "J/out.pkl", "--combine", "median", "-q"]
    assert run(capsys, *args, "--rerun", "one.yaml")[0] == 0
    assert run(capsys, *args, "--rerun", "two.yaml")[0] == 0
    assert (folder / "one.yaml").read_bytes() == (folder / "two.yaml").read_bytes()


def test_an_existing_spec_is_replaced_as_o_replaces_its_manifest(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "again.yaml").write_text("old\n")
    os.chmod(folder / "again.yaml", 0o640)
    code, _, err = run(capsys, "I/out.pkl", "--rerun", "again.yaml",
                       "--rerun-within", "5%", "-q")  # fmt: skip
    assert (code, err.splitlines()[-1]) == (
        0, "wrote again.yaml (4 configs of 3 shapes in 3 groups)"
    )  # fmt: skip
    assert (folder / "again.yaml").read_text().startswith("# Generated by kprofile")
    assert (folder / "again.yaml").stat().st_mode & 0o777 == 0o640


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["I/out.pkl", "--rerun", "again.yaml", "--rerun-within", "2"],
         "kprofile: error: --rerun-within: expected a fraction below 1 like 0.02 "
         "or 2%, got '2'; did you mean 2%?"),
        (["I/out.pkl", "--rerun", "again.yaml"],
         "kprofile: error: --rerun: how close to its best is a contender? give "
         "--rerun-within X (0.02 or 2%), or repeated runs joined with --combine "
         "median|min|mean (their noise)"),
        (["I/out.pkl", "--rerun", "again.yaml", "--rerun-within", "noise"],
         "kprofile: error: --rerun-within noise: the noise is measured by repeated "
         "runs joined with --combine median|min|mean"),
        (["I/out.pkl", "--rerun-within", "2%"],
         "kprofile: error: --rerun-within only applies to --rerun"),
        (["I/out.pkl", "J/out.pkl", "-d", "--rerun", "again.yaml"],
         "kprofile: error: --rerun only applies to the per-file views"),
        (["I/out.pkl", "--rerun", "I", "--rerun-within", "2%"],
         "I: error: --rerun needs a file name, and this is a directory"),
        (["I/out.pkl", "--rerun", "I/spec.yaml", "--rerun-within", "2%",
          "--spec", "I/spec.yaml"],
         "I/spec.yaml: error: --rerun would write over an input of this run "
         "(I/spec.yaml); name another file"),
        (["I/out.pkl", "--rerun", "I/out.pkl", "--rerun-within", "2%"],
         "I/out.pkl: error: --rerun would write over an input of this run "
         "(I/out.pkl); name another file"),
        (["I/out.pkl", "--rerun", "I/out.pkl/again.yaml", "--rerun-within", "2%",
          "-q"],
         "I/out.pkl: error: --rerun: cannot create: File exists"),
        (["I/out.csv", "--rerun", "again.yaml", "--rerun-within", "2%", "-q"],
         "I/out.csv: error: --rerun: no benchmark file recorded (kbench's .pkl "
         "records it, its .csv does not); give the .pkl"),
        (["I/out.pkl", "A/out.pkl", "-p", "M,N,K", "--rerun", "again.yaml",
          "--rerun-within", "2%", "-q"],
         "A/out.pkl: error: --rerun: the inputs come from different benchmarks "
         "(np_gemm_blocked in np_gemm_blocked.py, np_blocked_matmul in "
         "np_blocked_matmul.py); one spec runs one"),
    ],
    ids=["percent-hint", "no-band", "noise-alone", "without-rerun", "diff",
         "folder", "the-spec", "an-input", "below-a-file", "csv", "two-benchmarks"],
)  # fmt: skip
def test_rerun_errors_are_one_line_and_write_nothing(
    folder: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    code, _, err = run(capsys, *args)
    assert (code, err.splitlines()[-1:]) == (2, [message])
    after = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert after == before


def test_a_missing_folder_is_made_as_o_makes_its_own(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It was refused ('create it first') where ``-o nodir/t`` and ``--plot`` make
    theirs; a run that writes nothing makes no folder."""
    code, _, err = run(capsys, "I/out.pkl", "--rerun", "new/deeper/again.yaml",
                       "--rerun-within", "2%", "-q")  # fmt: skip
    assert code == 0, err
    assert (folder / "new/deeper/again.yaml").read_text().startswith("# Generated by")
    code, _, err = run(capsys, "I/out.pkl", "--rerun", "other/again.yaml",
                       "--rerun-within", "2%", "--query", "M == -1")  # fmt: skip
    assert code == 2, err
    assert not (folder / "other").exists()
