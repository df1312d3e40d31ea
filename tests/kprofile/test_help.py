"""``--help`` a reader can scan: options grouped by what a user wants to do, every line
within 80 columns however wide the terminal, and examples that are real commands."""

from __future__ import annotations

import os
import shlex
import subprocess

import click
import pytest
from support import BIN

from kprofile.cli import command
from kprofile.clihelp import EPILOG, GROUPS, ungrouped

WIDTH = 80


def _help(program: str, columns: str) -> str:
    env = {**os.environ, "COLUMNS": columns}
    done = subprocess.run(
        [str(BIN / program), "--help"], capture_output=True, text=True,
        env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("program", ["kprofile", "tuning-codegen"])
@pytest.mark.parametrize("columns", ["80", "200"])
def test_help_fits_80_columns_on_any_terminal(program: str, columns: str) -> None:
    text = _help(program, columns)
    assert [line for line in text.splitlines() if len(line) > WIDTH] == []


def test_every_option_is_in_one_group() -> None:
    names = [n for _, group in GROUPS for n in group]
    assert len(names) == len(set(names))
    assert ungrouped(command) == []


def test_options_are_listed_under_their_group_in_order() -> None:
    text = _help("kprofile", "80")
    headings = [h for h, _ in GROUPS]
    found = [line[:-1] for line in text.splitlines() if line[:-1] in headings]
    assert found == headings
    assert "Other:" not in text
    ctx = click.Context(command)
    flags = {p.name: max(p.opts, key=len) for p in command.get_params(ctx) if p.opts}
    flags["help"] = "--help"
    for heading, names in GROUPS:
        start = text.index(heading + ":")
        end = min(
            [text.index(h + ":") for h, _ in GROUPS if text.index(h + ":") > start]
            + [text.index("Examples:")]
        )
        section = text[start:end]
        for name in names:
            assert f" {flags[name]}" in section, (heading, name)


def _examples() -> list[str]:
    lines = [line.strip() for line in EPILOG.splitlines()]
    return [line for line in lines if line.startswith("kprofile ")]


@pytest.mark.parametrize("example", _examples())
def test_each_example_is_a_command_kprofile_parses(example: str) -> None:
    words = shlex.split(example.split("  ")[0])[1:]
    ctx = command.make_context("kprofile", words, resilient_parsing=False)
    assert ctx.params["files"], example
