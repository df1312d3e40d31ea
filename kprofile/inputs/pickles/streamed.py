"""A regular file handed to the unpickler a scanned piece at a time.

Each piece (BLOCK bytes, read into one reused buffer) is scanned before any of its
bytes reach the unpickler, which is only ever given bytes the scan accepted, each
read from the file once: what was scanned is what is unpickled, whoever writes to
the file meanwhile. A payload the scan steps over (an array's bytes) goes from the
file straight into the unpickler's object. The file is never all in memory, and no
page is made for it but the buffer's: a result pickle costs its objects, not its
objects and its bytes.
"""

from __future__ import annotations

import os
from typing import Any, cast

from kprofile.inputs.pickles.errors import RefusedPickle
from kprofile.inputs.pickles.scan import Scanner

BLOCK = 16 << 20
CHANGED = "refused: the file changed while it was read"


class StreamedFile:
    """The unpickler's stream over the file open as ``fd`` (``size`` bytes)."""

    def __init__(self, fd: int, size: int) -> None:
        self.fd, self.size = fd, size
        self.scanner = Scanner(size)
        self.piece = bytearray()  # the file's bytes from offset base, scanned
        self.base = self.at = 0  # at: the unpickler's offset

    def __len__(self) -> int:
        return self.size

    def read(self, size: int = -1) -> bytes:
        wanted = self.size - self.at if size < 0 else size
        parts = []
        while wanted > 0:
            part = self._next(wanted, "read")
            if not part:
                break
            parts.append(part)
            wanted -= len(part)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def readinto(self, target: Any) -> int:
        """Long values (an array's bytes) copied into ``target`` as they come, the
        ones the scan stepped over read from the file into it directly."""
        with memoryview(target) as into, into.cast("B") as flat:
            done = 0
            while done < len(flat):
                count = self._next(len(flat) - done, "into", flat[done:])
                if not count:
                    break
                done += count
            return done

    def readline(self) -> bytes:
        parts = []
        while True:
            part = self._next(self.size, "line")
            parts.append(part)
            if not part or part.endswith(b"\n"):
                return b"".join(parts)

    def finish(self) -> None:
        """The file still holds ``size`` bytes, no more (it may not have grown)."""
        if os.fstat(self.fd).st_size != self.size or os.pread(self.fd, 1, self.size):
            raise RefusedPickle(CHANGED)

    def _next(self, wanted: int, mode: str, into: Any = None) -> Any:
        """Up to ``wanted`` bytes from the unpickler's offset, never past what the
        scan accepted: as bytes (``read``; ``line``: up to a newline), or copied
        into the memoryview ``into``, and then their count (``into``)."""
        if self.at >= self.scanner.pos:
            if self.scanner.done:
                return 0 if mode == "into" else b""
            self._advance()
        end = min(self.at + wanted, self.scanner.pos)
        held = self.base + len(self.piece)
        if self.at < held:  # scanned bytes in the piece
            start, stop = self.at - self.base, min(end, held) - self.base
            if mode == "line":
                found = self.piece.find(b"\n", start, stop)
                stop = stop if found < 0 else found + 1
            self.at += stop - start
            if mode == "into":
                into[: stop - start] = self.piece[start:stop]
                return stop - start
            return bytes(self.piece[start:stop])
        # a payload the scan stepped over, past the piece: from the file
        part = _read_at(self.fd, end - self.at, self.at, into)
        self.at = end
        return part

    def _advance(self) -> None:
        """Scan the next piece, from the scan's position (the unpickler has taken
        every byte scanned so far); a longer one where no opcode fits in it."""
        length = BLOCK
        while True:
            start = self.scanner.pos
            length = min(length, self.size - start)
            self.piece = self._piece(start, length)
            self.base = start
            try:
                self.scanner.run(
                    cast(bytes, self.piece), start, start + length == self.size
                )
            except IndexError:
                raise RefusedPickle("not a valid pickle (Ran out of input)") from None
            if self.scanner.pos > start or self.scanner.done:
                return
            length *= 2  # a text line longer than the piece

    def _piece(self, start: int, length: int) -> bytearray:
        """``length`` bytes of the file from ``start`` in the buffer (reused)."""
        piece = self.piece
        if len(piece) != length:
            piece = bytearray(length) if length > len(piece) else piece[:length]
        with memoryview(piece) as view:
            if os.preadv(self.fd, [view], start) != length:
                raise RefusedPickle(CHANGED)
        return piece


def _read_at(fd: int, count: int, offset: int, into: Any) -> Any:
    """``count`` bytes of the file at ``offset``: into ``into`` (a memoryview) and
    their count, or as bytes (``into`` None); a file shorter than that has
    changed."""
    if into is None:
        data = os.pread(fd, count, offset)
        if len(data) != count:
            raise RefusedPickle(CHANGED)
        return data
    if os.preadv(fd, [into[:count]], offset) != count:
        raise RefusedPickle(CHANGED)
    return count
