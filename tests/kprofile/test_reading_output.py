"""Output that reads well (issue 26, item 6), through the real command on the two
genuine kbench runs of ``fixtures/realkbench``: a manifest without an empty
``defaults``, labels and best rows that tell inputs apart, the best row marked
without colour, a warning when a written common config is far from the best,
directions named right, and notices once per run, silenced by ``-q``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from support import FIXTURES, run

from tuning_codegen.manifest import load_manifest

REAL = FIXTURES / "realkbench"


@pytest.fixture
def real(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The two real runs as the working directory: A/out.pkl, B/out.csv, ..."""
    shutil.copytree(REAL, tmp_path / "real")
    monkeypatch.chdir(tmp_path / "real")
    return tmp_path / "real"


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
