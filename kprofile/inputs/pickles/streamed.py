"""A pickle handed to the unpickler a scanned piece at a time, from a regular file
or from a stream read once in order (a compressed file as it is decompressed).

Each piece (up to BLOCK bytes, read into one reused buffer) is scanned before any of
its bytes reach the unpickler, which is only ever given bytes the scan accepted, each
read from the source once: what was scanned is what is unpickled, whoever writes to
the file meanwhile. A payload the scan steps over (an array's bytes) goes from the
source straight into the unpickler's object. The data is never all in memory, and no
page is made for it but the buffer's: a result pickle costs its objects, not its
objects and its bytes, compressed or not.

Every read is at the offset the last one ended at (a piece keeps the unscanned end of
the one before and reads on after it), so a source need not seek: ``StreamedFile``
reads a file descriptor at offsets (``pread``), ``StreamedReader`` a decompressing
reader in order.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import Any, NoReturn, Protocol, cast

from kprofile.inputs.pickles.errors import RefusedPickle
from kprofile.inputs.pickles.scan import Scanner

BLOCK = 16 << 20
CHANGED = "refused: the file changed while it was read"
TRUNCATED = "not a valid pickle (Ran out of input)"


class Reader(Protocol):
    """What ``StreamedReader`` reads: a binary file object (a decompressor's)."""

    def read(self, size: int = -1, /) -> bytes: ...

    def readinto(self, buffer: Any, /) -> int: ...


class Streamed:
    """The unpickler's stream over at most ``size`` bytes of a source (subclasses:
    ``_fill``, ``_read``, ``_short``, ``finish``)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.scanner = Scanner(size)
        self.piece = bytearray()  # the source's bytes from offset base, scanned
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
        ones the scan stepped over read from the source into it directly."""
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
        """Checks once the unpickler has read to STOP."""

    def _fill(self, view: memoryview, offset: int) -> int:
        """Up to ``len(view)`` bytes of the source from ``offset`` into ``view``;
        their count, short only where the source ends."""
        raise NotImplementedError

    def _read(self, count: int, offset: int) -> bytes:
        """``count`` bytes of the source from ``offset`` (``_short`` if fewer)."""
        raise NotImplementedError

    def _short(self) -> NoReturn:
        """The refusal of a source that ended before a length the scan accepted."""
        raise NotImplementedError

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
        # a payload the scan stepped over, past the piece: from the source
        count, offset = end - self.at, self.at
        self.at = end
        if into is None:
            return self._read(count, offset)
        if self._fill(into[:count], offset) != count:
            self._short()
        return count

    def _advance(self) -> None:
        """Scan the next piece, from the scan's position (the unpickler has taken
        every byte scanned so far); a longer one where no opcode fits in it."""
        length = BLOCK
        while True:
            start = self.scanner.pos
            held = self.base + len(self.piece)  # at least what is held from start
            length = min(max(length, held - start), self.size - start)
            self.piece = self._piece(start, length)
            self.base = start
            final = len(self.piece) < length or start + length == self.size
            try:
                self.scanner.run(cast(bytes, self.piece), start, final)
            except IndexError:
                raise RefusedPickle(TRUNCATED) from None
            if self.scanner.pos > start or self.scanner.done:
                return
            length *= 2  # a text line longer than the piece

    def _piece(self, start: int, length: int) -> bytearray:
        """``length`` bytes of the source from ``start`` in the buffer (reused): the
        last piece's bytes from ``start`` on kept, the rest read after them; fewer
        where the source ends."""
        piece, held = self.piece, self.base + len(self.piece)
        kept = held - start if self.base <= start < held else 0
        if length > len(piece):
            grown = bytearray(length)
            grown[:kept] = piece[start - self.base : held - self.base]
            piece = grown
        else:
            piece[:kept] = piece[start - self.base : held - self.base]
            del piece[length:]
        with memoryview(piece) as view:
            got = kept + self._fill(view[kept:], start + kept)
        if got < length:
            del piece[got:]
        return piece


class StreamedFile(Streamed):
    """A regular file open as ``fd`` (``size`` bytes), read at offsets."""

    def __init__(self, fd: int, size: int) -> None:
        super().__init__(size)
        self.fd = fd

    def finish(self) -> None:
        """The file still holds ``size`` bytes, no more (it may not have grown)."""
        if os.fstat(self.fd).st_size != self.size or os.pread(self.fd, 1, self.size):
            raise RefusedPickle(CHANGED)

    def _fill(self, view: memoryview, offset: int) -> int:
        if len(view) and os.preadv(self.fd, [view], offset) != len(view):
            self._short()  # the file is shorter than it was
        return len(view)

    def _read(self, count: int, offset: int) -> bytes:
        data = os.pread(self.fd, count, offset)
        if len(data) != count:
            self._short()
        return data

    def _short(self) -> NoReturn:
        raise RefusedPickle(CHANGED)


class StreamedReader(Streamed):
    """A stream read once, in order (``reader``: a decompressing file object), of
    at most ``limit`` bytes: a stream with more is refused with ``too_large``, and
    ``errors`` from the reader (a corrupt stream) with ``invalid`` and the error."""

    def __init__(
        self,
        reader: Reader,
        limit: int,
        *,
        errors: tuple[type[Exception], ...],
        invalid: str,
        too_large: Callable[[], str],
    ) -> None:
        super().__init__(limit)
        self.reader, self.position = reader, 0
        self.errors, self.invalid, self.too_large = errors, invalid, too_large

    def finish(self) -> None:
        """From now on its length is that of the pickle read (the decoder's budget)."""
        self.size = self.at

    def _fill(self, view: memoryview, offset: int) -> int:
        assert offset == self.position, (offset, self.position)  # read in order
        done = 0
        with self._reading():
            while done < len(view):
                count = self.reader.readinto(view[done:])
                if not count:
                    break
                done += count
            self._took(done)
        return done

    def _read(self, count: int, offset: int) -> bytes:
        assert offset == self.position, (offset, self.position)  # read in order
        parts, left = [], count
        with self._reading():
            while left and (part := self.reader.read(left)):
                parts.append(part)
                left -= len(part)
            self._took(count - left)
        if left:
            self._short()
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def _took(self, count: int) -> None:
        """``count`` more bytes read: at the limit, the stream must end there."""
        self.position += count
        if self.position == self.size and self.reader.read(1):
            raise RefusedPickle(self.too_large())

    @contextlib.contextmanager
    def _reading(self) -> Iterator[None]:
        """The reader's errors (a corrupt stream) as one refusal."""
        try:
            yield
        except self.errors as exc:
            raise RefusedPickle(f"{self.invalid} ({exc})") from None

    def _short(self) -> NoReturn:
        raise RefusedPickle(TRUNCATED)
