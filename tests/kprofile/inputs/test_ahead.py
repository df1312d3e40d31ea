"""Work handed to threads ahead of the caller (``ahead.in_order``) comes back in the
order of its pieces whatever order it finishes in, with a bounded number of pieces
in flight; an error comes back at its piece's turn; closing early stops handing out
work. Spec decoding on threads makes exactly what one thread makes."""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

import kprofile.inputs.spec as spec_module
from kprofile.inputs.ahead import in_order


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_results_come_in_the_order_of_the_pieces(workers: int) -> None:
    second_done = threading.Event()
    finished: list[int] = []

    def work(piece: int) -> int:
        if piece == 0 and workers > 1:  # finishes after the piece behind it
            assert second_done.wait(5)
        finished.append(piece)
        if piece == 1:
            second_done.set()
        return piece * piece

    got = list(in_order(work, range(10), workers))
    assert got == [(i, i * i) for i in range(10)]
    assert (finished.index(1) < finished.index(0)) == (workers > 1)


@pytest.mark.parametrize(("workers", "ahead"), [(2, 1), (3, 1), (2, 0), (3, 2)])
def test_no_more_than_workers_plus_ahead_pieces_are_in_flight(
    workers: int, ahead: int
) -> None:
    started: list[int] = []
    lock = threading.Lock()

    def work(piece: int) -> int:
        with lock:
            started.append(piece)
        return piece

    for taken, (piece, _) in enumerate(in_order(work, range(20), workers, ahead)):
        time.sleep(0.002)  # the workers run ahead while the caller is slow
        with lock:
            assert max(started) <= taken + workers + ahead - 1
        assert piece == taken


def test_an_error_comes_back_at_its_pieces_turn() -> None:
    def work(piece: int) -> int:
        if piece == 3:
            raise ValueError("piece 3")
        return piece

    seen = []
    with pytest.raises(ValueError, match="piece 3"):
        for piece, _ in in_order(work, range(10), 2):
            seen.append(piece)
    assert seen == [0, 1, 2]


def test_closing_early_hands_out_no_more_work() -> None:
    started: list[int] = []

    def work(piece: int) -> int:
        started.append(piece)
        return piece

    results = in_order(work, range(1000), 2)
    next(results)
    results.close()
    count = len(started)
    time.sleep(0.05)
    assert len(started) == count <= 4


def _decoded(specs: list[Any]) -> tuple[Any, ...]:
    decoded = spec_module.expand_specs(specs)
    return (
        decoded.names,
        {n: (str(c.dtype), list(c)) for n, c in decoded.columns.items()},
        {n: c.tolist() for n, c in decoded.codes.items()},
    )


tokens = st.one_of(
    st.sampled_from(["BM=64", "BM=128", "$M=8", "S=ws", "S=ws_cooperative_long"]),
    st.from_regex(r"[A-C]=[0-9a-z]{0,12}", fullmatch=True),
    st.text("ab=/é\0", max_size=6),
)
rows = st.lists(tokens, max_size=5).map(lambda ts: "/".join(["stem", *ts]))


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.one_of(rows, st.none()), min_size=1, max_size=40))
def test_spec_chunks_on_threads_decode_as_on_one(specs: list[Any]) -> None:
    """Chunks of one to a few rows, their tokens found on three threads: the same
    names, columns, dtypes and codes as one chunk after another on this thread."""
    alone = _decoded(specs)
    old = (spec_module.CHUNK_ROWS, spec_module.THREADED_CHARS, spec_module.cores)
    spec_module.CHUNK_ROWS, spec_module.THREADED_CHARS = 3, 0
    spec_module.cores = lambda: 3
    try:
        assert _decoded(specs) == alone
    finally:
        spec_module.CHUNK_ROWS, spec_module.THREADED_CHARS, spec_module.cores = old


def test_a_long_column_is_decoded_on_threads_as_on_one(monkeypatch: Any) -> None:
    """Past THREADED_CHARS on a machine of several cores the chunks go to threads
    (the count of threads seen proves it) and decode as on one."""
    grid = [
        f"b/$M={m}/BM={bm}/S={s}"
        for m in range(40)
        for bm in (64, 128, 256)
        for s in ("ws", "default", "ws_cooperative")
    ]
    specs = grid * 30
    alone = _decoded(specs)
    seen: set[str] = set()
    tokens_of = spec_module.chunk_tokens

    def recorded(chunk: np.ndarray, lengths: np.ndarray) -> Any:
        seen.add(threading.current_thread().name)
        return tokens_of(chunk, lengths)

    monkeypatch.setattr(spec_module, "chunk_tokens", recorded)
    monkeypatch.setattr(spec_module, "CHUNK_ROWS", 256)
    monkeypatch.setattr(spec_module, "THREADED_CHARS", 10_000)
    monkeypatch.setattr(spec_module, "cores", lambda: 2)
    assert _decoded(specs) == alone
    assert len(seen) == 2 and threading.current_thread().name not in seen


def test_a_limit_hit_on_threads_leaves_no_thread_behind(monkeypatch: Any) -> None:
    """A spec limit raised while the next chunks are on worker threads: the error
    is the one a single thread gives, and the workers have ended by the time it
    reaches the caller (while its traceback, which holds the decoding frame, is
    still alive)."""
    specs = [f"b/A={i % 7}/B={i % 3}" for i in range(3000)]
    monkeypatch.setattr(spec_module, "MAX_CELLS", 2_000)
    monkeypatch.setattr(spec_module, "CHUNK_ROWS", 64)
    with pytest.raises(spec_module.SpecLimit) as alone:
        spec_module.expand_specs(specs)
    monkeypatch.setattr(spec_module, "THREADED_CHARS", 0)
    monkeypatch.setattr(spec_module, "cores", lambda: 2)
    with pytest.raises(spec_module.SpecLimit) as threaded:
        spec_module.expand_specs(specs)
    assert str(threaded.value) == str(alone.value)
    assert not [t for t in threading.enumerate() if t.name.startswith("kprofile")]
