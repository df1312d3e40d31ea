"""Every benchmark script runs: each on a tiny input (``--smoke``), in a subprocess, as
a contributor runs it (``python bench/NAME.py``). The figures are not checked (a test
asserts no duration); that the script runs to the end and prints them is.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from support import BIN, PROJECT

SCRIPTS = sorted(p.name for p in (PROJECT / "bench").glob("bench_*.py"))
pytestmark = [
    pytest.mark.bench,
    pytest.mark.slow,
]  # a few seconds each: python -m pytest -m bench


def test_every_script_is_here() -> None:
    assert len(SCRIPTS) >= 10 and "bench_update.py" in SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS)
def test_the_script_runs_on_a_tiny_input(script: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"  # kprofile, tuning-codegen
    done = subprocess.run(
        [sys.executable, str(PROJECT / "bench" / script), "--smoke"],
        cwd=PROJECT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip(), "printed no figures"
