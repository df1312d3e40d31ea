"""Shared helpers for kprofile tests: real kbench-format files written by pandas in tmp_path."""

from __future__ import annotations

import datetime
import pickle
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from kbench_support import kbench_frame, kbench_payload
from support import MANIFEST, RESULTS

ROOT = Path(__file__).parents[2]
FIXTURES = ROOT / "fixtures"


@pytest.fixture
def kb_write(tmp_path: Path) -> Callable[..., Path]:
    """Write a kbench pickle (or CSV) for ``rows`` into tmp_path and return its path."""

    def write(
        filename: str,
        rows: Sequence[dict[str, Any]],
        *,
        metric: str = "met (ms)",
        **meta: Any,
    ) -> Path:
        frame = kbench_frame(rows, metric=metric)
        path = tmp_path / filename
        if path.suffix == ".csv":
            frame.drop(columns=["mesh_idx"]).to_csv(path, index=False)
        else:
            meta.setdefault("git-revision", "abc1234")
            meta.setdefault("datetime", datetime.datetime(2025, 1, 2, 3, 4, 5))
            path.write_bytes(pickle.dumps(kbench_payload(frame, **meta)))
        return path

    return write


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of fixtures/results as the working directory, with the curated manifest
    as table.yaml."""
    folder = tmp_path / "demo"
    shutil.copytree(RESULTS, folder)
    shutil.copyfile(MANIFEST, folder / "table.yaml")
    monkeypatch.chdir(folder)
    return folder


@pytest.fixture
def real(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The genuine kbench runs (fixtures/realkbench: A/out.pkl, A/out.csv, B/..., with
    their failure records) copied as the working directory."""
    shutil.copytree(FIXTURES / "realkbench", tmp_path / "real")
    monkeypatch.chdir(tmp_path / "real")
    return tmp_path / "real"
