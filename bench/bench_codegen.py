"""How long the ``tuning-codegen`` hook takes, measured on a generated repository.

Builds, in a temporary folder, a git repository with TABLES tables spread over TARGETS
Mojo target files (ENTRIES entries each), then times the real console script in a
subprocess, median of RUNS runs:

  (a) a hook run touching no registered file  tuning-codegen --hook docs/other.txt
  (b) every table fresh                       tuning-codegen --check  (and regenerate)
  (c) every table stale                       tuning-codegen --check  (and regenerate)

plus ``python -c pass``, ``python -c 'import yaml'`` and ``python -c 'import click,
yaml'`` for comparison, (a) again as the published hooks run it (``--hook``, which also
checks that no registered file is deleted; shown only when the installed script has
``--hook``), one process per table in single-table mode (what a repository does with a
tool that knows one table at a time), and ``-X importtime`` evidence that (a) imports
neither pandas nor GitPython.

    python bench/bench_codegen.py [--runs 10] [--tables 100] [--targets 10]
        [--entries 20]
    python bench/bench_codegen.py --smoke     # one tiny run (the tests')
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

SCRIPT = Path(sys.executable).with_name("tuning-codegen")
OTHER_FILE = "docs/other.txt"
NAMED_REGISTRY = "tools/tuning-tables.yaml"  # the same tables, named with --config
SNIPPET = """\
TuningConfig(
    M=[@M], N=[@N], K=[@K],
    tile=Index([@BM], [@BN], [@BK]),
    cluster=Index([@CLUSTER_M], [@CLUSTER_N], 1),
    stages=[@STAGES],
    swap_ab=[@SWAP_AB],
)
"""


@dataclass(frozen=True)
class Layout:
    tables: int
    targets: int
    entries: int


@dataclass(frozen=True)
class Timing:
    label: str
    seconds: list[float]
    exit_code: int

    @property
    def median_ms(self) -> float:
        return statistics.median(self.seconds) * 1000

    @property
    def min_ms(self) -> float:
        return min(self.seconds) * 1000


def clean_env() -> dict[str, str]:
    """No GIT_* from an outer repository (e.g. when run from inside a hook), and
    bytecode written and used, as in an installed hook (pip compiles it when it
    installs; PYTHONDONTWRITEBYTECODE would time the compiler instead)."""
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("GIT_") and k != "PYTHONDONTWRITEBYTECODE"
    }


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", *args], cwd=root, env=clean_env(), check=True, capture_output=True
    )


def manifest_text(table: int, entries: int) -> str:
    lines = [
        "defaults: &defaults",
        "  BK: 64",
        "  CLUSTER_N: 1",
        "  STAGES: null",
        "  SWAP_AB: false",
        "params:",
    ]
    for i in range(entries):
        lines += [
            "- <<: *defaults",
            f"  M: {16 * (i + 1)}",
            f"  N: {1024 + 128 * table}",
            "  K: 4096",
            f"  BM: {64 if i % 2 else 128}",
            f"  BN: {64 + 16 * (i % 8)}",
            f"  CLUSTER_M: {1 + i % 2}",
        ]
        if i % 3 == 0:
            lines.append("  SWAP_AB: true")
    return "\n".join(lines) + "\n"


def target_text(target: int, tables: Sequence[int]) -> str:
    parts = [f"# Target {target}: generated regions only.\n", "\n"]
    for table in tables:
        parts += [
            f"fn table_{table}() -> List[TuningConfig]:\n",
            "    return [\n",
            f"        # BEGIN-TABLE-{table:04d}\n",
            f"        # END-TABLE-{table:04d}\n",
            "    ]\n",
            "\n",
        ]
    return "".join(parts)


def registry_text(layout: Layout) -> str:
    lines = ["tables:"]
    for table in range(layout.tables):
        target = table % layout.targets
        lines += [
            f"  - name: table-{table}",
            f"    manifest: kernels/t{target}/tuning_table_{table}.yaml",
            f"    snippet: kernels/t{target}/entry.mojo.snippet",
            f"    target: kernels/t{target}/tuning_configs.mojo",
            f"    begin_marker: BEGIN-TABLE-{table:04d}",
            f"    end_marker: END-TABLE-{table:04d}",
        ]
    return "\n".join(lines) + "\n"


def build_repository(root: Path, layout: Layout) -> None:
    """Write the files, regenerate every region once (so all are fresh), commit."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Bench")
    git(root, "config", "user.email", "bench@example.invalid")
    for target in range(layout.targets):
        folder = root / "kernels" / f"t{target}"
        folder.mkdir(parents=True)
        (folder / "entry.mojo.snippet").write_text(SNIPPET)
        owned = [t for t in range(layout.tables) if t % layout.targets == target]
        (folder / "tuning_configs.mojo").write_text(target_text(target, owned))
        for table in owned:
            (folder / f"tuning_table_{table}.yaml").write_text(
                manifest_text(table, layout.entries)
            )
    (root / "docs").mkdir()
    (root / OTHER_FILE).write_text("Not a registered file.\n")
    (root / ".tuning-codegen.yaml").write_text(registry_text(layout))
    (root / "tools").mkdir()
    (root / NAMED_REGISTRY).write_text(
        registry_text(layout).replace(": kernels/", ": ../kernels/")
    )
    run_tool(root, [])
    git(root, "add", "--all")
    git(root, "commit", "-q", "-m", "tables")


def run_tool(root: Path, args: Sequence[str]) -> int:
    done = subprocess.run(
        [str(SCRIPT), *args],
        cwd=root,
        env=clean_env(),
        capture_output=True,
        check=False,
    )
    if done.returncode == 2:
        raise SystemExit(
            f"tuning-codegen {' '.join(args)} failed:\n{done.stderr.decode()}"
        )
    return done.returncode


def time_command(
    root: Path,
    command: Sequence[str],
    runs: int,
    before: Callable[[], None] = lambda: None,
) -> tuple[list[float], int]:
    seconds: list[float] = []
    code = 0
    for _ in range(runs):
        before()
        start = time.perf_counter()
        done = subprocess.run(
            list(command), cwd=root, env=clean_env(), capture_output=True, check=False
        )
        seconds.append(time.perf_counter() - start)
        code = done.returncode
        if code == 2:
            raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr.decode()}")
    return seconds, code


def expect(timing: Timing, code: int) -> Timing:
    if timing.exit_code != code:
        raise SystemExit(f"{timing.label}: exit {timing.exit_code}, expected {code}")
    return timing


def make_stale(root: Path, layout: Layout) -> Callable[[], None]:
    """Change every snippet (so every table is stale); return a function restoring that
    state."""
    for target in range(layout.targets):
        snippet = root / "kernels" / f"t{target}" / "entry.mojo.snippet"
        snippet.write_text(
            snippet.read_text().replace("    stages=", "    # changed\n    stages=")
        )
    targets = sorted((root / "kernels").glob("t*/tuning_configs.mojo"))
    stale = {path: path.read_bytes() for path in targets}

    def restore() -> None:
        for path, data in stale.items():
            path.write_bytes(data)

    return restore


def single_table_args(layout: Layout, table: int) -> list[str]:
    target = table % layout.targets
    folder = f"kernels/t{target}"
    return [
        "--manifest", f"{folder}/tuning_table_{table}.yaml",
        "--snippet", f"{folder}/entry.mojo.snippet",
        "--target", f"{folder}/tuning_configs.mojo",
        "--begin-marker", f"BEGIN-TABLE-{table:04d}",
        "--end-marker", f"END-TABLE-{table:04d}",
        "--check",
    ]  # fmt: skip


def time_per_table(root: Path, layout: Layout, runs: int) -> Timing:
    """Every table checked by its own process, one after another."""
    seconds: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        for table in range(layout.tables):
            code = run_tool(root, single_table_args(layout, table))
            if code != 0:
                raise SystemExit(f"single-table check of table {table}: exit {code}")
        seconds.append(time.perf_counter() - start)
    return Timing(
        f"fresh, one process per table ({layout.tables} runs of single-table --check)",
        seconds,
        0,
    )


def imported_modules(root: Path, args: Sequence[str]) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", str(SCRIPT), *args],
        cwd=root,
        env=clean_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    names = []
    for line in done.stderr.splitlines():
        if (
            line.startswith("import time:")
            and "|" in line
            and "imported package" not in line
        ):
            name = line.rsplit("|", 1)[1].strip()
            if name != "package":
                names.append(name)
    return names


def has_module(names: Sequence[str], top: str) -> bool:
    return any(n == top or n.startswith(top + ".") for n in names)


def supports_hook_mode(root: Path) -> bool:
    """Whether the installed script has ``--hook`` (older versions do not)."""
    done = subprocess.run(
        [str(SCRIPT), "--hook", OTHER_FILE],
        cwd=root,
        env=clean_env(),
        capture_output=True,
        check=False,
    )
    return b"No such option" not in done.stderr


def hook_mode_timings(root: Path, tool: Sequence[str], runs: int) -> list[Timing]:
    """(a) as the published hooks run it: ``--hook`` (deletion check included)."""
    if not supports_hook_mode(root):
        return []
    return [
        expect(
            Timing(
                f"(a) hook, no registered file: tuning-codegen --hook {OTHER_FILE}",
                *time_command(root, [*tool, "--hook", OTHER_FILE], runs),
            ),
            0,
        ),
        expect(
            Timing(
                "(a) hook, nothing passed: tuning-codegen --hook --check",
                *time_command(root, [*tool, "--hook", "--check"], runs),
            ),
            0,
        ),
        expect(
            Timing(
                f"(a) hook, registry named: --hook --config {NAMED_REGISTRY} "
                f"{OTHER_FILE}",
                *time_command(
                    root,
                    [*tool, "--hook", "--config", NAMED_REGISTRY, OTHER_FILE],
                    runs,
                ),
            ),
            0,
        ),
    ]


def measure(root: Path, layout: Layout, runs: int, per_table_runs: int) -> list[Timing]:
    tool = [str(SCRIPT)]
    timings = [
        expect(
            Timing(
                "python -c pass",
                *time_command(root, [sys.executable, "-c", "pass"], runs),
            ),
            0,
        ),
        expect(
            Timing(
                "python -c 'import yaml'",
                *time_command(root, [sys.executable, "-c", "import yaml"], runs),
            ),
            0,
        ),
        expect(
            Timing(
                "python -c 'import click, yaml' (the CLI's libraries)",
                *time_command(root, [sys.executable, "-c", "import click, yaml"], runs),
            ),
            0,
        ),
        *hook_mode_timings(root, tool, runs),
        expect(
            Timing(
                "(b) all fresh: tuning-codegen --check",
                *time_command(root, [*tool, "--check"], runs),
            ),
            0,
        ),
        expect(
            Timing(
                "(b) all fresh: tuning-codegen (regenerate, nothing to write)",
                *time_command(root, tool, runs),
            ),
            0,
        ),
        expect(
            Timing(
                "(b) all fresh: tuning-codegen --check --since HEAD",
                *time_command(root, [*tool, "--check", "--since", "HEAD"], runs),
            ),
            0,
        ),
    ]
    if per_table_runs:
        timings.append(time_per_table(root, layout, per_table_runs))
    restore = make_stale(root, layout)
    timings += [
        expect(
            Timing(
                "(c) all stale: tuning-codegen --check",
                *time_command(root, [*tool, "--check"], runs),
            ),
            1,
        ),
        expect(
            Timing(
                f"(c) all stale: tuning-codegen (regenerate, {layout.targets} files "
                "written)",
                *time_command(root, tool, runs, restore),
            ),
            0,
        ),
    ]
    return timings


def report(
    layout: Layout,
    runs: int,
    timings: Sequence[Timing],
    imports_a: Sequence[str],
    imports_since: Sequence[str],
) -> str:
    width = max(len(t.label) for t in timings)
    lines = [
        f"tuning-codegen benchmark: {layout.tables} tables in {layout.targets} "
        f"targets, {layout.entries} entries per table",
        f"python {platform.python_version()} on {platform.system()} "
        f"{platform.machine()}, {os.cpu_count()} cpus; median of {runs} runs",
        "",
        f"{'case':<{width}}  {'median':>10}  {'min':>10}  exit",
        f"{'-' * width}  {'-' * 10}  {'-' * 10}  ----",
    ]
    for t in timings:
        lines.append(
            f"{t.label:<{width}}  {t.median_ms:>7.1f} ms  {t.min_ms:>7.1f} ms  "
            f"{t.exit_code:>4}"
        )
    lines += ["", *ratios(timings)]
    lines += [
        "",
        f"-X importtime, (a) tuning-codegen --hook {OTHER_FILE}: "
        f"{len(imports_a)} modules; "
        f"pandas imported: {'yes' if has_module(imports_a, 'pandas') else 'no'}; "
        f"GitPython imported: {'yes' if has_module(imports_a, 'git') else 'no'}; "
        f"click imported: {'yes' if has_module(imports_a, 'click') else 'no'}",
        "-X importtime, tuning-codegen --check --since HEAD: "
        f"{len(imports_since)} modules; "
        f"pandas imported: {'yes' if has_module(imports_since, 'pandas') else 'no'}; "
        "GitPython imported: "
        f"{'yes' if has_module(imports_since, 'git') else 'no'}",
    ]
    return "\n".join(lines)


NOOP_TARGET = 2.5  # the no-op hook within 2.5x a bare import of PyYAML
CONFIG_TARGET = 1.2  # --config within 1.2x of the registry found at the root


def ratios(timings: Sequence[Timing]) -> list[str]:
    """Each (a) case against ``python -c 'import yaml'``, medians and minima; the
    named registry against the one found at the root."""
    base = next(t for t in timings if t.label == "python -c 'import yaml'")
    lines = [
        f"{t.label}: {t.median_ms / base.median_ms:.2f}x 'import yaml' (median), "
        f"{t.min_ms / base.min_ms:.2f}x (min); the target is {NOOP_TARGET}x"
        for t in timings
        if t.label.startswith("(a)")
    ]
    found = [t for t in timings if t.label.startswith("(a) hook, no registered")]
    named = [t for t in timings if t.label.startswith("(a) hook, registry named")]
    if found and named:
        lines.append(
            f"--config against the registry at the root: "
            f"{named[0].median_ms / found[0].median_ms:.2f}x (median), "
            f"{named[0].min_ms / found[0].min_ms:.2f}x (min); the target is "
            f"{CONFIG_TARGET}x"
        )
    return lines


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0] if __doc__ else None
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=10,
        help="runs per case; the median is printed (default 10)",
    )
    parser.add_argument(
        "--tables", type=int, default=100, help="number of tables (default 100)"
    )
    parser.add_argument(
        "--targets", type=int, default=10, help="number of target files (default 10)"
    )
    parser.add_argument(
        "--entries", type=int, default=20, help="entries per table (default 20)"
    )
    parser.add_argument(
        "--per-table-runs",
        type=int,
        default=1,
        help="runs of the one-process-per-table case; 0 skips it (default 1)",
    )
    parser.add_argument(
        "--keep",
        action="store_true",
        help="keep the generated repository and print its path",
    )
    parser.add_argument(
        "--smoke", action="store_true", help="one tiny run (the tests')"
    )
    args = parser.parse_args(argv)
    if args.smoke:
        args.runs, args.tables, args.targets, args.entries = 1, 2, 1, 2
        args.per_table_runs = 0
    if (
        args.runs < 1
        or args.tables < 1
        or not 1 <= args.targets <= args.tables
        or args.entries < 1
    ):
        parser.error(
            "need runs >= 1, tables >= 1, 1 <= targets <= tables, entries >= 1"
        )
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if not SCRIPT.exists():
        raise SystemExit(
            f"{SCRIPT} not found: install the project (pip install -e .) into this "
            "interpreter's environment"
        )
    layout = Layout(args.tables, args.targets, args.entries)
    folder = tempfile.mkdtemp(prefix="bench-codegen-")
    root = Path(folder) / "repo"
    build_repository(root, layout)
    imports_a = imported_modules(root, ["--hook", OTHER_FILE])
    imports_since = imported_modules(root, ["--check", "--since", "HEAD"])
    timings = measure(root, layout, args.runs, args.per_table_runs)
    print(report(layout, args.runs, timings, imports_a, imports_since))
    if args.keep:
        print(f"\nrepository kept at {root}")
    else:
        shutil.rmtree(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
