"""Work on the next pieces of a column done by worker threads while the caller takes
the current one: numpy's passes and pandas' hash tables release the GIL, so on a
machine with more than one core the tokens of chunk n+1 are found while the decoder
numbers chunk n's. Results come back in the order of the pieces, so what is made
from them is the same as one piece after another would make it (the work handed out
must be a function of its piece alone). At most ``workers + ahead`` pieces are in
flight (``ahead``): memory stays that of a few pieces, however long the column.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Generator, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

Piece = TypeVar("Piece")
Result = TypeVar("Result")

MAX_WORKERS = 4  # the GIL-held parts (joins, dict lookups) gain nothing past a few


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def in_order(
    work: Callable[[Piece], Result],
    pieces: Iterable[Piece],
    workers: int,
    ahead: int = 1,
) -> Generator[tuple[Piece, Result], None, None]:
    """Each piece with ``work(piece)``, in order; with ``workers`` > 1 the next
    pieces' work runs on that many threads, at most ``workers + ahead`` pieces in
    flight (``ahead`` 1: one waits ready while the caller takes another; 0 where
    the caller only collects, and memory counts). Closing the iterator early (an
    error in the caller) cancels what has not started and waits for what has."""
    if workers < 2:
        for piece in pieces:
            yield piece, work(piece)
        return
    pool = ThreadPoolExecutor(min(workers, MAX_WORKERS), "kprofile")
    pending: deque[tuple[Piece, Future[Result]]] = deque()
    try:
        for piece in pieces:
            pending.append((piece, pool.submit(work, piece)))
            if len(pending) >= workers + ahead:
                done, future = pending.popleft()
                yield done, future.result()
        while pending:
            done, future = pending.popleft()
            yield done, future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
