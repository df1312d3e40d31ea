"""Path objects (kbench's ``file`` is a ``pathlib.Path``) as the text of the path.

``PurePath`` pickles as ``cls(*parts)``. The parts are checked to be a few short
strings and joined by ``PurePosixPath`` or ``PureWindowsPath`` by the flavour the file
named: pure paths never touch the file system, and nothing is resolved or opened.
"""

from __future__ import annotations

import pathlib

from kprofile.inputs.pickles.context import Context
from kprofile.inputs.pickles.errors import RefusedPickle
from kprofile.inputs.pickles.records import Call
from kprofile.inputs.pickles.values import check_text

MAX_PARTS = 256
MAX_PART = 4096
_FLAVOURS: dict[str, type[pathlib.PurePath]] = {
    "pathlib.PurePosixPath": pathlib.PurePosixPath,
    "pathlib.PureWindowsPath": pathlib.PureWindowsPath,
}


def path_text(ctx: Context, call: Call) -> str:
    """``PosixPath('/', 'home', 'k.mojo')`` -> ``'/home/k.mojo'``."""
    parts = call.args
    if call.kwargs or call.has_state or len(parts) > MAX_PARTS:
        raise RefusedPickle(f"refused a malformed {call.target}")
    if not all(type(p) is str and len(p) <= MAX_PART for p in parts):
        raise RefusedPickle(f"refused {call.target} of parts that are not short text")
    ctx.spend(elements=len(parts), nbytes=sum(map(len, parts)))
    return check_text(str(_FLAVOURS[call.target](*parts)))
