"""Time the real ``kprofile`` command on large kbench pickles: wall time and peak memory.

    python bench/bench_kprofile.py              # 100,000 and 1,000,000 rows
    python bench/bench_kprofile.py --rows 100000 --repeat 5

For each size it writes a kbench-format pickle into a temporary folder (10 tuning
parameters of mixed types, a shape, a few failed runs), then runs ``kprofile`` in a
subprocess for each view and prints the best wall time of ``--repeat`` runs and the
peak RSS of the kprofile process (``resource.getrusage(RUSAGE_CHILDREN)`` measured in a
fresh wrapper process per run) against the DataFrame's in-memory size
(``memory_usage(deep=True)``). Output goes to /dev/null, as when piped.
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
WRAPPER = """
import resource, subprocess, sys, time
start = time.perf_counter()
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
wall = time.perf_counter() - start
print(wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, code)
"""


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


def measure(command: list[str], repeat: int) -> tuple[float, float]:
    """Best wall time (s) and the peak RSS (MiB) over ``repeat`` runs."""
    best, peak = float("inf"), 0.0
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-c", WRAPPER, *command],
            capture_output=True,
            text=True,
            check=True,
        )
        wall, rss_kib, code = out.stdout.split()
        if code != "0":
            raise SystemExit(f"kprofile failed ({code}): {' '.join(command)}")
        best = min(best, float(wall))
        peak = max(peak, int(rss_kib) / 1024)
    return best, peak


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    kprofile = shutil.which("kprofile") or sys.exit(
        "kprofile is not on PATH: pip install -e ."
    )
    tmp = Path(tempfile.mkdtemp(prefix="kprofile-bench-"))
    try:
        startup, _ = measure([kprofile, "--help"], args.repeat)
        print(f"kprofile --help (start-up): {startup:.2f} s")
        for rows in args.rows:
            frame = make_frame(rows)
            size = frame.memory_usage(deep=True).sum() / 2**20
            path = tmp / f"bench_{rows}.pkl"
            path.write_bytes(
                pickle.dumps(
                    {
                        "merged_df": frame,
                        "name": "bench_matmul",
                        "file": "bench_matmul.mojo",
                    },
                    protocol=5,
                )
            )
            del frame
            print(
                f"\n{rows:,} rows: DataFrame {size:.0f} MiB in memory, pickle {path.stat().st_size / 2**20:.0f} MiB"
            )
            print(
                f"{'view':<16}{'wall (s)':>10}{'peak RSS (MiB)':>16}{'RSS / table':>13}"
            )
            for label, extra in VIEWS.items():
                if rows > 200_000 and label not in ("default", "--top 0.05"):
                    continue
                command = [kprofile, str(path), *(a.format(tmp=tmp) for a in extra)]
                wall, peak = measure(command, args.repeat)
                print(f"{label:<16}{wall:>10.2f}{peak:>16.0f}{peak / size:>13.2f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
