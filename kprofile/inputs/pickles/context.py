"""One decode of a recorded tree: its budget, nesting depth and the handlers by target.

Every element visited and every byte allocated is counted against limits derived from
the file size, so shared references (the memo) cannot turn a small file into a large
walk, and nesting is bounded explicitly instead of by Python's recursion limit.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sized
from contextlib import contextmanager
from typing import Any

from kprofile.inputs.pickles.errors import RefusedPickle, shown
from kprofile.inputs.pickles.records import Call, Global

MAX_DEPTH = 64  # a DataFrame is about 12 levels deep; metadata is flat
BYTES_PER_FILE_BYTE = 8
BYTES_BASE = 64 * 2**20
ELEMENTS_BASE = 100_000
MAX_INT_BITS = 2048  # about 600 decimal digits

Handler = Callable[["Context", Call], Any]


class Context:
    """What one file may still spend, and how to decode a value of any kind."""

    def __init__(
        self,
        data: Sized,  # the stream's bytes (or the mapping holding them)
        handlers: Mapping[str, Handler],
        shared: Collection[str] = (),
    ) -> None:
        self.bytes_left = BYTES_PER_FILE_BYTE * len(data) + BYTES_BASE
        self.elements_left = len(data) + ELEMENTS_BASE
        self.depth = 0
        self.frames = 0
        self._handlers = handlers
        self._shared = shared
        # Immutable values (timestamps, dates, zones) decoded once per record: a
        # column can refer to one record a million times through the memo.
        self._done: dict[int, tuple[Call, Any]] = {}

    def spend(self, *, elements: int = 0, nbytes: int = 0) -> None:
        """Count work and memory; refuse once either exceeds what the file allows."""
        self.elements_left -= elements
        self.bytes_left -= nbytes
        if self.elements_left < 0:
            raise RefusedPickle(
                "refused: more elements than the file holds (shared references?)"
            )
        if self.bytes_left < 0:
            raise RefusedPickle(
                f"refused: decoding would need over {BYTES_PER_FILE_BYTE}x the file "
                "size in memory"
            )

    @contextmanager
    def nested(self) -> Iterator[None]:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise RefusedPickle(f"refused: nested deeper than {MAX_DEPTH} levels")
        try:
            yield
        finally:
            self.depth -= 1

    def call(self, value: Any, *targets: str) -> Call:
        """``value`` as a Call of one of ``targets``, or a refusal naming what it is."""
        if isinstance(value, Call) and value.target in targets:
            return value
        raise RefusedPickle(f"expected {' or '.join(targets)}, found {describe(value)}")

    def handle(self, call: Call) -> Any:
        """Decode a recorded call with the handler for its target."""
        handler = self._handlers.get(call.target)
        if handler is None:
            raise RefusedPickle(
                f"refused {shown(call.target)} here: not a result value"
            )
        self.elements_left -= 1
        if self.elements_left < 0:
            self.spend()  # raises
        self.depth += 1  # as nested(), without a generator per cell
        if self.depth > MAX_DEPTH:
            raise RefusedPickle(f"refused: nested deeper than {MAX_DEPTH} levels")
        try:
            if call.target not in self._shared:
                return handler(self, call)
            done = self._done.get(id(call))
            if done is None:
                done = self._done[id(call)] = (call, handler(self, call))
            return done[1]
        finally:
            self.depth -= 1


def describe(value: Any) -> str:
    """A short name for what a value is, for messages."""
    if isinstance(value, Call):
        return value.target
    if isinstance(value, type) and issubclass(value, Global):
        return value.target
    return type(value).__name__
