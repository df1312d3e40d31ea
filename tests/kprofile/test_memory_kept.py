"""The analyzer keeps what it frees for its next arrays (``cli.keep_freed_memory``):
a block of a few MiB freed stays with the process, where by default glibc gives it
back to the system at once (and the next one faults in fresh zeroed pages)."""

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
before = rss()
block = np.ones((24 << 20) // 8)  # 24 MiB, every page written
held = rss()
del block
print(json.dumps({"held": (held - before) >> 20, "returned": (held - rss()) >> 20}))
"""


def _probe(mode: str) -> dict[str, int]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def test_freed_blocks_stay_with_the_analyzer_process() -> None:
    kept = _probe("kept")
    if platform.system() == "Linux" and platform.libc_ver()[0] == "glibc":
        default = _probe("default")
        assert default["held"] >= 20 and default["returned"] >= 20  # glibc's default
        assert kept["held"] >= 20 and kept["returned"] <= 1
    else:  # no mallopt: nothing is changed, nothing fails
        assert kept["held"] >= 20
