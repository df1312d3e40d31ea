"""Two ``kprofile --update`` runs on one manifest at the same time: both land.

The overlap is made certain, not left to chance: the test holds the manifest's lock,
starts both runs, and lets go only once the kernel lists both as waiting for it
(``/proc/locks``). Before the update sink was a compare-and-swap, each run read the
manifest before locking it and one of the two new shapes was lost.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from support import BIN, FIXTURES

from tuning_codegen.manifest import load_manifest

MANIFEST = """\
name: bench_matmul
params:
- {M: 256, N: 20480, K: 5376, BM: 1, BN: 1, STAGES: 1, CLUSTER: 1, SWAP_AB: false, SCHEDULE: default}
"""


def _waiters(path: Path) -> int:
    """How many processes wait for a lock on ``path`` (``->`` lines of /proc/locks)."""
    inode = os.stat(path).st_ino
    lines = Path("/proc/locks").read_text().splitlines()
    return sum(1 for line in lines if "->" in line and f":{inode} " in line)


@pytest.mark.skipif(not Path("/proc/locks").exists(), reason="needs Linux /proc/locks")
def test_two_concurrent_updates_both_land(tmp_path: Path) -> None:
    manifest = tmp_path / "table.yaml"
    manifest.write_text(MANIFEST)
    runs = []
    for name in ("M8_N7168_K2048.pkl", "M4096_N4096_K4096.pkl"):
        shutil.copy(FIXTURES / "results" / "run1" / name, tmp_path / name)
    with open(manifest, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        for name in ("M8_N7168_K2048.pkl", "M4096_N4096_K4096.pkl"):
            runs.append(
                subprocess.Popen(
                    [str(BIN / "kprofile"), name, "--update", "table.yaml"],
                    cwd=tmp_path,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
        deadline = time.monotonic() + 120
        while _waiters(manifest) < 2:
            assert time.monotonic() < deadline, "the runs never waited for the lock"
            assert all(r.poll() is None for r in runs), [r.communicate() for r in runs]
            time.sleep(0.05)
    results = [r.communicate(timeout=120) for r in runs]
    assert [r.returncode for r in runs] == [0, 0], results
    entries = load_manifest(str(manifest)).entries
    shapes = sorted((e.values["M"], e.values["N"], e.values["K"]) for e in entries)
    assert shapes == [(8, 7168, 2048), (256, 20480, 5376), (4096, 4096, 4096)]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []
