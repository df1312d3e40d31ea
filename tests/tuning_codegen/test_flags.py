"""One table of flags: click's options, the no-op fast path and the hook's splitter
read the same rows, and accept the same command lines."""

from __future__ import annotations

import os
from pathlib import Path

import click
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tuning_codegen.command import command
from tuning_codegen.commit.runner import parse_fast, split
from tuning_codegen.flags import FLAGS, Request

FILES = ("-h", "--check", "notes.txt", "github", "--config", "a b.yaml")


@pytest.fixture
def files_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in FILES:
        (tmp_path / name).write_text("x\n")
    return tmp_path


# (command line, options, file names): what pre-commit builds and how it is cut
SPLITS = [
    (["--hook", "notes.txt"], ["--hook"], ["notes.txt"]),
    (["--hook", "-h"], ["--hook"], ["-h"]),
    (["--hook", "--check", "--check"], ["--hook", "--check"], ["--check"]),
    (["--hook", "--check"], ["--hook"], ["--check"]),
    (
        ["--hook", "--format", "github", "github"],
        ["--hook", "--format", "github"],
        ["github"],
    ),  # fmt: skip
    (
        ["--hook", "-q", "--config=a b.yaml", "-h", "notes.txt"],
        ["--hook", "-q", "--config=a b.yaml"],
        ["-h", "notes.txt"],
    ),  # fmt: skip
    # a file named --config: the user's option comes first, pre-commit's file last
    (
        ["--hook", "--config", "a b.yaml", "--config"],
        ["--hook", "--config", "a b.yaml"],
        ["--config"],
    ),  # fmt: skip
    (["--hook", "-q", "--", "--x"], ["--hook", "-q"], ["--x"]),
    (["--hook", "--chek", "notes.txt"], ["--hook", "--chek"], ["notes.txt"]),
    (["--hook", "missing.txt", "-q"], ["--hook"], ["missing.txt", "-q"]),
]


@pytest.mark.parametrize(("argv", "options", "files"), SPLITS)
def test_a_hook_command_line_is_cut_where_the_file_names_start(
    files_here: Path, argv: list[str], options: list[str], files: list[str]
) -> None:
    assert split(argv, hook=True) == (options, files)


def test_without_hook_only_double_dash_ends_the_options(files_here: Path) -> None:
    assert split(["--check", "-h", "a", "--", "-q"], hook=False) == (
        ["--check", "-h"],
        ["a", "-q"],
    )


def test_every_row_is_a_click_option_with_its_names() -> None:
    options = {p.name: p for p in command.params if isinstance(p, click.Option)}
    for flag in FLAGS:
        assert set(options[flag.field].opts) == set(flag.names), flag
        assert options[flag.field].multiple is (flag.kind == "repeat")
        assert options[flag.field].is_flag is (flag.kind == "switch")
    assert set(options) - {f.field for f in FLAGS} == {"version"}  # help: click's
    assert set(Request._fields) == {f.field for f in FLAGS} | {"files"}


def clicks_request(argv: list[str]) -> Request | None:
    """The request click makes of a hook's command line (cut as the hook cuts it),
    or None when click refuses it."""
    options, files = split(argv, hook=True)
    try:
        context = command.make_context("tuning-codegen", [*options, "--", *files])
    except click.ClickException:
        return None
    params = dict(context.params)
    params["files"] = tuple(params["files"])
    return Request(**params)


HOOK_TOKENS = st.sampled_from(
    [
        "--check", "-q", "--quiet", "--config", "--config=a b.yaml", "--format",
        "--format=text", "--format=github", "--format=json", "text", "github", "json",
        "a b.yaml", "notes.txt", "-h", "--check", "--", "--table", "x", "--chek", "-",
        "--list", "--since", "HEAD",
    ]
)  # fmt: skip


@pytest.fixture(scope="module")
def names_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("names")
    for name in FILES:
        (folder / name).write_text("x\n")
    return folder


@given(tokens=st.lists(HOOK_TOKENS, max_size=7))
def test_the_fast_path_and_click_read_a_hook_command_line_alike(
    names_folder: Path, tokens: list[str]
) -> None:
    """Wherever the fast path answers, click reads the same request; the fast path
    declines (None) what it does not know, and click then decides."""
    cwd = os.getcwd()
    os.chdir(names_folder)
    try:
        argv = ["--hook", *tokens]
        fast = parse_fast(argv)
        if fast is not None:
            assert clicks_request(argv) == fast, argv
    finally:
        os.chdir(cwd)


def test_the_fast_path_declines_what_it_does_not_serve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-h").write_text("x\n")
    assert parse_fast(["--check", "notes.txt"]) is None  # no --hook: click's
    assert parse_fast(["--hook", "--format", "json"]) is None  # prints a document
    assert parse_fast(["--hook", "--table", "x"]) is None
    assert parse_fast(["--hook", "--config"]) is None  # click says what is missing
    assert parse_fast(["--hook", "-q", "--config", "a b.yaml", "-h"]) == Request(
        files=("-h",), quiet=True, config="a b.yaml", hook=True
    )
