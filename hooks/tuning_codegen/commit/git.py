"""Running git itself: bytes out, NUL-separated names in, one clean error per failure.

The code generator asks git only through here (``--hook``'s index check, ``--since``).
git runs in the environment it was given, so inside a git hook it sees the index git
prepared (``GIT_INDEX_FILE``), with messages in English (they are quoted in errors).
Names come back raw (``-z``) and are decoded as file names are (``os.fsdecode``), so a
name holding a newline or bytes of another encoding round-trips.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import NamedTuple

from tuning_codegen.errors import InputError
from tuning_codegen.process import OutputTooLarge, spawn


class GitResult(NamedTuple):
    code: int
    out: bytes
    why: str  # the first line of what git printed on stderr ("" if nothing)


# Paths git takes from the environment; git resolves a relative one against the
# folder it starts in (a hook gets GIT_INDEX_FILE=.git/index), and this tool starts git
# in the repository's root, which need not be the folder it was itself started in.
PATH_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY")


def git_environment() -> dict[str, str]:
    """The environment git runs in: ours, in English, its paths made absolute."""
    env = {**os.environ, "LC_ALL": "C", "LANGUAGE": "C"}
    for name in PATH_VARIABLES:
        if env.get(name):
            env[name] = os.path.abspath(env[name])
    return env


def run_git(
    args: Sequence[str],
    cwd: str,
    *,
    feature: str,
    input: bytes = b"",
    limit: int | None = None,
) -> GitResult:
    """``git ARGS`` in ``cwd``; ``feature`` (``--hook``, ``--since``) names errors.
    ``input``: what git reads on stdin; ``limit``: the most bytes of output taken
    (more is an error naming the feature)."""
    try:
        code, out, err = spawn(
            ["git", "-C", cwd, *args], git_environment(), input=input, limit=limit
        )
    except FileNotFoundError:
        raise InputError(cwd, f"{feature}: git is not installed") from None
    except OutputTooLarge:
        raise InputError(
            cwd, f"{feature}: git printed more than {limit} bytes; a file is too large"
        ) from None
    except OSError as exc:
        raise InputError(cwd, f"{feature}: cannot run git: {exc.strerror}") from None
    lines = os.fsdecode(err).strip().splitlines()
    return GitResult(code, out, lines[0] if lines else "")


def git_output(
    args: Sequence[str],
    cwd: str,
    *,
    feature: str,
    input: bytes = b"",
    limit: int | None = None,
) -> bytes:
    """What ``git ARGS`` prints; its failure is ``feature: git CMD: <git's line>``."""
    result = run_git(args, cwd, feature=feature, input=input, limit=limit)
    if result.code != 0:
        command = next(a for a in args if not a.startswith("-"))
        raise InputError(cwd, f"{feature}: git {command}: {result.why or 'failed'}")
    return result.out


def names(out: bytes) -> list[str]:
    """The NUL-terminated names of ``-z`` output, decoded as file names are."""
    return [os.fsdecode(name) for name in out.split(b"\0") if name]
