"""Decompression stays within its documented peak: the decompressed data (at most
100 times the compressed size plus 64 MiB), not twice it. Measured on real gzip,
bz2 and xz streams in a child process, as the growth of its peak RSS."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # peak memory of real streams in child processes

CHILD = """
import bz2, gzip, io, json, lzma, resource, sys
from kprofile.inputs.pickles import compressed
method, size, zeros = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "zeros"
opener = {"gzip": gzip.GzipFile, "bz2": bz2.BZ2File, "xz": lzma.LZMAFile}[method]
stream = io.BytesIO()
block = bytes(2**20) if zeros else bytes(range(256)) * 4096  # a MiB at a time
with opener(fileobj=stream, mode="wb") if method == "gzip" else opener(stream, "wb") as out:
    for _ in range(size // len(block)):
        out.write(block)
data = stream.getvalue()
del stream
limit = min(compressed.MAX_FILE_BYTES, compressed.MAX_RATIO * len(data) + compressed.RATIO_BASE)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    made, refused = len(compressed.decompressed(data)), ""
except compressed.RefusedPickle as exc:
    made, refused = 0, str(exc)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps([made, refused, limit, (after - before) * 1024]))
"""
MIB = 2**20


def _decompress(method: str, size: int, fill: str) -> tuple[int, str, int, int]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, method, str(size), fill],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    made, refused, limit, growth = json.loads(done.stdout)
    return made, refused, limit, growth


@pytest.mark.parametrize("method", ["gzip", "bz2"])
def test_a_stream_within_the_bound_costs_its_size_once(method: str) -> None:
    made, refused, limit, growth = _decompress(method, 32 * MIB, "bytes")
    assert (made, refused) == (32 * MIB, "")
    assert growth <= 1.2 * made + 4 * MIB, growth / MIB  # joined chunks: 2x


def test_a_bomb_is_refused_within_its_documented_peak() -> None:
    made, refused, limit, growth = _decompress("gzip", 400 * MIB, "zeros")
    assert made == 0 and "decompression bomb" in refused
    assert limit < 200 * MIB  # refused long before its 400 MiB
    assert growth <= limit + 4 * MIB, (growth / MIB, limit / MIB)
