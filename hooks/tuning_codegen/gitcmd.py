"""Running git itself: bytes out, NUL-separated names in, one clean error per failure.

The code generator asks git only through here (``--hook``'s index check, ``--since``).
git runs in the environment it was given, so inside a git hook it sees the index git
prepared (``GIT_INDEX_FILE``), with messages in English (they are quoted in errors).
Names come back raw (``-z``) and are decoded as file names are (``os.fsdecode``), so a
name holding a newline or bytes of another encoding round-trips.
"""

from __future__ import annotations

import os
import select
from collections.abc import Sequence
from typing import NamedTuple

from tuning_codegen.errors import InputError


class GitResult(NamedTuple):
    code: int
    out: bytes
    why: str  # the first line of what git printed on stderr ("" if nothing)


def run_git(args: Sequence[str], cwd: str, *, feature: str) -> GitResult:
    """``git ARGS`` in ``cwd``; ``feature`` (``--hook``, ``--since``) names errors."""
    env = {**os.environ, "LC_ALL": "C", "LANGUAGE": "C"}
    try:
        code, out, err = spawn(["git", "-C", cwd, *args], env)
    except FileNotFoundError:
        raise InputError(cwd, f"{feature}: git is not installed") from None
    except OSError as exc:
        raise InputError(cwd, f"{feature}: cannot run git: {exc.strerror}") from None
    lines = os.fsdecode(err).strip().splitlines()
    return GitResult(code, out, lines[0] if lines else "")


def spawn(argv: Sequence[str], env: dict[str, str]) -> tuple[int, bytes, bytes]:
    """Run ``argv`` (found on PATH) with no input; its exit code, stdout and stderr.

    ``posix_spawn`` and two pipes rather than ``subprocess``, whose import alone
    costs a no-op hook run a tenth of its time."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    try:
        pid = os.posix_spawnp(
            argv[0],
            list(argv),
            env,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, out_w, 1),
                (os.POSIX_SPAWN_DUP2, err_w, 2),
            ],
        )
    except BaseException:
        for fd in (out_r, err_r):
            os.close(fd)
        raise
    finally:
        for fd in (out_w, err_w):
            os.close(fd)
    try:
        out, err = _read_both(out_r, err_r)
    finally:
        os.close(out_r)
        os.close(err_r)
        _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out, err


def _read_both(out_fd: int, err_fd: int) -> tuple[bytes, bytes]:
    """Everything written to two pipes, read as it comes (neither can fill up)."""
    chunks: dict[int, list[bytes]] = {out_fd: [], err_fd: []}
    poller = select.poll()
    for fd in chunks:
        poller.register(fd, select.POLLIN)
    open_fds = set(chunks)
    while open_fds:
        for fd, _ in poller.poll():
            chunk = os.read(fd, 1 << 16)
            if chunk:
                chunks[fd].append(chunk)
            else:
                poller.unregister(fd)
                open_fds.discard(fd)
    return b"".join(chunks[out_fd]), b"".join(chunks[err_fd])


def git_output(args: Sequence[str], cwd: str, *, feature: str) -> bytes:
    """What ``git ARGS`` prints; its failure is ``feature: git CMD: <git's line>``."""
    result = run_git(args, cwd, feature=feature)
    if result.code != 0:
        command = next(a for a in args if not a.startswith("-"))
        raise InputError(cwd, f"{feature}: git {command}: {result.why or 'failed'}")
    return result.out


def names(out: bytes) -> list[str]:
    """The NUL-terminated names of ``-z`` output, decoded as file names are."""
    return [os.fsdecode(name) for name in out.split(b"\0") if name]
