"""Decoding a pickle holds its bytes and what they make not both at once: the file is
scanned and unpickled a piece at a time, an array's bytes read from the file into
its object (``pickles.streamed``). Measured as
the growth of a child process's peak RSS while it decodes a 100 MiB pickle (it grew
by about twice the file before)."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytestmark = pytest.mark.slow  # peak memory of a 100 MiB decode in a child process

CHILD = """
import json, resource, sys
from kprofile.inputs.pickles import read_pickle
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
payload = read_pickle(sys.argv[1])
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
column = payload["merged_df"]["met (ms)"]
print(json.dumps([len(column), float(column.iloc[-1]), (after - before) * 1024]))
"""
MIB = 2**20
ROWS = 100 * MIB // 8


def test_a_pickle_and_its_table_are_not_both_in_memory(tmp_path: Path) -> None:
    values = np.random.default_rng(0).random(ROWS)
    path = tmp_path / "big.pkl"
    with open(path, "wb") as out:
        frame = pd.DataFrame({"met (ms)": values})
        pickle.dump({"merged_df": frame}, out, protocol=pickle.HIGHEST_PROTOCOL)
    size = path.stat().st_size
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    rows, last, growth = json.loads(done.stdout)
    assert (rows, last) == (ROWS, float(values[-1]))
    assert size > 100 * MIB
    assert growth < 1.5 * size, growth / MIB  # file and table at once: 2x
