"""Ctrl-C stops kprofile at once, the HiGHS solves of --cover and --budget included:
exit 130, nothing written, the solver's process gone."""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from support import BIN

pytestmark = pytest.mark.slow  # real Ctrl-C during solves


def hard_cover(path: Path) -> Path:
    """200 shapes x 500 configs, each config within tol on a random 9% of the shapes:
    a set cover HiGHS cannot prove in minutes (the default time limit is 120 s)."""
    rng = np.random.default_rng(0)
    shapes, configs = 200, 500
    covers = rng.random((shapes, configs)) < 0.09
    covers[np.arange(shapes), rng.integers(0, configs, shapes)] = True
    shape, config = (a.ravel() for a in np.indices((shapes, configs)))
    frame = pd.DataFrame(
        {
            "mesh_idx": np.arange(shapes * configs),
            "name": "k",
            "met (ms)": np.where(covers.ravel(), 1.0, 2.0),
            "iters": 10,
            "spec": [f"k/C={c}/S={s}" for s, c in zip(shape.tolist(), config.tolist())],
            "kbench_filter": "",
        }
    )
    payload = {"merged_df": frame, "build_df": frame[["mesh_idx"]], "name": "k"}
    path.write_bytes(pickle.dumps(payload))
    return path


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


@pytest.mark.parametrize("mode", [["--cover", "0.05"], ["--budget", "8"]])
def test_ctrl_c_during_the_solve_exits_130_at_once(
    tmp_path: Path, mode: list[str]
) -> None:
    hard_cover(tmp_path / "hard.pkl")
    (tmp_path / "out").mkdir()
    command = [str(BIN / "kprofile"), "hard.pkl", "-p", "S", *mode, "-o", "out/table"]
    process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not children(process.pid) and time.monotonic() < deadline:
            assert process.poll() is None, process.communicate()
            time.sleep(0.05)
        solver = children(process.pid)
        assert solver, "the solve never started"
        time.sleep(1.0)  # well inside the solve
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
        elapsed = time.monotonic() - sent
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert (process.returncode, out, err) == (
        130,
        "",
        "kprofile: error: interrupted by SIGINT\n",
    )
    assert elapsed < 2.0, elapsed
    assert list((tmp_path / "out").iterdir()) == []
    assert not any(os.path.exists(f"/proc/{pid}") for pid in solver)
