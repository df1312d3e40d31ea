"""Running a table's formatter command on a target's text: the one error line for
each way it can fail.

The command runs without a shell, in the repository's root, its program found on
PATH's absolute entries outside the repository (``process.find_program``): an empty
entry, ``.``, a relative one or a folder of the repository would run what a pull
request ships. ``{file}`` in it names a temporary copy of the target (same name, in
a private folder beside it, so that the formatter finds the same configuration): the
command formats it in place. Without ``{file}`` the text goes to its stdin and the
formatted text is read from its stdout. ``{path}`` is the target's path from the
repository's root (``--stdin-filename``, ``--assume-filename``). Bounded: a timeout
(``TUNING_CODEGEN_FORMAT_TIMEOUT`` seconds, 60 by default) and an output size limit;
a formatter that is missing, fails (its first error line is quoted), times out or
prints nothing is one error.
"""

from __future__ import annotations

import math
import os
import shutil
import signal
import subprocess  # the formatter's working folder: posix_spawn cannot set one
import tempfile
import time

from tuning_codegen.errors import InputError, one_line
from tuning_codegen.filenames import os_name
from tuning_codegen.process import (
    OutputTooLarge,
    TimedOut,
    exchange,
    find_program,
    refused_program,
)
from tuning_codegen.table import FILE_PLACEHOLDER, PATH_PLACEHOLDER, Formatter
from tuning_codegen.textio import MAX_BYTES, read_bytes

TIMEOUT_VARIABLE = "TUNING_CODEGEN_FORMAT_TIMEOUT"
DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 3600.0
FOLDER_PREFIX = ".tuning-codegen-format-"


class Target:
    """The file being formatted: its path as shown, its path from the repository's
    root, the root (the formatter's working folder) and the folder of the file the
    temporary copy goes beside."""

    def __init__(self, shown: str, relative: str, root: str, folder: str) -> None:
        self.shown = shown
        self.relative = relative
        self.root = root
        self.folder = folder


def format_timeout() -> float:
    given = os.environ.get(TIMEOUT_VARIABLE, "").strip()
    if not given:
        return DEFAULT_TIMEOUT
    try:
        seconds = float(given)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds <= MAX_TIMEOUT:
        raise InputError(
            TIMEOUT_VARIABLE,
            f"expected a number of seconds above 0 and up to {MAX_TIMEOUT:g}, got "
            f"{given!r}",
        )
    return seconds


def run_formatter(formatter: Formatter, text: str, target: Target) -> str:
    """``text`` formatted by ``formatter`` as the content of ``target``."""
    program = find_program(formatter.argv[0], outside=target.root)
    if program is None:
        raise _not_installed(formatter, target)
    data = text.encode("utf-8")
    if not formatter.in_place:
        argv = _arguments(formatter, target, None)
        out = _run(formatter, [program, *argv[1:]], data, target)
        return _decoded(out, formatter, target, "printed")
    folder = _private_folder(target.folder)
    try:
        copy = os.path.join(folder, os.path.basename(target.relative) or "target")
        with open(copy, "wb") as handle:
            handle.write(data)
        argv = _arguments(formatter, target, copy)
        _run(formatter, [program, *argv[1:]], b"", target)
        return _decoded(read_bytes(copy), formatter, target, "wrote")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _not_installed(formatter: Formatter, target: Target) -> InputError:
    """Not on PATH; or only where nothing is run from: the current folder (an
    empty, ``.`` or relative PATH entry) or the repository."""
    name = formatter.argv[0]
    refused = refused_program(name, target.root)
    where = "not found on PATH"
    if refused is not None:
        path, entry = refused
        root = os.path.realpath(target.root)
        if path.startswith(root.rstrip(os.sep) + os.sep):
            shown = one_line(os.path.relpath(path, root).replace(os.sep, "/"))
            where = (
                f"PATH finds it only at '{shown}' in the repository (through the "
                f"entry '{one_line(entry)}'), and nothing in the repository is run"
            )
        else:
            where = (
                f"PATH finds it only through the relative entry '{one_line(entry)}', "
                "which names whatever folder the tool runs in, and is not searched"
            )
    return InputError(
        target.shown,
        f"the formatter '{name}' is not installed ({where}); it is the 'format' of "
        f"{formatter.origin}",
    )


def _arguments(formatter: Formatter, target: Target, copy: str | None) -> list[str]:
    """The command's arguments as the OS takes them (``filenames.os_name``: written
    as text in the registry, a name in one is the file's UTF-8 bytes), with the
    target's path and its copy's (names the OS gave) for the placeholders."""
    out = []
    for arg in formatter.argv:
        arg = os_name(arg).replace(PATH_PLACEHOLDER, target.relative)
        if copy is not None:
            arg = arg.replace(FILE_PLACEHOLDER, copy)
        out.append(arg)
    return out


def _private_folder(beside: str) -> str:
    """A new folder only this process can use, beside the target (the formatter then
    finds the configuration the target would get), else in the temporary folder.
    Folders left by runs that no longer run (a kill -9) are removed first."""
    _remove_stale_folders(beside)
    try:
        return tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-", dir=beside)
    except OSError:
        return tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-")


def _remove_stale_folders(folder: str) -> None:
    try:
        names = [e.name for e in os.scandir(folder) if e.name.startswith(FOLDER_PREFIX)]
    except OSError:
        return
    for name in names:
        pid = name[len(FOLDER_PREFIX) :].partition("-")[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(os.path.join(folder, name), ignore_errors=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False  # an earlier process with our number: it is gone
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _run(formatter: Formatter, argv: list[str], data: bytes, target: Target) -> bytes:
    """What the formatter prints on stdout; its failure is one error."""
    timeout = format_timeout()
    limit = min(max(4 * len(data), 1 << 20), 2 * MAX_BYTES)
    child = subprocess.Popen(
        argv,
        cwd=target.root,
        stdin=subprocess.PIPE if data else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its children too end with it on a timeout
    )
    assert child.stdout is not None and child.stderr is not None
    in_fd = os.dup(child.stdin.fileno()) if child.stdin is not None else -1
    if child.stdin is not None:
        child.stdin.close()
    deadline = time.monotonic() + timeout
    try:
        out, err = exchange(
            in_fd,
            data,
            child.stdout.fileno(),
            child.stderr.fileno(),
            limit=limit,
            deadline=deadline,
        )
        # Both pipes are closed, which a process does as it exits, a moment before
        # it can be waited for: wait for that moment, never kill a child that is
        # ending on its own (it would read as "failed (exit -9)").
        child.wait(timeout=max(deadline - time.monotonic(), 0.0))
    except (TimedOut, subprocess.TimeoutExpired):
        raise _failure(formatter, target, f"did not finish in {timeout:g} s") from None
    except OutputTooLarge:
        raise _failure(formatter, target, f"printed more than {limit} bytes") from None
    finally:
        _end(child)
    if child.returncode != 0:
        why = f"failed (exit {child.returncode})"
        line = _first_error_line(err)
        raise _failure(formatter, target, f"{why}: {line}" if line else why)
    return out


def _end(child: subprocess.Popen[bytes]) -> None:
    """Wait for the child if it ended; else end it and its own children."""
    if child.poll() is None:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except OSError:
            pass
    child.wait()
    for stream in (child.stdout, child.stderr):
        if stream is not None:
            stream.close()


def _first_error_line(err: bytes) -> str:
    """The line of stderr that says what went wrong: the first one mentioning an
    error (a formatter may start with notices), else the first one."""
    lines = [line.strip() for line in err.decode("utf-8", "replace").splitlines()]
    lines = [line for line in lines if line]
    chosen = next((line for line in lines if "error" in line.lower()), None)
    return one_line((chosen or (lines[0] if lines else ""))[:300])


def _failure(formatter: Formatter, target: Target, what: str) -> InputError:
    return InputError(
        target.shown,
        f"the formatter ({formatter.shown()}) {what}; it is the 'format' of "
        f"{formatter.origin}",
    )


def _decoded(data: bytes, formatter: Formatter, target: Target, verb: str) -> str:
    if not data:
        what = "printed nothing" if verb == "printed" else "left the file empty"
        raise _failure(formatter, target, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _failure(
            formatter,
            target,
            f"{verb} text that is not UTF-8 (byte 0x{data[exc.start]:02x} at offset "
            f"{exc.start})",
        ) from None
