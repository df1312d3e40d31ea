"""Two ``kprofile --update`` runs on one manifest at the same time: both land.

The overlap is made certain, not left to chance: the test holds the manifest's lock,
starts both runs, and lets go only once both say they are waiting for it. Before the update sink was a compare-and-swap, each run read the
manifest before locking it and one of the two new shapes was lost.
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from support import BIN, FIXTURES

from tuning_codegen.manifest import load_manifest

pytestmark = pytest.mark.slow  # two real processes racing for one manifest

MANIFEST = """\
name: bench_matmul
params:
- {M: 256, N: 20480, K: 5376, BM: 1, BN: 1, STAGES: 1, CLUSTER: 1, SWAP_AB: false, SCHEDULE: default}
"""


def test_two_concurrent_updates_both_land(tmp_path: Path) -> None:
    manifest = tmp_path / "table.yaml"
    manifest.write_text(MANIFEST)
    runs = []
    logs = [tmp_path / "first.err", tmp_path / "second.err"]
    for name in ("M8_N7168_K2048.pkl", "M4096_N4096_K4096.pkl"):
        shutil.copy(FIXTURES / "results" / "run1" / name, tmp_path / name)
    with open(manifest, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        for name, log in zip(("M8_N7168_K2048.pkl", "M4096_N4096_K4096.pkl"), logs):
            with open(log, "wb") as err:
                runs.append(
                    subprocess.Popen(
                        [str(BIN / "kprofile"), name, "--update", "table.yaml"],
                        cwd=tmp_path,
                        stdout=subprocess.DEVNULL,
                        stderr=err,
                    )
                )
        deadline = time.monotonic() + 120
        while not all(b"waiting for table.yaml" in log.read_bytes() for log in logs):
            assert time.monotonic() < deadline, "the runs never waited for the lock"
            assert all(r.poll() is None for r in runs), [p.read_text() for p in logs]
            time.sleep(0.05)
    codes = [r.wait(timeout=120) for r in runs]
    assert codes == [0, 0], [p.read_text() for p in logs]
    entries = load_manifest(str(manifest)).entries
    shapes = sorted((e.values["M"], e.values["N"], e.values["K"]) for e in entries)
    assert shapes == [(8, 7168, 2048), (256, 20480, 5376), (4096, 4096, 4096)]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
