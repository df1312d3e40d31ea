"""``tuning-codegen``'s entry point: ``main(argv)``.

Most commits touch no tuning table, and the published hooks run on every one of them
(``always_run``). So a hook run (``--hook`` with the flags a hook's ``args:`` take:
``--check``, ``-q``, ``--config PATH``, ``--format text|github|markdown``) is first
answered here without click or the pipeline: the registry is read from the index, every
registered file is checked to be in the commit, and when neither the changes git has
staged (against each parent of a merge) nor the FILES touch a table there is nothing
to do. Anything else, or any problem found on the way (a bug too), goes to the full
command (``tuning_codegen.command``), which reports it under the error policy
(without ``--hook``, a named file no table has is an error there).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from tuning_codegen.commit.runner import parse_fast
from tuning_codegen.commit.snapshot import hook_tables, open_commit
from tuning_codegen.errors import EXIT_OK, InputError, InputErrors, interrupted

PROG = "tuning-codegen"
SIGINT = 2  # signal.SIGINT on every POSIX system, without importing signal


def nothing_to_do(args: Sequence[str]) -> bool:
    """Whether ``args`` ask for a hook run (``flags.parse_fast``) whose commit
    touches no table, every registered file being in it: done, nothing to print."""
    request = parse_fast(args)
    if request is None or os.environ.get("BUILD_WORKING_DIRECTORY"):
        return False
    try:
        commit = open_commit(request.config, os.getcwd())
        if commit is None:
            return False
        return not hook_tables(commit, commit.registry.tables, request.files)
    except (InputError, InputErrors):
        return False  # the full command finds it again and reports it
    except Exception:  # a bug: the full command meets it too, and reports it as one
        return False  # line and exit 3 under the error policy, never a traceback


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
