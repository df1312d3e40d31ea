"""Writing several files all or nothing: the one writer of both tools.

    write_atomic([(path, text_or_bytes), ...])  # lock, stage, check, rename

or, for a caller that holds the locks and planned from known contents:

    with Transaction() as transaction:
        transaction.stage(shown, real, new_text, old=old_text)  # a complete temporary
        ...
        transaction.commit()  # check every target is unchanged, then rename them all

``stage`` writes the new text (or bytes) to ``.<name>.tuning-codegen-<pid>.tmp`` beside
the target (a name too long for that is cut and given a hash), with the target's mode,
owner and group (where permitted) and extended attributes (ACLs, SELinux labels: one
warning for those it cannot give), and syncs it to disk.
``commit`` checks that every target still holds the text it was planned from, then
puts every temporary in place (``renames``: swapped with its target, so that an edit
saved in between is seen); if a rename fails, or a target was edited in between, the
targets already renamed get their old file back, the edit included, and the run fails
with ``path: error: changed by another program while it was being replaced; ...``.
Leaving the block any other way (an error, or a signal whose
default action ends the process: SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2,
SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGIO, SIGPWR and the real-time signals)
removes the temporaries, so every target stays as it was. Between the first and the
last rename every signal that can be blocked is blocked (the faults SIGSEGV, SIGBUS,
SIGABRT ... sent by another process included): it waits until every rename is done
(or undone), then ends the run. A ``kill -9`` can leave
temporaries behind, never a partial target; ``remove_stale_temporaries`` removes those
of processes that no longer run. Callers hold the targets' locks (``locks``).
"""

from __future__ import annotations

import os
import signal
import stat
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from types import FrameType, TracebackType
from typing import Any, NamedTuple

from tuning_codegen.errors import InputError, InputErrors, Interrupted, warn
from tuning_codegen.locks import locked
from tuning_codegen.renames import Old, edited, exchange, held_old, read_all
from tuning_codegen.signals import SIGNALS, block_signals
from tuning_codegen.targetfiles import (
    cannot_write,
    copy_attributes,
    copy_metadata,
    no_temporary,
    writable_target,
    write_all,
)
from tuning_codegen.tempfiles import (
    MAX_NAME_BYTES,
    TEMP_MARK,
    remove_quietly,
    remove_stale_temporaries,
    sync_folders,
    temporary_path,
)

__all__ = [
    "MAX_NAME_BYTES",
    "cannot_write",
    "TEMP_MARK",
    "Transaction",
    "remove_stale_temporaries",
    "temporary_path",
    "write_atomic",
    "write_locked",
    "write_text_atomic",
]

EDITED = (
    "changed by another program while it was being replaced; it is kept as that "
    "program left it, and nothing was written: run again"
)
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
Content = str | bytes  # text is written as UTF-8


def _encoded(content: Content) -> bytes:
    return content.encode("utf-8") if isinstance(content, str) else content


@dataclass(frozen=True)
class _Staged:
    shown: str
    real: str
    temp: str
    old: bytes | None
    info: os.stat_result | None


class _Placed(NamedTuple):
    staged: _Staged
    old: Old | None  # the target's file before the rename, held open
    aside: str | None  # the name holding it after an exchange (the temporary's)


class Transaction:
    def __init__(self, *, handle_signals: bool = True) -> None:
        self._handle_signals = handle_signals
        self._staged: list[_Staged] = []
        self._temps: list[str] = []  # created and not renamed yet
        self._handlers: dict[int, Any] = {}
        self._deferring = False
        self._pending: int | None = None

    def __enter__(self) -> Transaction:
        for signum in SIGNALS if self._handle_signals else ():
            try:
                previous = signal.getsignal(signum)
                if previous is signal.SIG_IGN:
                    continue  # ignored by whoever started us: it stays ignored
                signal.signal(signum, self._on_signal)
            except (ValueError, OSError):  # not the main thread, or not settable
                continue
            self._handlers[signum] = previous
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._deferring = True
        try:
            for temp in self._temps:
                remove_quietly(temp)
            self._temps.clear()
        finally:
            for signum, previous in self._handlers.items():
                signal.signal(signum, signal.SIG_DFL if previous is None else previous)
        if self._pending is not None and kind is None:
            raise Interrupted(self._pending)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        if self._deferring or self._pending is not None:
            self._pending = self._pending or signum
            return
        self._pending = signum
        raise Interrupted(signum)

    def stage(
        self, shown: str, real: str, text: Content, *, old: Content | None = None
    ) -> None:
        """Write ``text`` to a temporary file beside ``real`` (shown as ``shown``).

        ``old``: the content ``real`` was planned from; ``commit`` checks it is
        unchanged and, if a later rename fails, puts it back. Text is UTF-8.
        """
        info = writable_target(shown, real)
        temp = temporary_path(real, os.getpid())
        remove_quietly(temp)  # left by an earlier process that had our pid
        self._temps.append(temp)  # before it exists: a signal may come at any time
        try:
            fd = os.open(temp, _CREATE, 0o600)
        except OSError as exc:
            raise no_temporary(shown, exc) from None
        try:
            write_all(fd, _encoded(text))
            copy_metadata(fd, info)
            lost = None if info is None else copy_attributes(shown, real, fd)
            os.fsync(fd)
        except OSError as exc:
            raise cannot_write(shown, exc) from None
        finally:
            os.close(fd)
        warn([lost] if lost is not None else [])
        planned = None if old is None else _encoded(old)
        self._staged.append(_Staged(shown, real, temp, planned, info))

    def commit(self) -> None:
        """Put every staged file in place, or change none of the targets: each must
        hold the text it was planned from, before the renames and (its old file
        compared, ``renames``) after them; an edit saved meanwhile is put back."""
        with ExitStack() as olds:
            held: list[Old | None] = []
            for staged in self._staged:
                held.append(held_old(staged.shown, staged.real, staged.old))
                if held[-1] is not None:
                    olds.callback(os.close, held[-1].fd)
            placed = self._place_all(held)
        sync_folders({os.path.dirname(p.staged.real) for p in placed})
        if self._pending is not None:
            raise Interrupted(self._pending)

    def _place_all(self, held: list[Old | None]) -> list[_Placed]:
        """Rename every temporary into place with signals held back; undo them all
        if one fails or a target was edited meanwhile."""
        self._deferring = True  # a signal waits until every rename is done or undone
        mask = block_signals() if self._handle_signals else None
        placed: list[_Placed] = []
        try:
            for staged, old in zip(self._staged, held):
                try:
                    placed.append(self._place(staged, old))
                except FileNotFoundError:  # deleted meanwhile
                    _undo(placed)
                    raise InputError(staged.shown, EDITED) from None
                except OSError as exc:
                    _undo(placed)
                    raise cannot_write(staged.shown, exc) from None
            changed = [p.staged.shown for p in placed if edited(p.old, p.aside)]
            if changed:
                _undo(placed)
                raise InputErrors(InputError(shown, EDITED) for shown in changed)
            for aside in [p.aside for p in placed if p.aside is not None]:
                remove_quietly(aside)  # what the target was: as planned, replaced
                self._temps.remove(aside)
        finally:
            if mask is not None:  # what came meanwhile is delivered now
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            self._deferring = False
        return placed

    def _place(self, staged: _Staged, old: Old | None) -> _Placed:
        """Swap the temporary with its target where it can (the temporary's name
        then holds the old file), else rename it over the target."""
        if old is not None and exchange(staged.temp, staged.real):
            return _Placed(staged, old, staged.temp)
        os.replace(staged.temp, staged.real)
        self._temps.remove(staged.temp)
        return _Placed(staged, old, None)


def _undo(placed: list[_Placed]) -> None:
    """Put back what every target placed was (best effort): the old file swapped
    back where it was exchanged, else its bytes as they are now written again."""
    for done in reversed(placed):
        staged = done.staged
        try:
            if done.aside is not None:
                exchange(done.aside, staged.real)
            elif staged.info is None:
                os.unlink(staged.real)  # a new file
            else:
                again = staged.old if done.old is None else read_all(done.old.fd)
                if again is None:
                    continue  # staged with nothing to put back
                with Transaction(handle_signals=False) as undo:
                    undo.stage(staged.shown, staged.real, again)
                    undo.commit()
        except (OSError, InputError):
            continue


def write_atomic(files: Sequence[tuple[str | os.PathLike[str], Content]]) -> list[str]:
    """Replace every path with its content, all of them or none; the paths written.

    Each target is locked (sorted real paths) for the whole write. A symlink is
    written through (the link is kept, its destination replaced); the mode, and the
    owner and group where permitted, are kept. An existing target is staged with its
    current content, so a rename failing midway puts back the targets already
    renamed. A read-only file, a file that is not a regular file and a path inside a
    ``.git`` folder are refused with ``path: error: cannot write: ...``.
    """
    named = [(os.fspath(path), os.path.realpath(path), data) for path, data in files]
    with locked([real for _, real, _ in named]):
        write_locked([(s, real, data, _current(s, real)) for s, real, data in named])
    return [shown for shown, _, _ in named]


def write_locked(files: Sequence[tuple[str, str, Content, Content | None]]) -> None:
    """For a caller that holds the targets' locks: each ``(shown, real, new, old)``
    replaced all or nothing, after checking that ``real`` still holds ``old`` (None:
    nothing to check: a new file). The compare-and-swap of a read-edit-write."""
    remove_stale_temporaries([real for _, real, _, _ in files])
    with Transaction() as transaction:
        for shown, real, data, old in files:
            transaction.stage(shown, real, data, old=old)
        transaction.commit()


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """``write_atomic`` of one file."""
    write_atomic([(path, text)])


def _current(shown: str, real: str) -> bytes | None:
    """The bytes ``real`` holds now (None: no such file); what is not a regular
    file is left for ``stage`` to refuse."""
    try:
        fd = os.open(
            real, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
        )  # a FIFO: no wait
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise cannot_write(shown, exc) from None
    with open(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return handle.read()
