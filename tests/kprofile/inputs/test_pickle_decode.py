"""Legitimate pickles decode to the same frames and values ``pickle`` itself builds.

The oracle is the standard unpickler run on trusted files (fixtures written by pandas
2.0-3.1 with numpy 1.x/2.x in every protocol, and fresh pickles written in tmp_path),
with pytz zones (pandas 2) read as the zoneinfo zones of the same name, as the decoder
does without pytz, and kbench's ``file`` (a ``pathlib.Path``) as the text of the path.
"""

from __future__ import annotations

import datetime
import io
import pickle
import warnings
import zoneinfo
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np
import pandas as pd
import pytest

from kprofile.errors import InvalidInputError
from kprofile.inputs.load import load_results
from kprofile.inputs.pickles import decode_pickle

FIXTURES = Path(__file__).parents[3] / "fixtures"
VERSIONED = sorted((FIXTURES / "pickles").glob("*/*.pkl"))
SHIPPED = sorted(FIXTURES.glob("pandas2/*.pkl")) + sorted(
    FIXTURES.glob("results/*/*.pkl")
)


class _Oracle(pickle.Unpickler):
    """The standard unpickler (trusted files only), pytz zones as zoneinfo zones and
    paths as their text, as the decoder reads them."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("pytz", "_p"):
            return lambda zone, *rest: zoneinfo.ZoneInfo(zone)
        if module in ("pathlib", "pathlib._local"):
            return lambda *parts: str(PurePosixPath(*parts))
        return super().find_class(module, name)


def oracle(data: bytes) -> Any:
    with warnings.catch_warnings():  # numpy 2 warns about numpy 1's module paths
        warnings.simplefilter("ignore", DeprecationWarning)
        return _Oracle(io.BytesIO(data)).load()


def assert_same(got: Any, want: Any) -> None:
    if isinstance(want, pd.DataFrame):
        assert isinstance(got, pd.DataFrame)
        pd.testing.assert_frame_equal(got, want, check_exact=True)
        assert got.attrs == want.attrs
        return
    if isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want)
        for key in want:
            assert_same(got[key], want[key])
        return
    assert type(got) is type(want) and got == want


def test_the_fixtures_cover_every_version_pair_and_protocol() -> None:
    versions = {p.parent.name for p in VERSIONED}
    assert versions == {
        "pandas2.0-numpy1.24",
        "pandas2.3-numpy1.26",
        "pandas2.3-numpy2.2",
        "pandas3.1-numpy2.4",
    }
    for folder in versions:
        text = (FIXTURES / "pickles" / folder / "VERSIONS").read_text()
        pandas_version, numpy_version = folder.removeprefix("pandas").split("-numpy")
        assert text.startswith(f"pandas {pandas_version}."), folder
        assert f"\nnumpy {numpy_version}." in text, folder
    names = {p.name for p in VERSIONED}
    assert names == {f"dtypes_protocol{n}.pkl" for n in (0, 2, 3, 4, 5)} | {
        "bare_protocol5.pkl"
    }


@pytest.mark.parametrize(
    "path", VERSIONED + SHIPPED, ids=lambda p: p.parent.name + "/" + p.name
)
def test_fixture_decodes_like_the_standard_unpickler(path: Path) -> None:
    data = path.read_bytes()
    assert_same(decode_pickle(data, skip=()), oracle(data))


@pytest.mark.parametrize("path", VERSIONED, ids=lambda p: p.parent.name + "/" + p.name)
def test_tz_aware_columns_keep_their_zone_and_instants(path: Path) -> None:
    decoded = decode_pickle(path.read_bytes())
    frame = decoded if isinstance(decoded, pd.DataFrame) else decoded["merged_df"]
    paris = frame["paris"]
    assert str(paris.dt.tz) == "Europe/Paris"
    assert isinstance(paris.dt.tz, zoneinfo.ZoneInfo)
    assert paris.iloc[0] == pd.Timestamp("2025-03-04 10:15", tz="Europe/Paris")
    assert frame["fixed"].iloc[2].utcoffset() == datetime.timedelta(hours=2)
    assert frame["utc"].iloc[1] == pd.Timestamp("2025-03-05 11:00", tz="UTC")


def test_build_df_is_left_out_unless_asked_for() -> None:
    data = (
        FIXTURES / "pickles" / "pandas3.1-numpy2.4" / "dtypes_protocol5.pkl"
    ).read_bytes()
    assert "build_df" not in decode_pickle(data)
    assert "build_df" in decode_pickle(data, skip=())


def _dtype_columns() -> dict[str, Any]:
    stamps = pd.to_datetime(
        ["2025-01-01 00:00", "2025-06-01 12:30", "2025-12-31 23:59"]
    )
    return {
        "int64": np.array([1, -2, 3]),
        "int8": np.array([1, -2, 3], dtype=np.int8),
        "uint32": np.array([1, 2, 2**32 - 1], dtype=np.uint32),
        "float32": np.array([0.5, np.nan, -1.0], dtype=np.float32),
        "float64": [0.5, np.nan, 1e300],
        "bool": [True, False, True],
        "Int64": pd.array([1, None, 3], dtype="Int64"),
        "UInt8": pd.array([1, None, 255], dtype="UInt8"),
        "boolean": pd.array([True, None, False], dtype="boolean"),
        "Float32": pd.array([0.5, None, 2.0], dtype="Float32"),
        "object-str": np.array(["a", "é", "z"], dtype=object),
        "object-mixed": np.array(["a", 1, None], dtype=object),
        "object-stamps": np.array(
            [pd.Timestamp("2025-01-01"), None, 2.5], dtype=object
        ),
        "string": pd.array(["a", None, "c"], dtype="string"),
        "str": pd.Series(["a", None, "c"], dtype="str"),
        "datetime": stamps,
        "datetime-s": stamps.as_unit("s"),
        "tz-zoneinfo": stamps.tz_localize(zoneinfo.ZoneInfo("America/New_York")),
        "tz-utc": stamps.tz_localize("UTC"),
        "tz-offset": stamps.tz_localize(
            datetime.timezone(datetime.timedelta(hours=-5))
        ),
        "timedelta": pd.to_timedelta([1, 2, 3], unit="min"),
        "category": pd.Categorical(
            ["x", None, "y"], categories=["y", "x"], ordered=True
        ),
        "category-int": pd.Categorical([3, 1, 3]),
        "object-timedeltas": np.array([pd.Timedelta(1, "s"), None, "x"], dtype=object),
    }


@pytest.mark.parametrize("protocol", [0, 1, 2, 3, 4, 5])
@pytest.mark.parametrize("column", list(_dtype_columns()))
def test_each_dtype_round_trips_in_each_protocol(column: str, protocol: int) -> None:
    frame = pd.DataFrame({"mesh_idx": np.arange(3), column: _dtype_columns()[column]})
    data = pickle.dumps({"merged_df": frame, "name": "k"}, protocol=protocol)
    assert_same(decode_pickle(data), pickle.loads(data))


@pytest.mark.parametrize(
    "frame",
    [
        pd.DataFrame(np.arange(12.0).reshape(4, 3)),  # one Fortran-ordered block
        pd.DataFrame({"a": [1, 2], "b": [3, 4], "c": ["x", "y"]}).iloc[:, [2, 0, 1]],
        pd.DataFrame({"a": [1, 2]}, index=pd.Index(["r1", "r2"], name="row")),
        pd.DataFrame({"a": [1, 2]}, index=pd.RangeIndex(10, 30, 10)),
        pd.DataFrame({"a": [1.0]}, index=pd.DatetimeIndex(["2025-01-01"], name="t")),
        pd.DataFrame({"a": [1, 2], "a ": [3, 4]}).set_axis(["a", "a"], axis=1),
        pd.DataFrame({"a": [1, 2]}).set_flags(allows_duplicate_labels=False),
        pd.DataFrame(columns=["a", "b"]),
        pd.DataFrame({7: [1], 8: [2]}),
        pd.DataFrame({"a": [1, 2]}, index=pd.CategoricalIndex(["r", "s"], name="c")),
    ],
    ids=[
        "fortran",
        "placed",
        "index",
        "range",
        "datetimeindex",
        "duplicates",
        "flags",
        "empty",
        "int-labels",
        "categoricalindex",
    ],
)
@pytest.mark.parametrize("protocol", [2, 5])
def test_frame_layouts_round_trip(frame: pd.DataFrame, protocol: int) -> None:
    frame.attrs = {"source": "kbench", "run": 3}
    data = pickle.dumps(frame, protocol=protocol)
    assert_same(decode_pickle(data), pickle.loads(data))


def test_metadata_values_round_trip() -> None:
    payload = {
        "merged_df": pd.DataFrame({"a": [1]}),
        "name": "bench",
        "file": "bench.mojo",
        "git-revision": "3f9c2a1",
        "datetime": datetime.datetime(2025, 3, 4, 10, 15, 7, 123456),
        "aware": datetime.datetime(2025, 3, 4, tzinfo=zoneinfo.ZoneInfo("Asia/Tokyo")),
        "day": datetime.date(2025, 3, 4),
        "clock": datetime.time(10, 15, 7),
        "took": datetime.timedelta(days=1, seconds=5),
        "elapsed": pd.Timedelta(1500, unit="ms"),
        "stamp": pd.Timestamp("2025-03-04 10:15", tz="Europe/Paris"),
        "np-float": np.float64(1.5),
        "np-int": np.int32(-7),
        "nested": {"list": [1, 2.5, None, True], "tuple": ("a", b"raw"), 3: "x"},
        "big": 10**200,
    }
    for protocol in (0, 2, 4, 5):
        data = pickle.dumps(payload, protocol=protocol)
        assert_same(decode_pickle(data), pickle.loads(data))


def test_loader_reads_a_pandas2_tz_fixture_through_load_results() -> None:
    path = FIXTURES / "pickles" / "pandas2.3-numpy1.26" / "dtypes_protocol4.pkl"
    results = load_results(str(path))
    assert results.params == ("BM", "SWAP_AB", "M")
    assert results.git_revision == "3f9c2a1d8e7b"
    assert results.datetime == "2025-03-04 10:15:00"
    assert str(results.frame["paris"].dt.tz) == "Europe/Paris"


def test_a_pyarrow_storage_label_decodes_as_python_storage_strings() -> None:
    data = pickle.dumps(pd.DataFrame({"a": ["x", None]}))
    tampered = data.replace(b"\x8c\x06python", b"\x8c\x07pyarrow", 1)
    assert tampered != data
    column = decode_pickle(tampered)["a"]
    assert column.dtype.storage == "python"
    assert column.tolist()[0] == "x" and pd.isna(column.tolist()[1])


def test_a_bare_frame_is_returned_as_a_frame() -> None:
    frame = pd.DataFrame({"spec": ["k/BM=1", "k/BM=2"], "met (ms)": [1.0, 2.0]})
    assert_same(decode_pickle(pickle.dumps(frame)), frame)


def test_the_loader_refuses_a_frame_with_a_column_named_twice(tmp_path: Path) -> None:
    frame = pd.DataFrame([[1.0, 2.0, 3]], columns=["met (ms)", "met (ms)", "x"])
    path = tmp_path / "twice.pkl"
    path.write_bytes(pickle.dumps({"merged_df": frame}))
    with pytest.raises(InvalidInputError) as caught:
        load_results(str(path))
    assert str(caught.value) == (
        f"Invalid pkl [{path}]: columns named more than once: 'met (ms)'"
    )


def test_bool_bytes_other_than_0_and_1_become_true() -> None:
    frame = pd.DataFrame({"flag": [True, False, True]})
    data = pickle.dumps(frame, protocol=5)
    forged = data.replace(b"\x01\x00\x01", b"\x41\x00\xff", 1)
    assert forged != data
    decoded = decode_pickle(forged)["flag"].to_numpy()
    assert decoded.view(np.uint8).tolist() == [1, 0, 1]


@pytest.mark.parametrize("dtype", ["string", pd.StringDtype("python", na_value=np.nan)])
@pytest.mark.parametrize(
    ("values", "checked"),
    [
        (["k/BM=1", "k/BM=2", ""], False),  # all ASCII text: made as it is
        (["k/BM=1", None, "k/BM=2"], True),  # a missing value: pandas' check
        (["k/BM=é", "k/BM=2", "x"], True),  # not ASCII: the decoder's, then pandas'
    ],
)
def test_ascii_text_columns_skip_only_the_check_the_decoder_made(
    monkeypatch: Any, dtype: Any, values: list[Any], checked: bool
) -> None:
    """A StringArray column whose every element the decoder saw to be ASCII text is
    made without pandas' element check (the constructor that checks is not called
    for it); any other column still goes through it; both decode as ``pickle``
    does, dtype and missing values included."""
    from kprofile.inputs.pickles import extension

    calls: list[int] = []
    checking = extension._string_array

    def counted(array: np.ndarray, dtype: Any) -> Any:
        calls.append(len(array))
        return checking(array, dtype)

    monkeypatch.setattr(extension, "_string_array", counted)
    frame = pd.DataFrame({"spec": pd.array(values, dtype=dtype), "m": [1.0, 2, 3]})
    data = pickle.dumps({"merged_df": frame}, protocol=pickle.HIGHEST_PROTOCOL)
    got = decode_pickle(data)
    assert_same(got, pickle.loads(data))
    assert got["merged_df"]["spec"].dtype == frame["spec"].dtype
    assert (3 in calls) == checked


@pytest.mark.parametrize(
    ("items", "ascii"),
    [
        (["bench_matmul"] * 5, True),  # one object repeated: checked once
        (["\ud800"] * 5, False),  # a lone surrogate repeated is no ASCII text
        (["é"] * 3, False),
        (["a"] * 4 + [1, "a"], False),  # not every item the repeated one
        (["a", "b", "a"], True),
        (["a", "é", "a"], False),  # the last is the first, the middle is not
        ([], True),
    ],
)
def test_a_repeated_text_is_ascii_only_if_it_is(items: list[Any], ascii: bool) -> None:
    """``object_array``'s check of a string column: a column of one string repeated
    (kbench's ``name``) takes the identity path, and must still say what the
    element-by-element check would."""
    from kprofile.inputs.pickles.objects import _all_ascii_text

    assert _all_ascii_text(items) is ascii
