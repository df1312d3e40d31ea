"""Derived files in an output folder (the ``-d`` CSVs, the ``-c`` heatmap, the
``--plot`` charts): written all of them or none, and never through a symbolic link.

A name in an output folder is kprofile's to make, and an output folder may be shared
(``/tmp``): a symbolic link planted at ``correlation.png`` must not make kprofile
write its bytes into whatever file the link points at. So a link at a file's name is
replaced by the file (the link itself, never its destination, which is not opened,
locked or read), and each replaced link is said on stderr (``Written.notes``). The
folder itself is the user's choice and is followed. (Targets of the code generator
and manifests that ``--update`` edits are different: those are written through a
link, as documented.)

The writing is the code generator's one writer (``tuning_codegen.transaction``):
every file is staged in full beside its name, and all are renamed only when all are
complete; a failure or a signal before the last rename leaves every name as it was,
a replaced link included (it is made again).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from kprofile.errors import KprofileError
from tuning_codegen.errors import InputWarning, Location
from tuning_codegen.locks import locked
from tuning_codegen.transaction import Transaction, remove_stale_temporaries


class Written(NamedTuple):
    """The files written, in order, and a line for stderr per link replaced."""

    paths: tuple[str, ...]
    notes: tuple[str, ...] = ()


def check_folder(folder: str, flag: str) -> None:
    """Refuse, before anything runs, an output folder that cannot be made: ``folder``
    a file (``File exists``), or below one (``Not a directory``), as ``created``
    would say when it came to it."""
    path = Path(folder)
    for part in (path, *path.parents):
        if part.exists() or part.is_symlink():
            if part.is_dir():
                return
            code = errno.EEXIST if part == path else errno.ENOTDIR
            raise KprofileError(folder, f"{flag}: cannot create: {os.strerror(code)}")


def created(folder: str, flag: str) -> Path:
    """``folder``, made with its parents if missing (``--out-dir``, ``--plot``,
    ``--report``'s and ``-o``'s folder), when the files are about to be written."""
    path = Path(folder)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise KprofileError(folder, f"{flag}: cannot create: {exc.strerror}") from None
    return path


def write_derived(files: Mapping[Path, bytes]) -> Written:
    """Write ``files`` (path -> content) all or none, replacing any symbolic link at
    their names (module docstring)."""
    named = [
        (os.fspath(path), _beside(os.fspath(path)), data)
        for path, data in files.items()
    ]
    reals = [real for _, real, _ in named]
    links: dict[str, tuple[str, str]] = {}  # real -> (shown, what it pointed at)
    with locked([r for r in reals if not os.path.islink(r)]):
        remove_stale_temporaries(reals)
        with Transaction() as transaction:
            try:
                for shown, real, data in named:
                    if os.path.islink(real):
                        links[real] = (shown, os.readlink(real))
                        os.unlink(real)
                    transaction.stage(shown, real, data, old=_regular_bytes(real))
                transaction.commit()
            except BaseException:
                _make_again(links)
                raise
    notes = tuple(
        str(
            InputWarning(
                Location(shown),
                f"was a symbolic link (to {target}); replaced it with the file "
                "rather than writing through it",
            )
        )
        for shown, target in links.values()
    )
    return Written(tuple(shown for shown, _, _ in named), notes)


def _beside(path: str) -> str:
    """``path`` in its folder's real location, its last component as it is (a
    link there is the link, not its destination)."""
    folder, name = os.path.split(path)
    return os.path.join(os.path.realpath(folder or "."), name)


def _regular_bytes(real: str) -> bytes | None:
    """What a regular file at ``real`` holds (put back if a later rename fails);
    None for no file, or for what the writer refuses (a folder, a FIFO)."""
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    with open(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return handle.read()


def _make_again(links: Mapping[str, tuple[str, str]]) -> None:
    """The links replaced, back where nothing took their place (best effort)."""
    for real, (_, target) in links.items():
        try:
            if not os.path.lexists(real):
                os.symlink(target, real)
        except OSError:
            continue
