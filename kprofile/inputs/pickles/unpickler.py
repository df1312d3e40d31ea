"""Running the C unpickler over a scanned stream, with stand-ins for every global."""

from __future__ import annotations

import io
import mmap
import pickle
from typing import Any, NoReturn

from kprofile.inputs.pickles.errors import RefusedPickle, shown
from kprofile.inputs.pickles.names import resolve
from kprofile.inputs.pickles.records import Global
from kprofile.inputs.pickles.scan import scan


class _StandInUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> type[Global]:
        return resolve(module, name)

    def persistent_load(self, pid: Any) -> NoReturn:
        raise RefusedPickle(
            "refused persistent id: not part of a pandas DataFrame pickle"
        )


RELEASE_BYTES = 16 << 20  # a multiple of every page size


class _Releasing:
    """The unpickler's stream over a private anonymous mapping (``decode.read_pickle``
    reads the file into one), each 16 MiB handed back to the system once read past:
    the file's bytes and the objects built from them are not all in memory at once.
    The unpickler reads forwards only, so nothing reads a page handed back."""

    def __init__(self, buffer: mmap.mmap) -> None:
        self.buffer = buffer
        self.at = self.released = 0

    def read(self, size: int = -1) -> bytes:
        end = len(self.buffer) if size < 0 else min(self.at + size, len(self.buffer))
        out = self.buffer[self.at : end]
        self._advance(end)
        return out

    def readinto(self, target: Any) -> int:
        """A long value (an array's bytes) copied 16 MiB at a time, each handed back
        once copied: it costs its object, not its object and its bytes."""
        with memoryview(target) as into, memoryview(self.buffer) as source:
            with into.cast("B") as flat:
                size = min(flat.nbytes, len(self.buffer) - self.at)
                for done in range(0, size, RELEASE_BYTES):
                    step = min(size - done, RELEASE_BYTES)
                    flat[done : done + step] = source[self.at : self.at + step]
                    self._advance(self.at + step)
        return size

    def _advance(self, at: int) -> None:
        self.at = at
        if at - self.released >= 2 * RELEASE_BYTES:
            stop = at - at % RELEASE_BYTES
            self.buffer.madvise(mmap.MADV_DONTNEED, self.released, stop - self.released)
            self.released = stop

    def readline(self) -> bytes:
        end = self.buffer.find(b"\n", self.at)
        return self.read(-1 if end < 0 else end + 1 - self.at)


def unpickle(data: bytes | mmap.mmap) -> Any:
    """The object tree of ``data``: built-in values and ``Call`` records, nothing run.

    The stream is scanned first (lengths, memo indices and dict sizes are bounded by
    the file), then read from memory, so no field can make the unpickler allocate more
    than the file holds.
    """
    scan(data)
    stream = _Releasing(data) if isinstance(data, mmap.mmap) else io.BytesIO(data)
    try:
        return _StandInUnpickler(stream).load()
    except (RefusedPickle, MemoryError):  # out of memory: this machine's, not a fault
        raise
    except (pickle.UnpicklingError, EOFError) as exc:
        raise RefusedPickle(f"not a valid pickle ({exc or 'truncated'})") from None
    except Exception as exc:  # a malformed stream: any error of an opcode's checks
        reason = f"{type(exc).__name__}: {exc}"
        raise RefusedPickle(f"not a valid pickle ({shown(reason)[1:-1]})") from None
