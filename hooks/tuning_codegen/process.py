"""Running another program with bounded input and output: the one place the code
generator talks to a child process (git for ``--hook`` and ``--since``, a formatter).

``find_program`` looks a program up on PATH's absolute entries only: an empty entry,
``.`` or any relative one names the current folder (a repository, in a hook or in
CI), and a pull request must not be able to make the tool run a program it ships;
a formatter's lookup also skips entries inside the repository. ``spawn`` starts a
program so found with ``posix_spawn`` and pipes rather than ``subprocess``, whose
import alone costs a no-op hook run a tenth of its time; ``exchange`` writes a
child's input while reading its two outputs as they come (no pipe fills up and
stalls the other side), stops at a size limit or a deadline, and keeps only the
start of what the child says on stderr.
"""

from __future__ import annotations

import os
import select
import time
from collections.abc import Sequence

ERR_KEPT = 1 << 16  # bytes of stderr kept: messages are read for their first lines


class OutputTooLarge(Exception):
    """A child printed more than the caller's limit on stdout."""


class TimedOut(Exception):
    """A child did not finish before the caller's deadline."""


def find_program(name: str, *, outside: str | None = None) -> str | None:
    """The first executable file called ``name`` in an absolute entry of PATH; with
    ``outside`` (a folder: the repository), none inside it, nor one that resolves
    into it. None if there is none."""
    if not name or "/" in name:
        return None
    banned = None if outside is None else os.path.realpath(outside)
    for entry in os.environ.get("PATH", os.defpath).split(os.pathsep):
        if not os.path.isabs(entry):
            continue  # the current folder's, whatever it is then
        candidate = os.path.join(entry, name)
        if not (os.path.isfile(candidate) and os.access(candidate, os.X_OK)):
            continue
        if banned is None or not _inside(os.path.realpath(candidate), banned):
            return candidate
    return None


def refused_program(name: str, outside: str) -> tuple[str, str] | None:
    """Where PATH would have found ``name`` for a child started in ``outside`` had
    ``find_program`` not refused it (the file, and the PATH entry that led there),
    for the message; None if nowhere."""
    banned = os.path.realpath(outside)
    for entry in os.environ.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(outside, entry or ".", name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            real = os.path.realpath(candidate)
            if not os.path.isabs(entry) or _inside(real, banned):
                return real, entry
    return None


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def spawn(
    argv: Sequence[str],
    env: dict[str, str],
    *,
    input: bytes = b"",
    limit: int | None = None,
) -> tuple[int, bytes, bytes]:
    """Run ``argv`` (found by ``find_program``, else ``FileNotFoundError``) with
    ``input`` on stdin; its exit code, stdout, stderr (``limit``: stdout's most)."""
    program = find_program(argv[0])
    if program is None:
        raise FileNotFoundError(argv[0])
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    in_r, in_w = os.pipe() if input else (-1, -1)
    stdin = (
        (os.POSIX_SPAWN_DUP2, in_r, 0)
        if input
        else (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0)
    )
    try:
        pid = os.posix_spawn(
            program,
            list(argv),
            env,
            file_actions=[
                stdin,
                (os.POSIX_SPAWN_DUP2, out_w, 1),
                (os.POSIX_SPAWN_DUP2, err_w, 2),
            ],
        )
    except BaseException:
        for fd in (out_r, err_r, in_w):
            if fd >= 0:
                os.close(fd)
        raise
    finally:
        for fd in (out_w, err_w, in_r):
            if fd >= 0:
                os.close(fd)
    try:
        out, err = exchange(in_w, input, out_r, err_r, limit=limit)
    except OutputTooLarge:
        os.kill(pid, 9)
        raise
    finally:
        os.close(out_r)
        os.close(err_r)
        _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out, err


class _Input:
    """The write end of a child's stdin and what is left to write to it; closed as
    soon as everything is written (the child reads to the end of its input)."""

    def __init__(self, fd: int, data: bytes) -> None:
        self.fd = fd
        self.pending = memoryview(data)

    def feed(self) -> bool:
        """Write what the pipe takes now; whether there is more to write (a reader
        that is gone wanted no more)."""
        try:
            self.pending = self.pending[os.write(self.fd, self.pending[: 1 << 16]) :]
        except BlockingIOError:
            return True
        except BrokenPipeError:
            self.pending = self.pending[len(self.pending) :]
        if self.pending:
            return True
        self.close()
        return False

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def exchange(
    in_fd: int,
    data: bytes,
    out_fd: int,
    err_fd: int,
    *,
    limit: int | None = None,
    deadline: float | None = None,
) -> tuple[bytes, bytes]:
    """Write ``data`` to ``in_fd`` (-1: none) while reading everything written to the
    two output pipes; what came on stdout and the start of stderr. More than
    ``limit`` bytes on stdout raise ``OutputTooLarge``; still running at
    ``deadline`` (``time.monotonic()``), ``TimedOut``. The caller ends the child."""
    feeding = _Input(in_fd, data)
    try:
        return _poll(feeding, out_fd, err_fd, limit, deadline)
    finally:
        feeding.close()


def _poll(
    feeding: _Input,
    out_fd: int,
    err_fd: int,
    limit: int | None,
    deadline: float | None,
) -> tuple[bytes, bytes]:
    chunks: dict[int, list[bytes]] = {out_fd: [], err_fd: []}
    size = err_size = 0
    poller = select.poll()
    for fd in chunks:
        poller.register(fd, select.POLLIN)
    in_fd = feeding.fd
    if in_fd >= 0:
        os.set_blocking(in_fd, False)
        poller.register(in_fd, select.POLLOUT)
    open_fds = set(chunks)
    while open_fds:
        wait = None if deadline is None else deadline - time.monotonic()
        if wait is not None and wait <= 0:
            raise TimedOut()
        ready = poller.poll(None if wait is None else max(1, int(wait * 1000)))
        for fd, _ in ready:
            if fd == in_fd:
                if not feeding.feed():
                    poller.unregister(in_fd)
                    in_fd = -1
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                poller.unregister(fd)
                open_fds.discard(fd)
                continue
            if fd == out_fd:
                chunks[fd].append(chunk)
                size += len(chunk)
                if limit is not None and size > limit:
                    raise OutputTooLarge(size)
            elif err_size < ERR_KEPT:
                chunks[fd].append(chunk[: ERR_KEPT - err_size])
                err_size += len(chunk)
    return b"".join(chunks[out_fd]), b"".join(chunks[err_fd])
