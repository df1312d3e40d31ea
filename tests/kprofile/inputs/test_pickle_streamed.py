"""A pickle file is scanned and unpickled a piece at a time (``streamed``),
compressed ones as they are decompressed: the same frame or the same refusal as the
whole file (decompressed by the standard library) scanned at once, at every piece
size; a file that changes while it is read is refused, and so is a compressed stream
past its bound or cut short."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import zstandard  # type: ignore[import-not-found, unused-ignore]
from support import compress

from kprofile.inputs.pickles import compressed, streamed
from kprofile.inputs.pickles.decode import decode_pickle, read_pickle
from kprofile.inputs.pickles.errors import RefusedPickle

FIXTURES = Path(__file__).parents[3] / "fixtures"
FILES = sorted(
    p
    for p in [*FIXTURES.glob("kbench/*/*.pkl"), *FIXTURES.glob("pickles/*/*.pkl")]
    + [*FIXTURES.glob("realkbench/*/*.pkl")]
    + [*FIXTURES.glob("kbench/*/*.pkl.*[!n]")]  # .gz, .bz2, .xz, .zst; not .json
)


def _whole(data: bytes) -> bytes:
    """The bytes a compressed file holds, by the standard library (zstandard)."""
    for magic, unpack in (
        (b"\x1f\x8b", gzip.decompress),
        (b"BZh", bz2.decompress),
        (b"\xfd7zXZ\x00", lzma.decompress),
        (b"\x28\xb5\x2f\xfd", zstandard.ZstdDecompressor().decompressobj().decompress),
    ):
        if data.startswith(magic):
            return bytes(unpack(data))
    return data


def _outcome(read: Any) -> Any:
    try:
        value = read()
    except RefusedPickle as exc:
        return f"refused: {exc}"
    return pickle.dumps(value)  # frames and plain data, compared by their bytes


@pytest.mark.parametrize("block", [64, 4096, 1 << 20])
def test_every_fixture_reads_in_pieces_as_it_does_whole(
    block: int, monkeypatch: Any
) -> None:
    assert len(FILES) > 40 and sum(p.suffix == ".zst" for p in FILES) >= 2
    monkeypatch.setattr(streamed, "BLOCK", block)
    for path in FILES:
        whole = _outcome(lambda p=path: decode_pickle(_whole(p.read_bytes())))
        assert _outcome(lambda p=path: read_pickle(p)) == whole, path


def test_a_text_line_longer_than_a_piece_is_read_whole(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """Protocol 0 spells values as lines of text; one longer than a piece makes
    the next piece longer, never a refusal."""
    frame = pd.DataFrame({"name": ["x" * 5000, "y"], "met (ms)": [1.0, 2.0]})
    path = tmp_path / "p0.pkl"
    path.write_bytes(pickle.dumps(frame, protocol=0))
    monkeypatch.setattr(streamed, "BLOCK", 256)
    got = read_pickle(path)
    pd.testing.assert_frame_equal(got, decode_pickle(path.read_bytes()))
    assert got["name"].tolist() == frame["name"].tolist()


def test_an_array_longer_than_a_piece_goes_straight_into_its_object(
    tmp_path: Path, monkeypatch: Any
) -> None:
    frame = pd.DataFrame({"met (ms)": np.arange(200_000, dtype=float)})
    path = tmp_path / "big.pkl"
    path.write_bytes(pickle.dumps(frame, protocol=5))
    monkeypatch.setattr(streamed, "BLOCK", 4096)
    assert read_pickle(path)["met (ms)"].tolist() == frame["met (ms)"].tolist()


@pytest.mark.parametrize("change", ["grows", "shrinks"])
def test_a_file_that_changes_while_it_is_read_is_refused(
    change: str, tmp_path: Path, monkeypatch: Any
) -> None:
    """The file is changed on disk once its first piece has been read."""
    frame = pd.DataFrame({"spec": [f"b/BM={i}" for i in range(5_000)]})
    path = tmp_path / "changing.pkl"
    path.write_bytes(pickle.dumps(frame, protocol=5))
    size = path.stat().st_size
    monkeypatch.setattr(streamed, "BLOCK", 4096)
    reading = streamed.StreamedFile._piece

    def then_change(self: Any, start: int, length: int) -> bytearray:
        piece = reading(self, start, length)
        if start == 0:
            with open(path, "r+b") as out:
                if change == "grows":
                    out.seek(0, os.SEEK_END)
                    out.write(b"more")
                else:
                    out.truncate(size // 2)
        return piece

    monkeypatch.setattr(streamed.StreamedFile, "_piece", then_change)
    with pytest.raises(RefusedPickle, match="the file changed while it was read"):
        read_pickle(path)


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz", ".zst"])
def test_a_compressed_stream_past_its_bound_is_refused_as_a_bomb(
    tmp_path: Path, monkeypatch: Any, suffix: str
) -> None:
    """Valid pickle opcodes (1 KiB values) that go on past 100x the compressed size
    plus the base: refused once the bound is read, never read further."""
    monkeypatch.setattr(compressed, "RATIO_BASE", 1 << 20)
    monkeypatch.setattr(streamed, "BLOCK", 4096)
    payload = pickle.dumps([bytes(1024) for _ in range(4096)], protocol=5)  # 4 MiB
    path = tmp_path / f"bomb.pkl{suffix}"
    path.write_bytes(compress(payload, suffix))
    assert 100 * path.stat().st_size + (1 << 20) < len(payload)
    with pytest.raises(RefusedPickle, match=r"over 100x its compressed size"):
        read_pickle(path)


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz", ".zst"])
def test_a_compressed_stream_cut_short_is_refused(tmp_path: Path, suffix: str) -> None:
    source = FIXTURES / "realkbench" / "A" / "out.pkl"
    data = compress(source.read_bytes(), suffix)
    path = tmp_path / f"cut.pkl{suffix}"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(RefusedPickle, match=r"^not a valid (gzip|bz2|xz|zstd|pickle)"):
        read_pickle(path)
