"""The hook's no-op path, old against new, measured alternately (fair on a shared
machine): a commit that touches no registered file, in a generated repository. The old
tree must know ``--hook`` (any tree since it was added).

    python bench/bench_codegen.py --runs 1 --per-table-runs 0 --keep   # prints REPO
    git archive <old-commit> hooks | tar -x -C /tmp/oldhooks
    python bench/bench_noop_compare.py REPO /tmp/oldhooks [--runs 30]
    python bench/bench_noop_compare.py --smoke   # a tiny repository, this tree twice
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_codegen import Layout, build_repository

PROJECT = Path(__file__).resolve().parents[1]


def hook(tree: Path, *args: str) -> list[str]:
    """The command that runs the code generator of ``tree`` (a checkout, or the
    archive of one): ``hooks/tuning_codegen`` since the rename, ``hooks`` before."""
    root, module = (
        (tree / "hooks", "tuning_codegen.cli")
        if (tree / "hooks" / "tuning_codegen").is_dir()
        else (tree, "hooks.cli")
    )
    code = (
        f"import sys; sys.path.insert(0, {str(root)!r}); from {module} import main; "
        f"raise SystemExit(main({list(args)!r}))"
    )
    return [sys.executable, "-c", code]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path, nargs="?")
    parser.add_argument(
        "old", type=Path, nargs="?", help="a folder holding the old tree's hooks/"
    )
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="one run in a tiny repository, this tree against itself (the tests')",
    )
    args = parser.parse_args()
    if args.smoke:
        with tempfile.TemporaryDirectory(prefix="bench-noop-") as folder:
            args.repo, args.old, args.runs = Path(folder) / "repo", PROJECT, 1
            build_repository(args.repo, Layout(2, 1, 2))
            compare(args)
        return
    if args.repo is None or args.old is None:
        parser.error("REPO and OLD are needed (or --smoke)")
    compare(args)


def compare(args: argparse.Namespace) -> None:
    """Each case of ``args.runs`` alternating runs in ``args.repo``, and the ratios."""
    cases = {
        "python -c 'import yaml'": [sys.executable, "-c", "import yaml"],
        "old: tuning-codegen --hook docs/other.txt": hook(
            args.old, "--hook", "docs/other.txt"
        ),
        "new: tuning-codegen --hook docs/other.txt": hook(
            PROJECT, "--hook", "docs/other.txt"
        ),
        "old: tuning-codegen --hook --check": hook(args.old, "--hook", "--check"),
        "new: tuning-codegen --hook --check": hook(PROJECT, "--hook", "--check"),
    }
    env = {  # bytecode written and used, as pip installs a hook (compiled)
        k: v
        for k, v in os.environ.items()
        if not k.startswith("GIT_") and k != "PYTHONDONTWRITEBYTECODE"
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    cpu: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.runs):
        for name, command in cases.items():
            used = _children_cpu()
            start = time.perf_counter()
            done = subprocess.run(command, cwd=args.repo, env=env, capture_output=True)
            times[name].append(time.perf_counter() - start)
            cpu[name].append(_children_cpu() - used)
            if done.returncode:
                raise SystemExit(f"{name}: exit {done.returncode}: {done.stderr!r}")
    print(f"median and minimum of {args.runs} alternating runs, and their ratios to")
    print("python -c 'import yaml' (the target for a no-op hook: 2.5x); then the CPU")
    print("time (user + system, git's included): on a shared machine, the steadier")
    for label, measured in (("wall", times), ("CPU", cpu)):
        base = measured["python -c 'import yaml'"]
        for name, values in measured.items():
            median, low = statistics.median(values) * 1000, min(values) * 1000
            ratio = statistics.median(values) / statistics.median(base)
            low_ratio = min(values) / min(base)
            times_ms = f"{median:7.1f} ms  {low:7.1f} ms"
            print(f"{label:4s} {name:45s} {times_ms}  {ratio:4.2f}x  {low_ratio:4.2f}x")


def _children_cpu() -> float:
    """Seconds of CPU the finished children (and theirs) used so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    main()
