"""docs/ranges.md stays true beyond its ``$`` examples (which tests/test_docs.py
runs): the manifest excerpt is the start of what ``-o`` writes; the snippet is the
fixture's; the generated lines are the start of what the codegen renders from that
manifest."""

from __future__ import annotations

import glob
import re
import shlex
import shutil
from pathlib import Path

import pytest
from support import FIXTURES, PROJECT, run

from tuning_codegen.manifest import load_manifest
from tuning_codegen.render import render_region

PAGE = PROJECT / "docs" / "ranges.md"
SNIPPET = FIXTURES / "codegen" / "ranges_sweep.mojo.snippet"


def blocks(kind: str) -> list[str]:
    return re.findall(rf"^```{kind}\n(.*?)^```$", PAGE.read_text(), re.S | re.M)


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder laid out like the repository root, with the sweep fixture."""
    shutil.copytree(FIXTURES / "sweep", tmp_path / "fixtures" / "sweep")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def argv(command: str) -> list[str]:
    words = shlex.split(command)
    assert words[0] == "kprofile"
    return [w2 for w in words[1:] for w2 in (sorted(glob.glob(w)) if "*" in w else [w])]


def test_the_manifest_and_the_generated_lines(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(
        capsys, *argv("kprofile fixtures/sweep/*.pkl --ranges M -o tuning_ranged")
    )
    assert (code, err) == (0, "wrote tuning_ranged.yaml (12 entries)\n")
    (manifest,) = blocks("yaml")
    assert Path("tuning_ranged.yaml").read_text().startswith(manifest)
    snippet, generated = blocks("mojo")
    assert snippet == SNIPPET.read_text()
    entries = load_manifest("tuning_ranged.yaml").entries
    region = render_region(
        entries,
        {None: snippet.rstrip()},
        source_label="tuning_ranged.yaml",
        manifest_path="tuning_ranged.yaml",
    )
    assert (region + "\n").startswith(generated)
    assert generated.count("MatmulConfig(") == 2
