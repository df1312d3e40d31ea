"""``tuning-codegen``'s entry point: ``main(argv)``.

Most commits touch no tuning table, and the published hooks run on every one of them
(``always_run``). So a hook run (``--hook [--check] [--format text|github] [--]
FILES``) is first answered here without click or the pipeline: the registry is read,
every registered file is checked to be in the commit, and when none of the FILES is
registered there is nothing to do. Anything else, or any problem found on the way,
goes to the full command (``tuning_codegen.command``), which reports it (without
``--hook``, a named file no table has is an error there).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from tuning_codegen.errors import EXIT_OK, InputError, InputErrors, interrupted
from tuning_codegen.hookmode import hook_tables
from tuning_codegen.registry import discover_registry

PROG = "tuning-codegen"
SIGINT = 2  # signal.SIGINT on every POSIX system, without importing signal
QUIET_FLAGS = frozenset({"--hook", "--check", "--format=text", "--format=github"})
QUIET_FORMATS = ("text", "github")


def plain_files(args: Sequence[str]) -> tuple[list[str], bool] | None:
    """The FILES of ``[--hook] [--check] [--format text|github] [--] FILES``, and
    whether ``--hook`` is given; None for any other command line (the full command
    parses it), and for no FILES without ``--hook`` (that means every table)."""
    files: list[str] = []
    hook = False
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--":
            files += args[index + 1 :]
            break
        if arg == "--format" and args[index + 1 : index + 2] in (["text"], ["github"]):
            index += 2
            continue
        if arg in QUIET_FLAGS:
            hook = hook or arg == "--hook"
        elif arg.startswith("-"):
            return None
        else:
            files.append(arg)
        index += 1
    return (files, hook) if files or hook else None


def nothing_to_do(args: Sequence[str]) -> bool:
    """Whether ``args`` ask for a hook run over files that touch no table, every
    registered file being in the commit: done, nothing to print."""
    plain = plain_files(args)
    if plain is None or not plain[1] or os.environ.get("BUILD_WORKING_DIRECTORY"):
        return False
    try:
        registry = discover_registry(None, os.getcwd())
        if registry is None:
            return False
        return not hook_tables(registry, registry.tables, plain[0])
    except (InputError, InputErrors):
        return False  # the full command finds it again and reports it


def main(argv: Sequence[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        if nothing_to_do(args):
            return EXIT_OK
    except KeyboardInterrupt:  # Ctrl-C: nothing was written yet
        return interrupted(PROG, SIGINT)
    from tuning_codegen.command import run  # click and the pipeline: not for a no-op

    return run(args)


if __name__ == "__main__":
    raise SystemExit(main())
