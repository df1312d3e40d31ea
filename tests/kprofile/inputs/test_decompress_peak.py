"""A compressed pickle costs what the same pickle uncompressed costs: it is
decompressed a piece at a time as it is unpickled, never whole in memory (before: the
decompressed bytes and the objects made from them, about twice the peak). And a
decompression bomb is refused within its documented bound (100 times the compressed
size plus 64 MiB).

Measured in fresh child processes as the growth of the peak RSS (``VmHWM``) while
``read_pickle`` reads one file, on a kbench pickle of about 90 MiB written with
kbench's recipe (``name`` and ``spec`` ``astype("string")``, ``file`` a
``pathlib.Path``, the highest protocol), compressed as ``DataFrame.to_pickle`` does.
"""

from __future__ import annotations

import gzip
import json
import pickle
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from support import compress

from kprofile.inputs.pickles import compressed

pytestmark = pytest.mark.slow  # peak memory of real streams in child processes

# The peak RSS of this process's memory (VmHWM: getrusage's ru_maxrss would carry
# the peak of the forking pytest worker over exec).
CHILD = """
import json, sys
from kprofile.inputs.pickles import RefusedPickle, read_pickle
import pandas, numpy  # imported before the measurement starts
def peak():
    with open("/proc/self/status") as status:
        line = next(l for l in status if l.startswith("VmHWM:"))
    return int(line.split()[1]) * 1024
before = peak()
try:
    rows, refused = len(read_pickle(sys.argv[1])["merged_df"]), ""
except RefusedPickle as exc:
    rows, refused = 0, str(exc)
print(json.dumps([rows, refused, peak() - before]))
"""
MIB = 2**20
ROWS = 600_000


def _peak(path: Path) -> tuple[int, str, int]:
    """Rows read (or the refusal) and the growth of the peak RSS, in bytes."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    rows, refused, growth = json.loads(done.stdout)
    return rows, refused, growth


@pytest.fixture(scope="module")
def kbench_pickle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A merged_df of ROWS distinct configs, pickled as kbench's Scheduler.dump."""
    rng = np.random.default_rng(7)
    bm = rng.choice([16, 32, 64, 128, 256], ROWS)
    points = [(f"M={i % 4096}", "N=4096", "K=4096", f"BM={b}", "BN=128",
               f"STAGES={i % 7}", f"CONFIG={i}") for i, b in enumerate(bm)]  # fmt: skip
    frame = pd.DataFrame(
        {
            "mesh_idx": np.arange(ROWS),
            "name": "bench_matmul",
            "met (ms)": np.exp(rng.normal(-1.0, 0.3, ROWS)),
            "iters": 100,
            "spec": [f"bench_matmul/${'/'.join(p)}" for p in points],
            "kbench_filter": [" ".join(p) for p in points],
        }
    )
    frame["name"] = frame["name"].astype("string")
    frame["spec"] = frame["spec"].astype("string")
    payload = {"merged_df": frame, "name": "bench_matmul", "file": Path("b.mojo")}
    path = tmp_path_factory.mktemp("peak") / "run.pkl"
    path.write_bytes(pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL))
    return path


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz", ".zst"])
def test_a_compressed_pickle_costs_what_it_costs_uncompressed(
    kbench_pickle: Path, suffix: str
) -> None:
    data = kbench_pickle.read_bytes()
    size = len(data)
    assert size > 64 * MIB
    path = kbench_pickle.with_name(f"run.pkl{suffix}")
    path.write_bytes(compress(data, suffix, fast=True))
    plain_rows, _, plain = _peak(kbench_pickle)
    rows, refused, packed = _peak(path)
    assert (rows, refused) == (plain_rows, "") == (ROWS, "")
    # the decompressed bytes held whole on top of the objects would add `size`
    assert plain > size // 2  # measured: the objects a pickle makes
    assert packed <= plain + size // 4, (packed / MIB, plain / MIB, size / MIB)


def test_a_bomb_is_refused_within_its_documented_peak(tmp_path: Path) -> None:
    """Valid opcodes (1 KiB values, appended to a list) that go on for 400 MiB
    from about 0.4 MiB of gzip: refused once the bound is read."""
    path = tmp_path / "bomb.pkl.gz"
    value = b"B" + struct.pack("<I", 1024) + bytes(1024)  # BINBYTES of 1 KiB
    with gzip.open(path, "wb") as out:
        out.write(b"\x80\x05]")  # PROTO 5, EMPTY_LIST
        for _ in range(400):
            out.write(b"(" + value * 1024 + b"e")  # MARK, 1 MiB of values, APPENDS
    limit = min(
        compressed.MAX_FILE_BYTES,
        compressed.MAX_RATIO * path.stat().st_size + compressed.RATIO_BASE,
    )
    assert limit < 200 * MIB  # refused long before its 400 MiB
    rows, refused, growth = _peak(path)
    assert rows == 0 and "decompression bomb" in refused, refused
    assert growth <= 1.1 * limit + 24 * MIB, (growth / MIB, limit / MIB)
