"""Time the real ``kprofile`` command on large kbench pickles: wall, CPU, peak memory.

    python bench/bench_kprofile.py              # 100,000 and 1,000,000 rows
    python bench/bench_kprofile.py --rows 100000 --repeat 5
    python bench/bench_kprofile.py --source /tmp/old-checkout   # another version
    python bench/bench_kprofile.py --groups 10000 --rows   # only the -p case
    python bench/bench_kprofile.py --smoke      # one tiny run (the tests')

``--groups N`` (default 10,000; 0 to skip) also times the per-group views with ``-p``:
a pickle of N shapes (``M`` = 1..N) of 4 configs each, ``kprofile FILE -p M`` with
the summary per group, and with ``--top``, ``--head`` and ``-o`` (the per-group work
that used to cost about 4 ms a group).

For each size it writes a kbench-format pickle into a temporary folder (10 tuning
parameters of mixed types, a shape, a few failed runs), then runs ``kprofile`` in a
subprocess for each view and prints the best wall time of ``--repeat`` runs, the CPU
time (user + system) of that run, which varies less on a busy machine, and the peak RSS
of the kprofile process (``resource.getrusage(RUSAGE_CHILDREN)`` measured in a fresh
wrapper process per run) against the DataFrame's in-memory size
(``memory_usage(deep=True)``). Output goes to /dev/null, as when piped. The first row,
``pickle.load``, is a plain ``pickle.load`` of the same file in a fresh process (pandas
imported by the unpickler, as kprofile imports it). The last lines time, in turns, the
default view, the load alone (in a process that imported pandas first) and the load in
a fresh process, and give the default view as a multiple of each. ``--source``
runs the kprofile package found in another checkout instead of the installed command,
to compare two versions on the same files.
"""

from __future__ import annotations

import argparse
import pickle
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

VIEWS = {
    "default": [],
    "--top 0.05": ["--top", "0.05"],
    "--within 0.02": ["--within", "0.02"],
    "--head 20": ["--head", "20"],
    "-o best.yaml": ["-o", "{tmp}/best.yaml"],
}
GROUP_VIEWS = {
    "-p M": [],
    "-p M --top 0.5": ["--top", "0.5"],
    "-p M --head 2 -r": ["--head", "2", "-r"],
    "-p M -o groups.yaml": ["-o", "{tmp}/groups.yaml"],
}
WRAPPER = """
import resource, subprocess, sys, time
start = time.perf_counter()
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, code)
"""
PLAIN_LOAD = "import pickle, sys; pickle.load(open(sys.argv[1], 'rb'))"
LOAD_ONLY = (
    "import pickle, sys, time; import pandas; start = time.perf_counter(); "
    "pickle.load(open(sys.argv[1], 'rb')); print(time.perf_counter() - start)"
)
SOURCE = (
    "import sys; sys.path.insert(0, {!r}); "
    "from kprofile.cli import main; sys.exit(main())"
)


def make_frame(rows: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    grid = {
        "BM": rng.choice([64, 128, 256], rows),
        "BN": rng.choice([64, 128, 256], rows),
        "BK": rng.choice([32, 64, 128], rows),
        "STAGES": rng.integers(2, 8, rows),
        "CLUSTER_M": rng.choice([1, 2, 4], rows),
        "CLUSTER_N": rng.choice([1, 2], rows),
        "SWAP_AB": rng.choice(["True", "False"], rows),
        "SCHEDULE": rng.choice(
            ["default", "ws", "ws_pingpong", "ws_cooperative"], rows
        ),
        "RASTER": rng.choice(["along_m", "along_n"], rows),
        "SPLIT_K": rng.choice([1, 2, 4, 8], rows),
    }
    columns = [
        f"/{name}=" + pd.Series(values).astype(str) for name, values in grid.items()
    ]
    specs = "bench_matmul" + columns[0]
    for column in columns[1:]:
        specs = specs + column
    specs = specs + "/$M=256/$N=20480/$K=5376"
    met = np.exp(rng.normal(-1.0, 0.3, rows))
    met[rng.choice(rows, size=max(1, rows // 1000), replace=False)] = 0.0
    return pd.DataFrame(
        {
            "mesh_idx": np.arange(rows),
            "name": "gemm/bf16/256x20480x5376",
            "met (ms)": met,
            "iters": np.full(rows, 100),
            "Arithmetic (GFLOPS/s)": 2
            * 256
            * 20480
            * 5376
            / np.where(met > 0, met, np.inf)
            / 1e6,
            "spec": specs.to_numpy(dtype=object),
            "kbench_filter": "",
        }
    )


def measure(command: list[str], repeat: int) -> tuple[float, float, float]:
    """Best wall time (s), its CPU time (s), peak RSS (MiB) of ``repeat`` runs."""
    best, cpu, peak = float("inf"), 0.0, 0.0
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-c", WRAPPER, *command],
            capture_output=True,
            text=True,
            check=True,
        )
        wall, used, rss_kib, code = out.stdout.split()
        if code != "0":
            raise SystemExit(f"kprofile failed ({code}): {' '.join(command)}")
        if float(wall) < best:
            best, cpu = float(wall), float(used)
        peak = max(peak, int(rss_kib) / 1024)
    return best, cpu, peak


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, nargs="*", default=[100_000, 1_000_000])
    parser.add_argument("--groups", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--source", help="a checkout whose kprofile package to run")
    parser.add_argument("--smoke", action="store_true", help="one tiny run (tests)")
    args = parser.parse_args()
    if args.smoke:
        args.rows, args.groups, args.repeat = [2_000], 20, 1
    if args.source:
        kprofile = [sys.executable, "-c", SOURCE.format(str(Path(args.source)))]
    else:
        kprofile = [
            shutil.which("kprofile")
            or sys.exit("kprofile is not on PATH: pip install -e .")
        ]
    tmp = Path(tempfile.mkdtemp(prefix="kprofile-bench-"))
    try:
        startup, _, _ = measure([*kprofile, "--help"], args.repeat)
        print(f"kprofile --help (start-up): {startup:.2f} s")
        for rows in args.rows:
            bench_rows(kprofile, rows, tmp, args.repeat)
        if args.groups:
            bench_groups(kprofile, args.groups, tmp, args.repeat)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def bench_rows(kprofile: list[str], rows: int, tmp: Path, repeat: int) -> None:
    """Write a pickle of ``rows`` rows and time each view on it."""
    frame = make_frame(rows)
    size = frame.memory_usage(deep=True).sum() / 2**20
    path = tmp / f"bench_{rows}.pkl"
    payload = {"merged_df": frame, "name": "bench_matmul", "file": "bench_matmul.mojo"}
    path.write_bytes(pickle.dumps(payload, protocol=5))
    del frame, payload
    print(
        f"\n{rows:,} rows: DataFrame {size:.0f} MiB in memory, "
        f"pickle {path.stat().st_size / 2**20:.0f} MiB"
    )
    print(
        f"{'view':<16}{'wall (s)':>10}{'cpu (s)':>9}{'peak RSS (MiB)':>16}"
        f"{'RSS / table':>13}"
    )
    plain, plain_cpu, plain_peak = measure(
        [sys.executable, "-c", PLAIN_LOAD, str(path)], repeat
    )
    label = "pickle.load"
    print(
        f"{label:<16}{plain:>10.2f}{plain_cpu:>9.2f}{plain_peak:>16.0f}"
        f"{plain_peak / size:>13.2f}"
    )
    for label, extra in VIEWS.items():
        if rows > 200_000 and label not in ("default", "--top 0.05"):
            continue
        command = [*kprofile, str(path), *(a.format(tmp=tmp) for a in extra)]
        wall, cpu, peak = measure(command, repeat)
        ratio = peak / size
        print(f"{label:<16}{wall:>10.2f}{cpu:>9.2f}{peak:>16.0f}{ratio:>13.2f}")
    side_by_side(kprofile, path, repeat)


def side_by_side(kprofile: list[str], path: Path, repeat: int) -> None:
    """The default view against a plain ``pickle.load`` of the same file, run in
    turns so that both see the same load on the machine: best of ``repeat`` each."""
    loads, views, fresh = [], [], []
    for _ in range(repeat):
        alone = [sys.executable, "-c", LOAD_ONLY, str(path)]
        out = subprocess.run(alone, capture_output=True, text=True, check=True)
        loads.append(float(out.stdout))
        fresh.append(measure([sys.executable, "-c", PLAIN_LOAD, str(path)], 1)[0])
        views.append(measure([*kprofile, str(path)], 1)[0])
    load, view = min(loads), min(views)
    print(
        f"side by side: default view {view:.2f} s, pickle.load alone {load:.2f} s "
        f"(pandas imported first), in a fresh process {min(fresh):.2f} s"
    )
    print(
        f"default view / plain pickle.load: {view / load:.1f}x the load alone, "
        f"{view / min(fresh):.1f}x a fresh process (target: within 20x)"
    )


def make_groups(groups: int, per_group: int = 4, seed: int = 0) -> pd.DataFrame:
    """``groups`` shapes (M = 1..groups, N and K fixed) of ``per_group`` configs."""
    rng = np.random.default_rng(seed)
    rows = groups * per_group
    m = np.repeat(np.arange(1, groups + 1), per_group)
    bm = np.tile(np.array([64, 128, 256, 512])[:per_group], groups)
    stages = rng.integers(2, 8, rows)
    specs = (
        "bench_matmul/BM="
        + pd.Series(bm).astype(str)
        + "/STAGES="
        + pd.Series(stages).astype(str)
        + "/$M="
        + pd.Series(m).astype(str)
        + "/$N=4096/$K=4096"
    )
    met = np.exp(rng.normal(-1.0, 0.3, rows))
    return pd.DataFrame(
        {
            "mesh_idx": np.arange(rows),
            "name": "gemm/bf16",
            "met (ms)": met,
            "iters": np.full(rows, 100),
            "spec": specs.to_numpy(dtype=object),
            "kbench_filter": "",
        }
    )


def bench_groups(kprofile: list[str], groups: int, tmp: Path, repeat: int) -> None:
    """Time the per-group views with ``-p M`` on ``groups`` shapes."""
    frame = make_groups(groups)
    path = tmp / f"groups_{groups}.pkl"
    payload = {"merged_df": frame, "name": "bench_matmul", "file": "bench_matmul.mojo"}
    path.write_bytes(pickle.dumps(payload, protocol=5))
    print(f"\n{groups:,} groups (-p M) of 4 rows: {len(frame):,} rows")
    print(f"{'view':<20}{'wall (s)':>10}{'cpu (s)':>9}{'ms / group':>12}")
    for label, extra in GROUP_VIEWS.items():
        command = [*kprofile, str(path), "-p", "M", *(a.format(tmp=tmp) for a in extra)]
        wall, cpu, _ = measure(command, repeat)
        print(f"{label:<20}{wall:>10.2f}{cpu:>9.2f}{1000 * wall / groups:>12.2f}")


if __name__ == "__main__":
    raise SystemExit(main())
