"""The restricted unpickler: pandas 2.x/3.x DataFrame pickles load; anything else is refused
before it runs."""

from __future__ import annotations

import builtins
import datetime
import io
import os
import pickle
import pickletools
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from kprofile.inputs.load import load_results
from kprofile.inputs.unpickle import RefusedPickle, restricted_load, restricted_loads

FIXTURES = Path(__file__).parents[3] / "fixtures"


class _Reduce:
    """Pickles as a call of ``func(*args)``: what a malicious file would contain."""

    def __init__(self, func: Any, *args: Any) -> None:
        self.func, self.args = func, args

    def __reduce__(self) -> tuple[Any, ...]:
        return (self.func, self.args)


def _marker_cases(marker: Path) -> list[tuple[str, Any]]:
    touch = f"open({str(marker)!r}, 'w').write('x')"
    return [
        ("os.system", _Reduce(os.system, f"touch {marker}")),
        ("builtins.exec", _Reduce(builtins.exec, touch)),
        ("builtins.eval", _Reduce(builtins.eval, touch)),
        ("subprocess.call", _Reduce(subprocess.call, ["touch", str(marker)])),
        ("builtins.open", _Reduce(builtins.open, str(marker), "w")),
    ]


@pytest.mark.parametrize("index", range(5))
@pytest.mark.parametrize("nesting", ["top", "merged_df", "inside-frame-list"])
@pytest.mark.parametrize("protocol", [0, 2, 5])
def test_code_in_a_pickle_is_refused_and_never_runs(
    tmp_path: Path, index: int, nesting: str, protocol: int
) -> None:
    marker = tmp_path / "PWNED"
    name, evil = _marker_cases(marker)[index]
    payload: Any = {
        "top": evil,
        "merged_df": {"merged_df": evil, "name": "x"},
        "inside-frame-list": {"merged_df": [1, 2, [evil]]},
    }[nesting]
    if nesting == "merged_df":
        payload = {"merged_df": evil}
    data = pickle.dumps(payload, protocol=protocol)
    with pytest.raises(RefusedPickle) as caught:
        restricted_loads(data)
    assert "refused to load global" in str(caught.value)
    assert not marker.exists()


def test_refusal_names_the_global(tmp_path: Path) -> None:
    data = pickle.dumps(_Reduce(os.system, "true"))
    with pytest.raises(
        RefusedPickle,
        match=r"^refused to load global (posix|nt)\.system: not part of a pandas DataFrame pickle$",
    ):
        restricted_loads(data)


def test_a_crafted_file_is_skipped_by_the_loader_with_the_reason(
    tmp_path: Path,
) -> None:
    marker = tmp_path / "PWNED"
    path = tmp_path / "evil.pkl"
    path.write_bytes(
        pickle.dumps(
            {"merged_df": _Reduce(builtins.exec, f"open({str(marker)!r}, 'w')")}
        )
    )
    from kprofile.cli import main

    assert main([str(path)]) == 2
    assert not marker.exists()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "not a valid pickle (Ran out of input)"),
        (b"\x80\x05", "not a valid pickle (Ran out of input)"),
        (pickle.dumps({"a": 1})[:-3], "not a valid pickle"),
        (b"\x80\x05K\x01Q.", "refused persistent id"),
    ],
)
def test_broken_pickles_are_refused(data: bytes, message: str) -> None:
    with pytest.raises(RefusedPickle) as caught:
        restricted_loads(data)
    assert str(caught.value).startswith(message)


def test_global_opcodes_all_go_through_the_allowlist() -> None:
    """GLOBAL (protocol 0), STACK_GLOBAL (4+) and INST all resolve through find_class."""
    inst = b"(ios\nsystem\n(S'true'\ntp0\nb."  # INST os.system -- never called
    for data in (
        pickle.dumps(_Reduce(os.system, "true"), protocol=0),
        pickle.dumps(_Reduce(os.system, "true"), protocol=4),
        inst,
    ):
        with pytest.raises(RefusedPickle):
            restricted_loads(data)
    ops = {
        op.name
        for op, _, _ in pickletools.genops(
            pickle.dumps(_Reduce(os.system, "true"), protocol=4)
        )
    }
    assert "STACK_GLOBAL" in ops


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "mesh_idx": np.arange(4),
            "name": ["a", "b", "c", "d"],
            "met (ms)": [1.5, np.nan, 0.0, 2.25],
            "iters": np.array([10, 10, 10, 10], dtype=np.int64),
            "flag": [True, False, True, False],
            "f32": np.array([1, 2, 3, 4], dtype=np.float32),
            "cat": pd.Categorical(["x", "y", "x", "y"]),
            "nullable": pd.array([1, None, 3, 4], dtype="Int64"),
            "boolean": pd.array([True, None, False, True], dtype="boolean"),
            "string": pd.array(["s", None, "t", "u"], dtype="string"),
            "when": pd.to_datetime(
                ["2025-01-01", "2025-01-02", "2025-01-03", "2025-01-04"]
            ),
            "spec": ["k/BM=1", "k/BM=2", "k/BM=3", "k/BM=4"],
        }
    )


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_installed_pandas_pickles_round_trip(protocol: int) -> None:
    frame = _frame()
    payload = {
        "merged_df": frame,
        "build_df": frame[["mesh_idx", "name"]],
        "name": "k",
        "file": "k.yaml",
        "git-revision": "abc",
        "datetime": datetime.datetime(2025, 1, 2, 3, 4, 5),
        "stamp": pd.Timestamp("2025-01-01"),
    }
    loaded = restricted_load(io.BytesIO(pickle.dumps(payload, protocol=protocol)))
    pd.testing.assert_frame_equal(loaded["merged_df"], frame)
    assert loaded["datetime"] == payload["datetime"]
    assert loaded["stamp"] == payload["stamp"]


def test_to_pickle_files_load(tmp_path: Path) -> None:
    path = tmp_path / "frame.pkl"
    _frame().to_pickle(path)
    with open(path, "rb") as handle:
        pd.testing.assert_frame_equal(restricted_load(handle), _frame())


@pytest.mark.parametrize("name", ["kbench_protocol4.pkl", "kbench_protocol5.pkl"])
def test_pandas2_pickles_load_to_the_same_values(name: str) -> None:
    assert (FIXTURES / "pandas2" / "VERSIONS").read_text().startswith("pandas 2.")
    with open(FIXTURES / "pandas2" / name, "rb") as handle:
        payload = restricted_load(handle)
    expected = pd.read_csv(
        FIXTURES / "pandas2" / "kbench.csv", keep_default_na=False, na_values=[""]
    )
    frame = payload["merged_df"]
    assert list(frame.columns) == list(expected.columns)
    for column in expected.columns:
        got, want = frame[column].tolist(), expected[column].tolist()
        if column == "kbench_filter":
            want = ["" if isinstance(v, float) else v for v in want]
        assert [None if isinstance(v, float) and np.isnan(v) else v for v in got] == [
            None if isinstance(v, float) and np.isnan(v) else v for v in want
        ], column
    assert payload["name"] == "bench_matmul"
    assert payload["datetime"] == datetime.datetime(2025, 3, 4, 10, 15)


def test_pandas2_pickle_through_the_loader_decodes_specs() -> None:
    results = load_results(str(FIXTURES / "pandas2" / "kbench_protocol5.pkl"))
    assert results.params == (
        "BM",
        "BN",
        "STAGES",
        "CLUSTER",
        "SWAP_AB",
        "SCHEDULE",
        "M",
        "N",
        "K",
    )
    assert results.frame["SWAP_AB"].dtype == bool
    assert results.git_revision == "3f9c2a1d8e7b"
    assert results.datetime == "2025-03-04 10:15:00"


def test_every_allowed_global_resolves_in_the_installed_pandas() -> None:
    import importlib

    from kprofile.inputs.unpickle import ALLOWED

    for (module, name), (target_module, attribute) in ALLOWED.items():
        assert getattr(importlib.import_module(target_module), attribute) is not None, (
            module,
            name,
        )
    assert not any(
        module.startswith(("os", "posix", "subprocess", "sys")) for module, _ in ALLOWED
    )
    assert not any(
        (module, name) in ALLOWED
        for module, name in (
            ("builtins", "eval"),
            ("builtins", "exec"),
            ("builtins", "getattr"),
            ("builtins", "__import__"),
        )
    )
