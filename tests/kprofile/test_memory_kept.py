"""The analyzer keeps what it frees for its next arrays (``cli.keep_freed_memory``):
a block of 2 MiB freed stays with the process, where by default glibc gives it back
to the system at once (and the next one faults in fresh zeroed pages); a block of
24 MiB is given back, as by default."""

from __future__ import annotations

import json
import platform
import subprocess
import sys

PROBE = """
import json, sys
import numpy as np

def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096

if sys.argv[1] == "kept":
    from kprofile.cli import keep_freed_memory
    keep_freed_memory()
np.ones(1)
found = {}
for size in (2, 24):  # MiB, every page written
    before = rss()
    block = np.ones((size << 20) // 8)
    held = rss()
    del block
    found[size] = {"held": (held - before) >> 20, "returned": (held - rss()) >> 20}
print(json.dumps(found))
"""


def _probe(mode: str) -> dict[str, dict[str, int]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def test_freed_blocks_stay_with_the_analyzer_process() -> None:
    kept = _probe("kept")
    if platform.system() == "Linux" and platform.libc_ver()[0] == "glibc":
        default = _probe("default")
        assert default["2"]["held"] >= 1 and default["2"]["returned"] >= 1  # glibc's
        assert kept["2"]["returned"] == 0
        assert kept["24"]["held"] >= 23 and kept["24"]["returned"] >= 23
    else:  # no mallopt: nothing is changed, nothing fails
        assert kept["24"]["held"] >= 23
