"""Time ``kprofile --update`` on large hand-curated manifests, per phase and end to end.

    python bench/bench_update.py                       # 1,000 / 5,000 / 20,000 entries
    python bench/bench_update.py --entries 20000 --repeat 5 --style defaults
    python bench/bench_update.py --smoke                 # one small run (the tests')
    PYTHONPATH=/tmp/old python bench/bench_update.py   # an export of older code

Per size and style, in a temporary folder: a manifest and two kbench pickles (one per
shape, as kbench writes them). ``defaults`` style: a ``defaults: &defaults`` mapping
merged by every entry, block entries between blank lines, a section comment every 40
entries, end-of-line comments, a closing comment (hand-curated tables). ``common``
style: a ``common: &common`` list of mappings, entries at column 0, no blank lines (as
kprofile's reference writer has it). The first pickle's best config changes keys of
one entry (M=256), the second is a new shape, appended. Then:

1. the library, ``read_layout`` (once), ``manifest_pivots`` then ``upsert`` as
   ``kprofile``'s sink calls them, with the calls, wall and CPU time of each phase (a
   function of the update modules, wrapped for the run; nested phases are part of
   their caller's time);
2. the real command, ``kprofile A.pkl B.pkl --update MANIFEST``, in a subprocess, best
   wall and CPU time of ``--repeat`` runs on a fresh copy of the manifest, and the same
   without ``--update`` (loading and ranking only). The file it writes must equal the
   library's result.

The load average is printed first: on a shared machine wall time grows with it, CPU
time much less.
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import os
import pickle
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

# (module, function, label): the phases of one update, in the order they run; a label's
# indentation says which phase calls it (its time is part of its caller's). A function
# the code does not have (before or after a change) is left out.
PHASES = [
    ("kprofile.sinks.update", "read_layout", "read_layout (once)"),
    ("kprofile.manifest.layout", "read_positioned", "  read_positioned"),
    ("tuning_codegen.positions", "parse_manifest", "    parse_manifest (doubt)"),
    ("tuning_codegen.positions", "_defaults_by_entry", "    merge defaults (doubt)"),
    ("kprofile.sinks.update", "manifest_pivots", "manifest_pivots"),
    ("kprofile.sinks.update", "upsert", "upsert"),
    ("kprofile.manifest.upsert", "_change", "  matching"),
    ("kprofile.manifest.upsert", "_edits", "  edits"),
    ("kprofile.manifest.upsert", "apply_edits", "  apply edits"),
    ("kprofile.manifest.upsert", "check_update", "  verification"),
    ("kprofile.manifest.verify", "read_entries", "    read_entries"),
    ("tuning_codegen.positions", "read", "every yamlevents.read"),
]
GRID: dict[str, list[Any]] = {
    "BM": [64, 128, 256],
    "BN": [64, 128, 256],
    "STAGES": [3, 4, 5],
    "CLUSTER": [1, 2],
    "SWAP_AB": [False, True],
    "SCHEDULE": ["default", "ws_pingpong"],
}
NS = [1024, 2048, 4096, 7168, 8192, 14336, 20480, 28672]
KS = [1024, 2048, 4096, 5376, 8192]
CHANGED = (256, 20480, 5376)  # in every generated table (M is a multiple of 16)
ADDED = (8, 7168, 2048)  # in none


def shapes(count: int) -> list[tuple[int, int, int]]:
    per_m = len(NS) * len(KS)
    ms = [16 * (j + 1) for j in range(-(-count // per_m))]
    return list(itertools.product(ms, NS, KS))[:count]


def entry_lines(i: int, shape: tuple[int, int, int], style: str) -> list[str]:
    m, n, k = shape
    keys = {"M": m, "N": n, "K": k, "BM": 64 << (i % 3), "BN": 64 << (i // 3 % 3)}
    if style == "common":
        return ["- <<: *common", *(f"  {key}: {v}" for key, v in keys.items())]
    lines = [
        "  - <<: *defaults",
        *(f"    {key}: {value}" for key, value in keys.items()),
    ]
    if i % 4 == 0:
        lines.append("    STAGES: 5")
    if i % 7 == 0:
        lines.append("    CLUSTER: 2          # a 2-CTA cluster pays off here")
    if i % 11 == 0:
        lines.append("    SWAP_AB: true")
    return lines


def manifest(count: int, style: str) -> str:
    head = [
        "# A generated dispatch table for bench_update.py.",
        "",
        "name: bench_matmul",
    ]
    head.append("file: bench_matmul.mojo")
    if style == "common":
        head += ["common: &common", "- name: bench_matmul", "  AUTOTUNING_MODE: true"]
        head += ["- STAGES: 4", "  CLUSTER: 1", "  SWAP_AB: false", "params:"]
    else:
        head += ["", "defaults: &defaults", "  STAGES: 4", "  CLUSTER: 1"]
        head += ["  SWAP_AB: false", "  SCHEDULE: 'default'   # 'default' | 'ws'", ""]
        head.append("params:")
    lines = head
    for i, shape in enumerate(shapes(count)):
        if style == "defaults":
            if i % 40 == 0:
                lines.append(f"  # ---- block {i // 40} ----")
            elif i:
                lines.append("")
        lines += entry_lines(i, shape, style)
    if style == "defaults":
        lines += ["", "# TODO: decode shapes (M < 16) need the swap-AB kernel."]
    return "\n".join(lines) + "\n"


def results(shape: tuple[int, int, int], seed: int) -> dict[str, Any]:
    """A kbench pickle's dict: every config of GRID measured on ``shape``."""
    m, n, k = shape
    configs = list(itertools.product(*GRID.values()))
    specs = [
        "bench_matmul"
        + "".join(f"/{key}={v}" for key, v in zip(GRID, config))
        + f"/$M={m}/$N={n}/$K={k}"
        for config in configs
    ]
    met = np.random.default_rng(seed).uniform(0.1, 1.0, len(configs))
    frame = pd.DataFrame(
        {
            "mesh_idx": np.arange(len(configs)),
            "name": f"gemm/bf16/{m}x{n}x{k}",
            "met (ms)": met,
            "iters": 100,
            "spec": specs,
            "kbench_filter": "",
        }
    )
    return {"merged_df": frame, "name": "bench_matmul", "file": "bench_matmul.mojo"}


Times = dict[int, list[float]]  # PHASES index -> [calls, wall s, cpu s]


@contextmanager
def phases(times: Times) -> Iterator[None]:
    """Wrap every function of PHASES that exists, adding its times to ``times``."""
    saved = []
    for number, (module_name, name, _) in enumerate(PHASES):
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError:  # a module the code has not (yet, or any more)
            continue
        if hasattr(module, name):
            saved.append((module, name, getattr(module, name)))
            setattr(module, name, timed(getattr(module, name), number, times))
    try:
        yield
    finally:
        for module, name, function in reversed(saved):
            setattr(module, name, function)


def timed(
    function: Callable[..., Any], number: int, times: Times
) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            row = times.setdefault(number, [0, 0.0, 0.0])
            row[0] += 1
            row[1] += time.perf_counter() - wall
            row[2] += time.process_time() - cpu

    return wrapper


def library(text: str, selections: list[dict[str, Any]]) -> str:
    """Run the update as ``kprofile``'s sink does, printing each phase; the new
    text."""
    from kprofile.sinks import update as sink
    from tuning_codegen.gcpause import paused_gc

    times: Times = {}
    with phases(times), paused_gc():
        wall, cpu = time.perf_counter(), time.process_time()
        layout = sink.read_layout(text, "t.yaml")
        pivots, _ = sink.manifest_pivots(layout, ["M", "N", "K"])
        result = sink.upsert(
            text, selections, pivots=pivots, path="t.yaml", layout=layout
        )
        total = [1, time.perf_counter() - wall, time.process_time() - cpu]
    print(f"    {'phase':<32}{'calls':>6}{'wall s':>9}{'cpu s':>9}")
    labels = [label for _, _, label in PHASES]
    for number, (calls, wall, cpu) in sorted(times.items()) + [(-1, total)]:
        label = labels[number] if number >= 0 else "library total"
        print(f"    {label:<32}{calls:>6}{wall:>9.3f}{cpu:>9.3f}")
    statuses = [c.status for c in result.changes]
    assert statuses == ["changed", "added"], statuses
    return result.text


def command(
    folder: Path, text: str, pickles: list[Path], repeat: int, *, update: bool
) -> tuple[float, float, str]:
    """Best wall and CPU (user + system) time of the real command over ``repeat``
    runs, and the file it left."""
    kprofile = shutil.which("kprofile") or sys.exit("kprofile is not on PATH")
    target = folder / "table.yaml"
    best, best_cpu = float("inf"), float("inf")
    for _ in range(repeat):
        target.write_bytes(text.encode())
        args = [kprofile, *map(str, pickles)]
        args += ["--update", str(target)] if update else []
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        best = min(best, time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        best_cpu = min(best_cpu, cpu)
        if done.returncode:
            sys.exit(f"kprofile failed ({done.returncode}): {done.stderr.decode()}")
    return best, best_cpu, target.read_bytes().decode()


def best_configs(pickles: list[Path]) -> list[dict[str, Any]]:
    """What kprofile picks per file: the lowest ``met (ms)``, shape first."""
    picked = []
    for path in pickles:
        frame = pickle.loads(path.read_bytes())["merged_df"]
        spec = frame["spec"][frame["met (ms)"].idxmin()]
        pairs = (part.lstrip("$").split("=") for part in spec.split("/")[1:])
        config = {key: value for key, value in pairs}
        order = ["M", "N", "K", *GRID]
        picked.append({key: _value(config[key]) for key in order})
    return picked


def _value(text: str) -> Any:
    if text in ("True", "False"):
        return text == "True"
    return int(text) if text.isdigit() else text


def bench(folder: Path, count: int, style: str, repeat: int) -> None:
    text = manifest(count, style)
    pickles: list[Path] = []
    for name, shape in (("changed", CHANGED), ("added", ADDED)):
        path = folder / f"{name}.pkl"
        path.write_bytes(pickle.dumps(results(shape, seed=len(pickles))))
        pickles.append(path)
    size = len(text.encode()) / 1024
    print(f"\n{count:,} entries, {style} style ({size:,.0f} KiB)")
    new_text = library(text, best_configs(pickles))
    wall, cpu, written = command(folder, text, pickles, repeat, update=True)
    assert written == new_text, "the command wrote something else than the library"
    base, base_cpu, _ = command(folder, text, pickles, repeat, update=False)
    print(f"    kprofile, best of {repeat}{'':<21}{'wall s':>9}{'cpu s':>9}")
    print(f"    {'--update MANIFEST (end to end)':<38}{wall:>9.3f}{cpu:>9.3f}")
    print(f"    {'no --update (load and rank only)':<38}{base:>9.3f}{base_cpu:>9.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--entries", type=int, nargs="+", default=[1000, 5000, 20000])
    parser.add_argument("--style", choices=["defaults", "common", "both"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--smoke", action="store_true", help="one small run: 640 entries, each style"
    )
    args = parser.parse_args()
    if args.smoke:
        args.entries, args.repeat, args.style = [640], 1, "both"
    styles = ["defaults", "common"] if args.style in (None, "both") else [args.style]
    folder = Path(tempfile.mkdtemp(prefix="bench-update-"))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} CPUs, load average {load} (wall time grows with load)")
    try:
        for count, style in itertools.product(args.entries, styles):
            bench(folder, count, style, args.repeat)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
