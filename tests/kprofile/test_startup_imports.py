"""Start-up: a run imports what it runs, when it needs it, so that a small kbench file
costs little more than ``import pandas, numpy``.

Each case is the real command in a fresh interpreter on the genuine kbench runs
(``fixtures/realkbench``), which records the modules loaded when it exits: the
per-file views of a pickle or CSV load none of the machinery of the other modes, of
YAML, of the writers or of the optional stacks; each flag that needs a piece of it
loads it (so the probe sees what it is meant to see).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support import run

# Loaded only by a run that needs it (which run: the comment).
WAITING = (
    "yaml",  # a YAML input, -o, --update, --score
    "tuning_codegen.manifest",  # a manifest or spec YAML read: --score, --update
    "kprofile.inputs.csvscan",  # a CSV input
    "kprofile.inputs.specyaml",  # a spec YAML input
    "kprofile.core.ranked",  # the views (--ratio, --head, --top...)
    "kprofile.core.select",  # --top, --top-fraction, --within, -d
    "kprofile.inputs.yamlsource",  # --merge -o refusing a YAML's value
    "kprofile.inputs.expr",  # --query
    "kprofile.core.query",  # --query, --merge
    "kprofile.core.runs",  # --combine, repeated runs of a pooling or writing run
    "kprofile.core.score",  # --score, --budget
    "kprofile.core.dispatch",  # --score
    "kprofile.core.portfolio",  # --budget
    "kprofile.core.cover",  # --cover
    "kprofile.core.importance",  # --importance
    "kprofile.core.correlation",  # -c
    "kprofile.core.diff",  # -d
    "kprofile.core.merge",  # --merge
    "kprofile.core.ranges",  # --ranges
    "kprofile.manifest.write",  # -o
    "kprofile.sinks.output",  # -o
    "kprofile.sinks.update",  # --update
    "kprofile.sinks.keep",  # --update --keep-within
    "kprofile.core.keep",  # --update --keep-within
    "kprofile.core.standing",  # --keep-within, --rerun
    "kprofile.core.contenders",  # --rerun
    "kprofile.manifest.specwrite",  # --rerun
    "kprofile.sinks.rerun",  # --rerun
    "kprofile.sinks.files",  # --out-dir, --importance --plot
    "kprofile.render.charts",  # -c, --importance --plot
    "scipy",  # the solvers of --cover and --budget
    "highspy",
    "matplotlib",  # the charts
    "rich",  # a terminal's tables and progress display
)
PROBE = (
    "import atexit, sys\n"
    "out = sys.argv[1]\n"
    "atexit.register(lambda: open(out, 'w').write('\\n'.join(sorted(sys.modules))))\n"
    "from kprofile.cli import main\n"
    "raise SystemExit(main(sys.argv[2:]))\n"
)


def loaded_by(folder: Path, *args: str) -> set[str]:
    """The modules loaded by ``kprofile ARGS`` run in ``folder``, as it exits."""
    listed = folder / "modules.txt"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(listed), *args],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr.count("error")) == (0, 0), done.stderr
    assert done.stdout.strip(), done.stderr  # the report was printed
    return set(listed.read_text(encoding="utf-8").split())


VIEWS = ["-p", "M,N,K", "--top", "0.05", "--ratio", "--format", "json"]


@pytest.mark.parametrize(
    ("args", "runs"),
    [
        (["A/out.pkl"], set()),  # bench/bench_floor.py --cases startup
        (
            ["B/out.csv", *VIEWS],
            {"kprofile.inputs.csvscan", "kprofile.core.ranked", "kprofile.core.select"},
        ),
    ],
    ids=["pickle", "csv-views-json"],
)
def test_the_per_file_views_load_only_what_they_run(
    real: Path, args: list[str], runs: set[str]
) -> None:
    loaded = loaded_by(real, *args)
    assert "kprofile.modes.files" in loaded  # what ran
    assert sorted(set(WAITING) & loaded) == sorted(runs)


@pytest.fixture
def table(real: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A manifest of A/out.pkl's best config per shape, written by ``-o``."""
    code, _, err = run(capsys, "A/out.pkl", "-p", "M,N,K", "-o", "table", "-q")
    assert code == 0, err
    return real / "table.yaml"


SPEC = str(Path(__file__).parents[2] / "fixtures" / "heldout" / "spec.yaml")


@pytest.mark.parametrize(
    ("args", "needs"),
    [
        (["-p", "M,N,K", "-o", "again"], {"kprofile.sinks.output", "yaml"}),
        (
            ["-p", "M,N,K", "--update", "table.yaml", "--dry-run"],
            {"kprofile.sinks.update", "yaml"},
        ),
        (["--score", "table.yaml"], {"kprofile.core.score", "tuning_codegen.manifest"}),
        (["--budget", "2"], {"kprofile.core.portfolio"}),
        (["--query", "M > 64"], {"kprofile.core.query", "kprofile.inputs.expr"}),
        (["B/out.pkl", "--combine", "median"], {"kprofile.core.runs"}),
        (["-d", "B/out.pkl"], {"kprofile.core.diff"}),
        (["-d", "B/out.pkl", "--out-dir", "o"], {"kprofile.sinks.files"}),
        (
            ["-p", "M,N,K", "--update", "table.yaml", "--keep-within", "2%"],
            {"kprofile.sinks.keep", "kprofile.core.keep", "kprofile.core.standing"},
        ),
        (
            ["--rerun", "again.yaml", "--rerun-within", "2%"],
            {"kprofile.core.contenders", "kprofile.sinks.rerun"},
        ),
    ],
    ids=[
        "-o",
        "--update",
        "--score",
        "--budget",
        "--query",
        "--combine",
        "-d",
        "-d --out-dir",
        "--keep-within",
        "--rerun",
    ],  # fmt: skip
)
def test_a_run_that_needs_a_piece_loads_it(
    real: Path, table: Path, args: list[str], needs: set[str]
) -> None:
    assert needs <= set(WAITING)
    loaded = loaded_by(real, "A/out.pkl", *args)
    assert sorted(needs - loaded) == []


def test_a_spec_yaml_input_loads_the_yaml_readers(real: Path, table: Path) -> None:
    loaded = loaded_by(real, "--merge", "table.yaml", SPEC)
    needs = {"yaml", "tuning_codegen.manifest", "kprofile.inputs.specyaml"}
    assert sorted(needs - loaded) == []


def test_the_analyzer_stack_is_frozen_once_imported(real: Path) -> None:
    """The objects importing pandas, numpy and kprofile made are frozen (no
    collection walks them again), and the collector runs again after the import."""
    code = (
        "import gc, sys\n"
        "from kprofile.cli import main\n"
        "before = gc.get_freeze_count()\n"
        "code = main(sys.argv[1:])\n"
        "print(before, gc.get_freeze_count() > 10_000, gc.isenabled(), file=sys.stderr)\n"
        "raise SystemExit(code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, "A/out.pkl", "-q"],
        cwd=real,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "0 True True\n")
