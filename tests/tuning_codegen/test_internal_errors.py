"""A bug is not a user mistake. One line, exit 3; the traceback on request.

The bug is planted in a real subprocess (a module function replaced by one that raises
before ``main`` runs), so the console scripts' real error path is what is tested.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from tuning_codegen.clirun import run_command, traceback_variable
from tuning_codegen.errors import EXIT_INTERNAL_ERROR

pytestmark = pytest.mark.slow  # planted bugs in real processes

PLANT_CODEGEN = """\
import sys
import tuning_codegen.generate

def broken(*args, **kwargs):
    raise KeyError("planted\\nbug")

tuning_codegen.generate.plan = broken
from tuning_codegen.cli import main
raise SystemExit(main(sys.argv[1:]))
"""

# The same bug on the hook's quick path (``cli.nothing_to_do``) and in its full run.
PLANT_HOOK = PLANT_CODEGEN.replace(
    "tuning_codegen.generate", "tuning_codegen.commit.snapshot"
).replace(".plan = broken", ".hook_tables = broken")

PLANT_KPROFILE = """\
import sys
import kprofile.run

def broken(*args, **kwargs):
    raise ZeroDivisionError("planted bug")

kprofile.run.run = broken
from kprofile.cli import main
raise SystemExit(main(sys.argv[1:]))
"""


def run_planted(
    code: str, args: list[str], cwd: Path, **env: str
) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_TRACEBACK")}
    environment.update(env)
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )


def test_codegen_bug_is_exit_3_and_one_line(codegen_repo: object) -> None:
    root = Path.cwd()
    done = run_planted(PLANT_CODEGEN, ["--check"], root)
    assert (done.returncode, done.stdout) == (3, "")
    assert done.stderr == (
        "tuning-codegen: internal error: KeyError: 'planted\\nbug'; please report it\n"
    )


@pytest.mark.parametrize("args", [["--hook"], ["--hook", "--check"]])
def test_a_bug_on_the_hooks_quick_path_is_exit_3_and_one_line(
    codegen_repo: object, args: list[str]
) -> None:
    """Before, the quick path let it through: a traceback, exit 1."""
    done = run_planted(PLANT_HOOK, args, Path.cwd())
    assert (done.returncode, done.stdout) == (3, "")
    assert done.stderr == (
        "tuning-codegen: internal error: KeyError: 'planted\\nbug'; please report it\n"
    )


@pytest.mark.parametrize("value", ["1", "yes"])
def test_codegen_traceback_on_request(codegen_repo: object, value: str) -> None:
    done = run_planted(
        PLANT_CODEGEN, ["--check"], Path.cwd(), TUNING_CODEGEN_TRACEBACK=value
    )
    assert done.returncode == 3
    assert done.stderr.startswith("Traceback (most recent call last):\n")
    assert "in broken\nKeyError: 'planted\\nbug'\n" in done.stderr
    assert done.stderr.endswith("; please report it\n")


def test_traceback_variable_zero_means_off(codegen_repo: object) -> None:
    done = run_planted(
        PLANT_CODEGEN, ["--check"], Path.cwd(), TUNING_CODEGEN_TRACEBACK="0"
    )
    assert done.returncode == 3 and "Traceback" not in done.stderr


def test_kprofile_bug_is_exit_3_and_one_line(tmp_path: Path) -> None:
    (tmp_path / "r.csv").write_text("name,met (ms)\na,1\n")
    done = run_planted(PLANT_KPROFILE, ["r.csv"], tmp_path)
    assert (done.returncode, done.stderr) == (
        3,
        "kprofile: internal error: ZeroDivisionError: planted bug; please report it\n",
    )
    done = run_planted(PLANT_KPROFILE, ["r.csv"], tmp_path, KPROFILE_TRACEBACK="1")
    assert done.returncode == 3 and "Traceback (most recent call last)" in done.stderr


def test_user_errors_stay_exit_2(codegen_repo: object) -> None:
    done = run_planted(PLANT_CODEGEN, ["--table", "nope"], Path.cwd())
    assert done.returncode == 2 and "internal error" not in done.stderr


def test_run_command_table(capsys: pytest.CaptureFixture[str]) -> None:
    @click.command()
    @click.argument("what")
    def command(what: str) -> int:
        if what == "memory":
            raise MemoryError
        if what == "recursion":
            raise RecursionError("maximum recursion depth exceeded")
        return 0

    assert run_command(command, ["ok"], "prog") == 0
    # out of memory is no bug: an input is too big for the machine (exit 2; the
    # readers name the input where they can, see test_exit_codes.py)
    assert run_command(command, ["memory"], "prog") == 2
    assert capsys.readouterr().err == (
        "prog: error: not enough memory for this run: an input is too large for this "
        "machine\n"
    )
    assert run_command(command, ["recursion"], "prog") == EXIT_INTERNAL_ERROR
    assert capsys.readouterr().err == (
        "prog: internal error: RecursionError: maximum recursion depth exceeded; "
        "please report it\n"
    )
    assert traceback_variable("tuning-codegen") == "TUNING_CODEGEN_TRACEBACK"
    assert traceback_variable("kprofile") == "KPROFILE_TRACEBACK"
