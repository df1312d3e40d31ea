"""kprofile's output in a locale that cannot show every character: what the stream's
encoding cannot hold is escaped (``\\u65e5``), in every format, never exit 3 (before:
``internal error: UnicodeEncodeError``); the JSON document stays valid JSON holding
the same text (a character past U+FFFF as a surrogate pair, as JSON spells it)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from support import BIN, FIXTURES

NAME = "日本😀.yaml"


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_a_manifest_name_the_locale_cannot_show_is_escaped(
    tmp_path: Path, fmt: str
) -> None:
    shutil.copy(FIXTURES / "results" / "run2" / "M8_N7168_K2048.pkl", tmp_path)
    shutil.copy(FIXTURES / "update" / "tuning_table_bench_matmul.yaml", tmp_path / NAME)
    done = subprocess.run(
        [str(BIN / "kprofile"), "M8_N7168_K2048.pkl", "--update", NAME, "--dry-run",
         "--format", fmt],
        cwd=tmp_path, capture_output=True, timeout=300,
        env={**os.environ, "PYTHONIOENCODING": "latin-1"},
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, b"")
    if fmt == "json":
        document = json.loads(done.stdout.decode("latin-1"))
        assert document["sections"][-1]["title"].startswith(f"update: {NAME}: diff")
        return
    assert "\\u65e5\\u672c\\U0001f600.yaml" in done.stdout.decode("latin-1")
