"""Time ``tuning-codegen --check`` on large tables with one entry inserted.

    python bench/bench_check.py                          # 3,000 / 50,000 entries
    python bench/bench_check.py --entries 8000 --entries 50000 --keys 3 --repeat 3
    python bench/bench_check.py --where middle
    python bench/bench_check.py --smoke                  # one tiny run (the tests')

Per size, in a temporary folder: a manifest of ENTRIES entries (KEYS keys each, one
flow mapping per line), a snippet with one line per key, and a target whose region is
fresh. Then one entry is inserted at the top (or in the middle, ``--where``) of the
manifest, which shifts the index comment of every entry after it, and the installed
``tuning-codegen --check`` runs in a subprocess (single-table mode, the reference
tool's flags): best wall and CPU time of ``--repeat`` runs, its exit code (1: stale)
and the size of the diff it printed. The diff must apply: ``git apply --check``
(``patch --dry-run`` without git) is run on it. For comparison: the regeneration of the
same table, and the diff alone computed in this process, with this project's
``unified_diff`` and (up to ``--difflib-max`` entries) with ``difflib`` on the whole
files, as the code generator did before.

The load average is printed first: on a shared machine wall time grows with it, CPU
time much less.
"""

from __future__ import annotations

import argparse
import difflib
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SCRIPT = Path(sys.executable).with_name("tuning-codegen")
KEYS = ("M", "N", "K", "BM", "BN", "BK", "CLUSTER", "STAGES", "SWAP_AB", "SCHEDULE")


def manifest(entries: int, keys: int, inserted: int | None) -> str:
    rows = [_entry(i, keys) for i in range(entries)]
    if inserted is not None:
        rows.insert(inserted, _entry(-1, keys))
    return "params:\n" + "".join(f"- {{{row}}}\n" for row in rows)


def _entry(i: int, keys: int) -> str:
    values = [str(i), "4096", "4096", "128", "256", "64", "2", "4", "false", "ws"]
    return ", ".join(f"{k}: {v}" for k, v in zip(KEYS[:keys], values))


def snippet(keys: int) -> str:
    lines = "".join(f"    {k.lower()}=[@{k}],\n" for k in KEYS[:keys])
    return f"TuningConfig(\n{lines})\n"


ARGS = [
    "--manifest", "table.yaml", "--snippet", "entry.mojo.snippet",
    "--target", "configs.mojo", "--begin-marker", "BEGIN-TUNING",
    "--end-marker", "END-TUNING",
]  # fmt: skip


def timed(command: list[str], cwd: Path) -> tuple[float, float, int, bytes]:
    """Wall and CPU seconds (children's user + system), exit code, stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode, done.stdout


def applies(diff: bytes, folder: Path) -> str:
    """Whether ``git apply --check`` (or ``patch --dry-run``) accepts the diff."""
    patch_file = folder / "check.diff"
    patch_file.write_bytes(diff)
    if shutil.which("git"):
        command = ["git", "apply", "--check", "-p0", str(patch_file)]
        tool = "git apply --check"
    else:
        command = ["patch", "--dry-run", "-p0", "-i", str(patch_file)]
        tool = "patch --dry-run"
    done = subprocess.run(command, cwd=folder, capture_output=True, check=False)
    verdict = "accepted" if done.returncode == 0 else "REJECTED"
    return f"{tool}: {verdict}"


def run_size(
    entries: int, keys: int, where: str, repeat: int, difflib_max: int
) -> None:
    folder = Path(tempfile.mkdtemp(prefix="bench-check-"))
    try:
        (folder / "entry.mojo.snippet").write_text(snippet(keys))
        (folder / "table.yaml").write_text(manifest(entries, keys, None))
        (folder / "configs.mojo").write_text(
            "def configs():\n    # BEGIN-TUNING\n    # END-TUNING\n    pass\n"
        )
        subprocess.run([SCRIPT, *ARGS], cwd=folder, check=True, capture_output=True)
        fresh = (folder / "configs.mojo").read_text()
        inserted = 0 if where == "top" else entries // 2
        (folder / "table.yaml").write_text(manifest(entries, keys, inserted))
        checks = [timed([str(SCRIPT), *ARGS, "--check"], folder) for _ in range(repeat)]
        wall, cpu = min(c[0] for c in checks), min(c[1] for c in checks)
        code, diff = checks[0][2], checks[0][3]
        lines = diff.count(b"\n")
        print(f"{entries:>7,} entries x {keys} keys, one inserted at the {where}:")
        print(
            f"  tuning-codegen --check    {wall:6.2f} s wall {cpu:6.2f} s CPU  "
            f"exit {code}  diff: {lines:,} lines; {applies(diff, folder)}"
        )
        work = folder / "regenerate"
        shutil.copytree(folder, work, ignore=shutil.ignore_patterns("*.diff"))
        regen = timed([str(SCRIPT), *ARGS], work)
        print(
            f"  tuning-codegen (write)    {regen[0]:6.2f} s wall {regen[1]:6.2f} s CPU"
        )
        _diff_alone(fresh, (work / "configs.mojo").read_text(), entries, difflib_max)
    finally:
        shutil.rmtree(folder)


def _diff_alone(old: str, new: str, entries: int, difflib_max: int) -> None:
    from tuning_codegen.diff import unified_diff

    start = time.process_time()
    unified_diff(old, new, "a", "b")
    ours = time.process_time() - start
    line = f"  diff alone: unified_diff {ours:6.2f} s CPU"
    if entries <= difflib_max:
        start = time.process_time()
        "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True)))
        line += f"; difflib on whole files {time.process_time() - start:6.2f} s CPU"
    print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--entries", type=int, action="append")
    parser.add_argument("--keys", type=int, default=3, choices=range(1, 11))
    parser.add_argument("--where", choices=("top", "middle"), default="top")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--difflib-max", type=int, default=3000)
    parser.add_argument("--smoke", action="store_true", help="one tiny run (tests)")
    options = parser.parse_args()
    if options.smoke:
        options.entries, options.repeat = [40], 1
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, load {load}")
    for entries in options.entries or [3000, 50000]:
        run_size(entries, options.keys, options.where, options.repeat,
                 options.difflib_max)  # fmt: skip


if __name__ == "__main__":
    main()
