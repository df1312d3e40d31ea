"""The README and docs stay true: help texts, hook ids, the quickstart test command,
and a README short enough to read.

Run with UPDATE_README=1 to rewrite the generated help blocks after changing a command.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import click
import pytest
import yaml

ROOT = Path(__file__).parents[1]
README = ROOT / "README.md"
HELP_PAGES = {
    "HELP-CODEGEN": ROOT / "docs" / "tuning-codegen.md",
    "HELP-KPROFILE": ROOT / "docs" / "kprofile.md",
}
MAX_README_BYTES = 10 * 1024


def help_text(command: click.Command, name: str) -> str:
    """``--help`` exactly as printed in an 80-column terminal (or piped, COLUMNS unset)."""
    ctx = click.Context(command, info_name=name, **command.context_settings)
    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "80"
    try:
        return command.get_help(ctx)
    finally:
        if saved is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = saved


def block(tag: str, body: str) -> str:
    return f"<!-- {tag}-BEGIN -->\n```text\n{body}\n```\n<!-- {tag}-END -->"


def commands() -> dict[str, tuple[click.Command, str]]:
    from tuning_codegen.command import command as codegen

    found = {"HELP-CODEGEN": (codegen, "tuning-codegen")}
    try:
        from kprofile.cli import command as kprofile
    except ImportError:
        return found
    found["HELP-KPROFILE"] = (kprofile, "kprofile")
    return found


@pytest.mark.parametrize("tag", sorted(commands()))
def test_help_blocks_match_the_commands(tag: str) -> None:
    command, name = commands()[tag]
    page = HELP_PAGES[tag]
    text = page.read_text()
    pattern = re.compile(rf"<!-- {tag}-BEGIN -->.*?<!-- {tag}-END -->", re.S)
    assert pattern.search(text), f"{page.name} has no {tag} block"
    expected = block(tag, help_text(command, name))
    if os.environ.get("UPDATE_README"):
        page.write_text(pattern.sub(lambda _: expected, text))
        text = page.read_text()
    assert pattern.search(text).group(0) == expected, (
        "README help is stale: run UPDATE_README=1 python -m pytest tests/test_readme.py"
    )  # type: ignore[union-attr]


def test_every_hook_id_is_documented() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    text = (ROOT / "docs" / "ci-and-hooks.md").read_text()
    assert [h["id"] for h in hooks] == ["tuning-codegen", "tuning-codegen-check"]
    for hook in hooks:
        assert f"id: {hook['id']}" in text


def test_ci_runs_the_readme_test_command() -> None:
    quickstart = (
        README.read_text()
        .split("## Quickstart", 1)[1]
        .split("```sh\n", 1)[1]
        .split("```", 1)[0]
    )
    lines = quickstart.strip().splitlines()
    assert len(lines) == 2
    ci = (ROOT / ".ci" / "run").read_text()
    assert lines[1] in ci.splitlines()


def test_readme_is_short_and_links_every_docs_page() -> None:
    text = README.read_text()
    assert len(text.encode()) <= MAX_README_BYTES
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"(docs/{page.name})" in text, page.name


def test_every_install_line_installs_from_a_clone_or_a_git_url() -> None:
    """The project is on no package index: an install line naming it must point at
    a clone (a path) or at a git URL, never at the bare name ``kprofile``."""
    docs = [README, *sorted((ROOT / "docs").glob("*.md"))]
    found = [
        (doc.name, match.group(1))
        for doc in docs
        for match in re.finditer(r"pip install ([^\n`]*)", doc.read_text())
    ]
    assert len(found) >= 3, found
    for name, args in found:
        for arg in args.split():
            arg = arg.strip("'\"")
            if arg.startswith("kprofile"):  # a name: the index has none of that name
                assert " @ git+" in args, (name, args)
