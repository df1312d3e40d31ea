"""How the code generator's cost grows with its input, size by size: a sweep that shows
the growth (near-linear is the target) for the inputs that once grew with a square.

  (a) ``--list`` and ``--check`` of a registry of N tables (20 targets)
  (b) a snippet of P distinct placeholders and a 500-byte manifest: the typo check
      (``typos.typos`` in this process) and the whole ``--check``, which fails naming
      the missing placeholders

    python bench/bench_growth.py [--tables 1000,5000,10000]
        [--placeholders 10000,50000,100000] [--smoke]

Each figure is the best of 3 wall-clock runs on this machine (shared, noisy); the
last column is the time per item, which stays flat when the growth is linear.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

SCRIPT = Path(sys.executable).with_name("tuning-codegen")
TARGETS = 20


def clean_env() -> dict[str, str]:
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("GIT_") and k != "PYTHONDONTWRITEBYTECODE"
    }


def best(run: Callable[[], object], times: int = 3) -> float:
    seconds = []
    for _ in range(times):
        start = time.perf_counter()
        run()
        seconds.append(time.perf_counter() - start)
    return min(seconds)


def tool(root: Path, *args: str) -> None:
    done = subprocess.run(
        [str(SCRIPT), *args], cwd=root, env=clean_env(), capture_output=True
    )
    if done.returncode not in (0, 1, 2):
        raise SystemExit(f"tuning-codegen {' '.join(args)}: exit {done.returncode}")


def registry(root: Path, tables: int) -> None:
    """``tables`` one-entry tables over ``TARGETS`` Python targets, fresh."""
    (root / "k").mkdir(parents=True)
    lines = ["tables:"]
    for t in range(tables):
        lines += [
            f"  - name: t{t}",
            f"    manifest: k/m{t}.yaml",
            "    snippet: k/s.snippet",
            f"    target: k/t{t % TARGETS}.py",
            f"    begin_marker: BEGIN-{t:06d}",
            f"    end_marker: END-{t:06d}",
            "    language: python",
        ]
        (root / "k" / f"m{t}.yaml").write_text(f"params:\n- M: {t}\n")
    (root / ".tuning-codegen.yaml").write_text("\n".join(lines) + "\n")
    (root / "k" / "s.snippet").write_text("C([@M])\n")
    for target in range(TARGETS):
        regions = "".join(
            f"# BEGIN-{t:06d}\n# END-{t:06d}\n" for t in range(target, tables, TARGETS)
        )
        (root / "k" / f"t{target}.py").write_text(regions)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    tool(root)


def big_snippet(root: Path, placeholders: int) -> None:
    """A snippet naming ``placeholders`` distinct placeholders; a manifest of about
    500 bytes setting a few of them, with keys close to others."""
    root.mkdir(parents=True)
    names = [f"P{i}" for i in range(placeholders)]
    (root / "s.snippet").write_text("C(" + ", ".join(f"[@{n}]" for n in names) + ")\n")
    keys = "".join(f"  p{i}: {i}\n  Q{i}: {i}\n" for i in range(1, 12))
    (root / "m.yaml").write_text(f"params:\n- P0: 1\n{keys}")
    (root / "t.py").write_text("X = [\n    # BEGIN\n    # END\n]\n")
    (root / ".tuning-codegen.yaml").write_text(
        "tables:\n  - {name: t, manifest: m.yaml, snippet: s.snippet, target: t.py,\n"
        "     begin_marker: BEGIN, end_marker: END, language: python}\n"
    )
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)


def typo_check(root: Path) -> float:
    """The typo check of the manifest's entries, in this process."""
    from tuning_codegen.manifest import load_manifest
    from tuning_codegen.snippet import parse_snippet
    from tuning_codegen.typos import snippet_names, typos

    snippet = parse_snippet((root / "s.snippet").read_text(), "s.snippet")
    entries = load_manifest(str(root / "m.yaml")).entries

    def run() -> None:
        snippet_names.cache_clear()
        for entry in entries:
            typos(entry, snippet)

    return best(run)


def row(label: str, count: int, seconds: float, unit: str) -> str:
    each = seconds / count * 1e6
    return f"  {label:<34} {count:>8,}  {seconds:8.3f} s  {each:8.1f} us/{unit}"


def timed(root: Path, *args: str) -> float:
    return best(lambda: tool(root, *args))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="1000,5000,10000")
    parser.add_argument("--placeholders", default="10000,50000,100000")
    parser.add_argument("--smoke", action="store_true", help="one tiny size of each")
    args = parser.parse_args(argv)
    tables = [50] if args.smoke else [int(n) for n in args.tables.split(",")]
    places = [200] if args.smoke else [int(n) for n in args.placeholders.split(",")]
    print(f"python {platform.python_version()}, {os.cpu_count()} cpus, "
          f"load {', '.join(f'{x:.2f}' for x in os.getloadavg())}")  # fmt: skip
    folder = Path(tempfile.mkdtemp(prefix="bench-growth-"))
    try:
        print("(a) a registry of N tables in 20 targets")
        for n in tables:
            root = folder / f"tables-{n}"
            registry(root, n)
            print(
                row(
                    "tuning-codegen --list",
                    n,
                    timed(root, "--list"),
                    "table",
                )
            )
            print(
                row(
                    "tuning-codegen --check",
                    n,
                    timed(root, "--check"),
                    "table",
                )
            )
        print("(b) a snippet of P distinct placeholders, a 500-byte manifest")
        for p in places:
            root = folder / f"snippet-{p}"
            big_snippet(root, p)
            print(row("typo check (typos.typos)", p, typo_check(root), "name"))
            print(
                row(
                    "tuning-codegen --check",
                    p,
                    timed(root, "--check"),
                    "name",
                )
            )
    finally:
        shutil.rmtree(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
