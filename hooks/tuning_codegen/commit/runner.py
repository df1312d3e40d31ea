"""A hook's command line: ``tuning-codegen --hook [ARGS] [FILES]``, cut in two.

pre-commit appends the ``args:`` a user wrote to the entry, then the names of the
files being committed (names of files that exist, relative to the repository root,
each once). So in hook mode ``split`` ends the options at the first token that is no
option, at ``--``, or at a token naming an existing path: a staged file named ``-h`` or
``--check`` is a file name, never an option. A token naming an existing path that
occurs again later is an option the user wrote (``args: [--check]``) followed by
pre-commit's file of that name. ``parse_fast`` reads the flags a hook's ``args:`` take
from the same table as click (``flags.FLAGS``), without click.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from tuning_codegen.flags import BY_NAME, Request


def hook_mode(args: Sequence[str]) -> bool:
    """Whether ``--hook`` is among the options (before any ``--``)."""
    for arg in args:
        if arg == "--":
            return False
        if arg == "--hook":
            return True
    return False


def split(args: Sequence[str], *, hook: bool) -> tuple[list[str], list[str]]:
    """``args`` cut into option tokens and file names (see the module's docstring);
    without ``hook``, only ``--`` ends the options, and a token that is no option is a
    file wherever it stands, as click reads it."""
    options: list[str] = []
    files: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--":
            return options, files + list(args[index + 1 :])
        if hook and _is_file(arg, args, index):
            return options, files + list(args[index:])
        if arg.startswith("-") and arg != "-":
            taken = _option_tokens(args, index)
            options += args[index : index + taken]
            index += taken
            continue
        if hook:
            return options, files + list(args[index:])
        files.append(arg)
        index += 1
    return options, files


def _is_file(arg: str, args: Sequence[str], index: int) -> bool:
    """A token naming an existing path is pre-commit's file name, unless the same
    token comes again (the user's option, then pre-commit's file)."""
    return os.path.lexists(arg) and arg not in args[index + 1 :]


def _option_tokens(args: Sequence[str], index: int) -> int:
    """How many tokens the option at ``index`` takes: 1, or 2 with its value."""
    arg = args[index]
    name = arg.partition("=")[0] if arg.startswith("--") else arg
    flag = BY_NAME.get(name)
    if flag is None or not flag.takes_value or "=" in arg:
        return 1
    return 2 if index + 1 < len(args) else 1


def parse_fast(args: Sequence[str]) -> Request | None:
    """The request of a hook run that a quick answer can serve (``--hook`` and only
    flags a pre-commit hook's ``args:`` take: ``--check``, ``-q``, ``--config``,
    ``--format text|github|markdown``), or None for anything else: click parses that."""
    if not hook_mode(args):
        return None
    options, files = split(args, hook=True)
    values: dict[str, object] = {}
    index = 0
    while index < len(options):
        arg = options[index]
        name, equals, inline = arg.partition("=") if arg.startswith("--") else (
            arg, "", ""
        )  # fmt: skip
        flag = BY_NAME.get(name)
        if flag is None or not flag.hook or (equals and not flag.takes_value):
            return None
        if flag.takes_value:
            if equals:
                value = inline
            elif index + 1 < len(options):
                index += 1
                value = options[index]
            else:
                return None
            if flag.kind == "choice" and value not in ("text", "github", "markdown"):
                return None  # json prints a document even for nothing to do
            values[flag.field] = value
        else:
            values[flag.field] = True
        index += 1
    return Request(files=tuple(files), **values)  # type: ignore[arg-type]
