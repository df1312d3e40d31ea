"""Running a click command under the project's error policy, for both console scripts.

User mistakes (``InputError`` and click usage errors) become one line per problem on
stderr and exit code 2; a closed pipe (``| head``) ends quietly; Ctrl-C (SIGINT)
anywhere, and SIGHUP, SIGTERM or SIGQUIT while files are written, exit 128 + the
signal number (130 for Ctrl-C) with one line naming it; anything else is a bug:
one line asking for a report and exit code 3, with the traceback only when the
environment variable ``<PROG>_TRACEBACK`` (``TUNING_CODEGEN_TRACEBACK``,
``KPROFILE_TRACEBACK``) is set to a value other than ``0``. Tests call the commands'
``main(argv)``, which goes through here, so they see the real exit codes.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from types import FrameType

import click

from tuning_codegen.errors import (
    EXIT_INPUT_ERROR,
    EXIT_INTERNAL_ERROR,
    EXIT_OK,
    InputError,
    InputErrors,
    Interrupted,
    interrupted,
    one_line,
)


def traceback_variable(prog: str) -> str:
    """``tuning-codegen`` -> ``TUNING_CODEGEN_TRACEBACK``."""
    return prog.upper().replace("-", "_") + "_TRACEBACK"


def run_command(command: click.Command, argv: Sequence[str] | None, prog: str) -> int:
    try:
        with ctrl_c_interrupts():
            code = command.main(
                args=list(argv) if argv is not None else None,
                prog_name=prog,
                standalone_mode=False,
            )
    except InputErrors as exc:
        for error in exc.errors:
            print(error, file=sys.stderr)
        return EXIT_INPUT_ERROR
    except InputError as exc:
        print(exc, file=sys.stderr)
        return EXIT_INPUT_ERROR
    except BrokenPipeError:  # e.g. piped into head: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:  # a handler of SIGINT other than ours ran
        return interrupted(prog, signal.SIGINT)
    except click.exceptions.Abort as exc:  # click's word for Ctrl-C (or end of input)
        if isinstance(exc.__cause__, KeyboardInterrupt):
            return interrupted(prog, signal.SIGINT)
        print(f"{prog}: error: aborted", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except Interrupted as exc:  # Ctrl-C, or a signal while writing: all or nothing
        return interrupted(prog, exc.signum)
    except click.ClickException as exc:
        print(one_line(f"{prog}: error: {exc.format_message()}"), file=sys.stderr)
        return EXIT_INPUT_ERROR
    except Exception as exc:  # a bug, not the user's mistake
        return internal_error(exc, prog)
    return EXIT_OK if code is None else int(code)  # None: --help was printed


@contextlib.contextmanager
def ctrl_c_interrupts() -> Iterator[None]:
    """While the command runs, Ctrl-C raises ``Interrupted(SIGINT)``, which click
    leaves alone (a ``KeyboardInterrupt`` it would print a blank line for and turn
    into ``Abort``). A SIGINT ignored by whoever started us stays ignored."""
    try:
        previous = signal.signal(signal.SIGINT, _interrupt)
    except ValueError:  # not the main thread: signals are not ours to handle
        yield
        return
    try:
        if previous is not signal.default_int_handler:
            signal.signal(signal.SIGINT, previous)  # ignored, or someone else's
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(signum)


def internal_error(exc: Exception, prog: str) -> int:
    """One line (the traceback too if asked for), exit code 3."""
    if os.environ.get(traceback_variable(prog), "0") not in ("", "0"):
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    print(
        one_line(f"{prog}: internal error: {what}; please report it"),
        file=sys.stderr,
    )
    return EXIT_INTERNAL_ERROR
