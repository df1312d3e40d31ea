"""The valid twin of the kbench-shaped hostile cases (tests/hostile_kbench.py) decodes,
so each case is refused for the one part it forges; the cases themselves run with the
other hostile pickles, through the worker, in test_pickle_hostile.py."""

from __future__ import annotations

import random
from pathlib import Path

import hostile_kbench
import hostile_pickles
import pandas as pd
import pytest

from kprofile.inputs.pickles import RefusedPickle, decode_pickle

pytestmark = pytest.mark.slow  # every hostile kbench pickle in a capped child process

FIXTURES = Path(__file__).parents[3] / "fixtures"


def test_the_kbench_twin_decodes_with_every_construct_it_holds() -> None:
    decoded = decode_pickle(hostile_kbench.VALID_KBENCH)
    frame = decoded["merged_df"]
    assert decoded["file"] == "/home/k/bench.mojo"
    assert list(frame.columns) == ["x", "spec", "met", "n"]  # pyarrow-backed labels
    assert frame["x"].tolist() == [0, 1, 2]  # slice(0, 6, 3): columns 0 and 3
    assert frame["n"].tolist() == [3, 4, 5]
    assert frame["spec"].tolist() == hostile_kbench.SPECS
    assert frame["spec"].dtype == pd.StringDtype("python")
    met = frame["met"]
    assert met.dtype == "Float64" and met.isna().tolist() == [False, True, False]
    assert met.dropna().tolist() == [0.5, 2.5]


def test_every_kbench_case_is_among_the_hostile_cases() -> None:
    cases = hostile_pickles.cases("MARKER")
    assert set(hostile_kbench.kbench_cases()) <= set(cases)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("arrow-spec-offsets-past-the-text", "string offsets outside 15 bytes of text"),
        ("arrow-spec-length-past-the-offsets", "bytes of offsets needed, 32 bytes"),
        ("arrow-met-null-count-disagrees-with-bitmap", "2 nulls whose bitmap has 1"),
        ("arrow-spec-type-timestamp", "pyarrow type 'timestamp[ns]': not a flat type"),
        ("placement-strided-outside", "refused a block placed at 6 of 4 columns"),
        ("path-of-too-many-parts", "refused a malformed pathlib.PurePosixPath"),
    ],
)
def test_a_forged_construct_is_refused_with_a_line_naming_it(
    name: str, message: str
) -> None:
    with pytest.raises(RefusedPickle, match=message.replace("[", r"\[")):
        decode_pickle(hostile_kbench.kbench_cases()[name])


def _mutations(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.choice((1, 1, 2, 3))):
        at = rng.randrange(len(out))
        kind = rng.choice(("flip", "set", "delete", "insert"))
        if kind == "flip":
            out[at] ^= 1 << rng.randrange(8)
        elif kind == "set":
            out[at] = rng.randrange(256)
        elif kind == "delete":
            del out[at : at + rng.randrange(1, 9)]
        else:
            out[at:at] = rng.randbytes(rng.randrange(1, 9))
    return bytes(out)


SEEDS = {
    "twin": hostile_kbench.VALID_KBENCH,
    "real-B": (FIXTURES / "realkbench" / "B" / "out.pkl").read_bytes(),
    "pandas3-pyarrow": (
        FIXTURES / "kbench/py3.13-pandas3.1.1-numpy2.4.6-pyarrow26.0.1/sliced.pkl"
    ).read_bytes(),
    "pandas2.2-arrow-backend": (
        FIXTURES
        / "kbench/py3.12-pandas2.2.3-numpy2.1.3-pyarrow18.1.0"
        / "arrow_backend.pkl"
    ).read_bytes(),
}


@pytest.mark.parametrize("seed", sorted(SEEDS))
def test_mutated_kbench_files_decode_or_are_refused_cleanly(seed: str) -> None:
    rng = random.Random(seed)
    outcomes = set()
    for _ in range(60):
        try:
            decoded = decode_pickle(_mutations(SEEDS[seed], rng))
            outcomes.add("loaded" if isinstance(decoded, dict) else "other")
        except RefusedPickle as exc:
            assert "\n" not in str(exc)
            outcomes.add("refused")
    assert "refused" in outcomes


def _with_spec(spec: object) -> bytes:
    return hostile_kbench.kbench_result(
        hostile_kbench.kbench_frame(spec=hostile_kbench.string_array(spec))
    )


def test_a_chunked_pyarrow_array_decodes_as_its_chunks_end_to_end() -> None:
    chunks = [hostile_kbench.strings(["k/BM=1"]), hostile_kbench.strings(["", "k/é"])]
    empty = hostile_kbench.arrow("large_string", 0, [None, None, None])
    alias = hostile_kbench.Red(
        hostile_kbench.Glob("pyarrow.lib", "type_for_alias"), ("large_string",)
    )
    chunked = hostile_kbench.Red(
        hostile_kbench.Glob("pyarrow.lib", "chunked_array"), ([*chunks, empty], alias)
    )
    frame = decode_pickle(_with_spec(chunked))["merged_df"]
    assert frame["spec"].tolist() == ["k/BM=1", "", "k/é"]


def test_nulls_in_pyarrow_strings_are_missing_values() -> None:
    texts = hostile_kbench.text_buffers(["a", "", "c"])
    spec = hostile_kbench.arrow("large_string", 3, [b"\x05", *texts[1:]], nulls=1)
    column = decode_pickle(_with_spec(spec))["merged_df"]["spec"]
    assert column.isna().tolist() == [False, True, False]
    assert column.dropna().tolist() == ["a", "c"]


@pytest.mark.parametrize(
    ("written", "key", "message"),
    [
        (
            "py3.13-pandas3.1.1-numpy2.5.5/categorical.pkl",
            b"ordered",
            "refused a CategoricalDtype with other attributes",
        ),
        (
            "py3.12-pandas3.1.1-numpy2.5.5-pyarrow26.0.1/arrow_backend.pkl",
            b"pyarrow_dtype",
            "refused an ArrowDtype with other attributes",
        ),
    ],
)
def test_a_dtype_with_a_field_pandas_never_writes_is_refused(
    written: str, key: bytes, message: str
) -> None:
    """A real kbench file whose dtype state gains a field of the same length (the
    pickle stays well formed): refused for that field, not decoded around it."""
    data = (FIXTURES / "kbench" / written).read_bytes()
    assert data.count(key) == 1
    decode_pickle(data)  # the file as written decodes
    with pytest.raises(RefusedPickle, match=f"^{message}$"):
        decode_pickle(data.replace(key, key[:-1] + b"X"))
