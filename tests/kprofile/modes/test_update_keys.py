"""A parameter name no manifest key can be is refused with one line, exit 2, nothing
written: ``<<`` (YAML's merge key: ``--update`` used to drop it without a word) and a
name longer than YAML's 1024-character limit on a key. Names that only need quoting
(``? x``, ``a: b``, ``#x``, ``true``) are written quoted and read back as themselves.

Through the real command, with kbench pickles whose spec strings carry the names."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from support import run, snapshot

from tuning_codegen.manifest import load_manifest

BLOCK = "params:\n- M: 1\n  BM: 32\n"
FLOW = "params:\n- {M: 1, BM: 32}\n"
LONG = "N" * 1100
MERGE = "a parameter named '<<' cannot be written: YAML reads it as a merge key"
TOO_LONG = (
    "a parameter name of 1,100 characters cannot be written: YAML reads no key "
    "longer than 1024 characters"
)


def _rows(name: str) -> list[dict[str, object]]:
    return [
        {"M": m, name: 1, "BM": bm, "met (ms)": float(m * bm % 7 + 1)}
        for m in (2, 4)
        for bm in (64, 128)
    ]


@pytest.mark.parametrize(("name", "message"), [("<<", MERGE), (LONG, TOO_LONG)])
@pytest.mark.parametrize("manifest", [BLOCK, FLOW])
def test_update_refuses_a_name_no_key_can_be(
    kb_write: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    message: str,
    manifest: str,
) -> None:
    results = kb_write("r.pkl", _rows(name)[:2])
    (tmp_path / "table.yaml").write_text(manifest)
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    code, _, err = run(capsys, str(results), "-p", "M", "--update", "table.yaml")
    assert (code, err) == (2, f"table.yaml: error: {message}\n")
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(("name", "message"), [("<<", MERGE), (LONG, TOO_LONG)])
def test_ranges_update_refuses_it_too(
    kb_write: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    message: str,
) -> None:
    results = kb_write("r.pkl", _rows(name))
    (tmp_path / "table.yaml").write_text(BLOCK)
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    code, _, err = run(capsys, str(results), "--ranges", "M", "--update", "table.yaml")
    assert (code, err) == (2, f"table.yaml: error: {message}\n")
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(("name", "message"), [("<<", MERGE), (LONG, TOO_LONG)])
def test_output_refuses_it_too(
    kb_write: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    message: str,
) -> None:
    results = kb_write("r.pkl", _rows(name))
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    code, _, err = run(capsys, str(results), "-p", "M", "-o", "best")
    assert (code, err) == (2, f"best.yaml: error: -o: {message}\n")
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    "name", ["? x", "a: b", "#x", "true", "null", "1", "- x", "<<x", "N" * 1000]
)
@pytest.mark.parametrize("manifest", [BLOCK, FLOW])
def test_names_that_need_quoting_are_written_and_read_back(
    kb_write: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    manifest: str,
) -> None:
    results = kb_write("r.pkl", _rows(name)[:2])
    (tmp_path / "table.yaml").write_text(manifest)
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, str(results), "-p", "M", "--update", "table.yaml")
    assert (code, err) == (0, "updated table.yaml\n")
    added = load_manifest(tmp_path / "table.yaml").entries[-1].values
    assert added[name] == 1 and added["M"] == 2
