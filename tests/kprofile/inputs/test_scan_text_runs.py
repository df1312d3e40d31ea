"""The scan reads runs of memoized short texts (a column of spec strings) a window
at a time with numpy (``textruns.TextRuns``): it must accept and refuse exactly what
the one-opcode-at-a-time walk does, at every window size, through the FRAMEs the
pickler cuts into a run and the APPENDS that end one every 1,000 items, for texts
whose UTF-8 holds the bytes of a unit's start (94 8C: ``'┌'`` is E2 94 8C), for
streams cut off anywhere and with the budgets the walk checks at each FRAME spent."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from kprofile.inputs.pickles import scan as scan_module
from kprofile.inputs.pickles import textruns
from kprofile.inputs.pickles.errors import RefusedPickle
from kprofile.inputs.pickles.scan import scan
from kprofile.inputs.pickles.unpickler import unpickle


def _outcome(data: bytes) -> str:
    try:
        scan(data)
    except RefusedPickle as exc:
        return f"refused: {exc}"
    return "accepted"


def _stepped(data: bytes) -> str:
    """The outcome with numpy's runs switched off: the walk steps every opcode."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            textruns.TextRuns, "take", lambda self, at, *_: (0, 0, at, len(self.data))
        )
        return _outcome(data)


def _windowed(data: bytes, window: int, min_run: int) -> str:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(textruns, "WINDOW", window)
        patch.setattr(textruns, "MIN_RUN", min_run)
        return _outcome(data)


def _column(texts: list[str], protocol: int) -> bytes:
    """Distinct text objects, so the pickler memoizes each: kbench's spec column as
    numpy pickles it."""
    return pickle.dumps(np.array(texts, dtype=object), protocol=protocol)


alphabet = st.sampled_from("ab/=┌\u0394\u8c94\x94\x8c")


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(st.text(alphabet, max_size=40), max_size=60),
    st.sampled_from([2, 3, 4, 5]),
    st.integers(13, 400),
    st.sampled_from([1, 2, 32]),
    st.data(),
)
def test_windows_find_what_single_steps_find(
    texts: list[str], protocol: int, window: int, min_run: int, data: Any
) -> None:
    stream = _column(texts, protocol)
    cut = data.draw(st.integers(0, len(stream)))
    for candidate in (stream, stream[:cut]):
        expected = _stepped(candidate)
        assert _windowed(candidate, window, min_run) == expected
        assert _outcome(candidate) == expected
    assert _outcome(stream) == "accepted"


@pytest.mark.parametrize("protocol", [4, 5])
@pytest.mark.parametrize("window", [200, 70_000, 1 << 20])
def test_framed_runs_over_many_appends_unpickle_whole(
    protocol: int, window: int, monkeypatch: Any
) -> None:
    """12,000 texts of ~60 bytes: FRAMEs inside runs and APPENDS between them; some
    texts hold a unit's start. The stream is accepted and unpickles to the column."""
    texts = [
        f"bench/{'┌' * (i % 4)}$M={i}/BM={i % 7}/S=ws_{i % 5:03d}"
        for i in range(20_000)
    ]
    stream = pickle.dumps(texts, protocol=protocol)  # as numpy pickles its items
    assert stream.count(b"\x94\x95") >= 5  # FRAMEs cut into runs
    monkeypatch.setattr(textruns, "WINDOW", window)
    assert unpickle(stream) == texts
    cuts = range(0, len(stream), len(stream) // 31)
    for cut in cuts:
        assert _outcome(stream[:cut]) == _stepped(stream[:cut])


def test_a_spent_budget_at_a_frame_is_refused_as_the_walk_refuses(
    monkeypatch: Any,
) -> None:
    """The rare-opcode budget (each FRAME spends one) and the cost budget made small
    enough to run out anywhere in the stream, FRAMEs inside runs included: both
    ways give the same outcome."""
    stream = _column([f"text-{i:06d}-" * 3 for i in range(4_000)], 5)
    monkeypatch.setattr(textruns, "WINDOW", 4096)
    outcomes = set()
    for slow in range(40):
        monkeypatch.setattr(scan_module, "_budgets", lambda size, s=slow: (10**12, s))
        outcomes.add(_outcome(stream))
        assert _outcome(stream) == _stepped(stream), slow
    for limit in range(0, 500_000, 10_000):
        monkeypatch.setattr(scan_module, "_budgets", lambda size, c=limit: (c, 10**6))
        outcomes.add(_outcome(stream))
        assert _outcome(stream) == _stepped(stream), limit
    assert len(outcomes) == 3  # accepted, and each budget's refusal


def test_a_run_takes_no_frame_the_walk_would_refuse() -> None:
    """``take`` stops before the FRAME where the walk's rare-opcode budget or its
    cost budget would run out (the walk checks both at each FRAME), so the walk
    meets the refusal at the FRAME itself."""
    texts = [f"text-{i:06d}-" * 12 for i in range(2_000)]  # 1,000 to an APPENDS
    stream = pickle.dumps(texts, protocol=5)
    at = stream.index(b"\x94\x8c", 100)  # in the list's first 1,000
    count, frames, _, _ = textruns.TextRuns(stream, len(stream)).take(at, 10**12, 10**6)
    assert frames >= 2
    for slow in range(frames):
        taken = textruns.TextRuns(stream, len(stream)).take(at, 10**12, slow)
        assert taken[1] == slow and taken[0] < count
    units = stream[at : stream.index(b"\x94\x95", at)].count(b"\x94\x8c")
    first_frame = textruns.UNIT_COST * (units + 1) + textruns.FRAME_COST
    below = textruns.TextRuns(stream, len(stream)).take(at, first_frame - 1, 10**6)
    assert below[:2] == (units, 0)
    assert textruns.TextRuns(stream, len(stream)).take(at, first_frame, 10**6)[1] >= 1


def test_a_forged_length_inside_a_run_is_refused_like_the_walk(
    monkeypatch: Any,
) -> None:
    """A unit whose length byte points past the end of the stream, and a FRAME
    inside a run whose length overruns it: both ways say the stream ran out."""
    stream = bytearray(_column([f"t{i:05d}" * 9 for i in range(3_000)], 5))
    at = stream.index(b"\x94\x8c", len(stream) // 2)
    stream[at + 2] = 255
    forged = bytes(stream[: at + 40])
    assert _outcome(forged) == _stepped(forged)
    assert _outcome(forged).startswith("refused")
    monkeypatch.setattr(textruns, "WINDOW", 4096)  # the header's window apart
    framed = bytearray(_column([f"t{i:05d}" * 9 for i in range(3_000)], 5))
    frame = framed.index(b"\x94\x95", 1000)
    framed[frame + 2 : frame + 10] = (len(framed) * 2).to_bytes(8, "little")
    assert _outcome(bytes(framed)) == _stepped(bytes(framed))
    assert _outcome(bytes(framed)) == "refused: not a valid pickle (Ran out of input)"


@pytest.mark.parametrize("window", [64, 4096])
def test_no_window_is_read_twice(window: int, monkeypatch: Any) -> None:
    """Where lookalikes break every chain, the walk steps the rest of the window
    before numpy reads again: the windows read add up to the stream, not to the
    stream times the texts (a linear scan, whatever the texts hold)."""
    stream = _column([f"{'┌' * (i % 3)}y{i}" for i in range(3_000)], 5)
    read = []
    reading = textruns.TextRuns._read

    def counted(self: Any, at: int) -> None:
        read.append(min(window, len(self.data) - at))
        reading(self, at)

    monkeypatch.setattr(textruns, "WINDOW", window)
    monkeypatch.setattr(textruns.TextRuns, "_read", counted)
    assert _outcome(stream) == "accepted"
    assert 0 < sum(read) <= len(stream) + window
