"""Running a click command under the project's error policy, for both console scripts.

User mistakes (``InputError`` and click usage errors) become one line per problem on
stderr and exit code 2, and so does running out of memory; a closed pipe (``| head``)
ends quietly, with the exit code the work had (``PipeSafe``); Ctrl-C (SIGINT)
anywhere, and SIGHUP, SIGTERM or SIGQUIT while files are written, exit 128 + the
signal number (130 for Ctrl-C) with one line naming it; anything else is a bug:
one line asking for a report and exit code 3, with the traceback only when the
environment variable ``<PROG>_TRACEBACK`` (``TUNING_CODEGEN_TRACEBACK``,
``KPROFILE_TRACEBACK``) is set to a value other than ``0``. Tests call the commands'
``main(argv)``, which goes through here, so they see the real exit codes.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from types import FrameType
from typing import Any, TextIO

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


class PipeSafe:
    """A standard stream that a closed pipe (``| head``) cannot stop: writes to it
    are dropped once the reader is gone (its descriptor then points at /dev/null, so
    nothing fails at exit either), and the run goes on to the exit code its work
    has."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.closed_pipe = False

    def write(self, text: str) -> int:
        if not self.closed_pipe:
            try:
                self.stream.write(text)
            except BrokenPipeError:
                self._closed()
        return len(text)

    def flush(self) -> None:
        if not self.closed_pipe:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self._closed()

    def _closed(self) -> None:
        self.closed_pipe = True
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), self.stream.fileno())
        except (OSError, ValueError, io.UnsupportedOperation):
            pass  # not a descriptor (a test's capture): nothing is left to flush

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding, ...
        return getattr(self.stream, name)


@contextlib.contextmanager
def pipe_safe() -> Iterator[None]:
    """stdout and stderr as ``PipeSafe`` streams while the command runs, each
    escaping what its encoding cannot show."""
    saved = sys.stdout, sys.stderr
    with escaping(sys.stdout), escaping(sys.stderr):
        sys.stdout = PipeSafe(sys.stdout)
        sys.stderr = PipeSafe(sys.stderr)
        try:
            yield
        finally:
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
            sys.stdout, sys.stderr = saved


@contextlib.contextmanager
def escaping(stream: TextIO) -> Iterator[None]:
    """A character the stream's encoding cannot show (``日本`` in a Latin-1 or
    ASCII locale, ``PYTHONIOENCODING=latin-1``) written as its escape (``\\u65e5``,
    as ``one_line`` writes invisible ones) rather than ending the run with exit 3
    (``strict``, or ``surrogateescape`` in the C locale: what is printed has no
    surrogates, ``quote_path`` escaped a file name's undecodable bytes)."""
    errors = getattr(stream, "errors", None)
    reconfigure = getattr(stream, "reconfigure", None)
    if errors not in ("strict", "surrogateescape") or reconfigure is None:
        yield  # stderr escapes already (backslashreplace), or not a text stream
        return
    reconfigure(errors="backslashreplace")
    try:
        yield
    finally:
        reconfigure(errors=errors)


def run_command(command: click.Command, argv: Sequence[str] | None, prog: str) -> int:
    """``command`` under the error policy, with closed pipes ending quietly: the exit
    code is the one the work had (0 done, 1 stale or a failed gate, 2 bad input)."""
    with pipe_safe():
        return _run_command(command, argv, prog)


def _run_command(command: click.Command, argv: Sequence[str] | None, prog: str) -> int:
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
    except MemoryError:  # an input within every limit can still exceed this machine
        print(
            f"{prog}: error: not enough memory for this run: an input is too large "
            "for this machine",
            file=sys.stderr,
        )
        return EXIT_INPUT_ERROR
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
