"""Files kbench really writes load, and give the figures pandas computed from them.

``fixtures/kbench/<environment>/`` holds result pickles written by
``fixtures/make_kbench_matrix.py`` with kbench's recipe in each environment of a matrix
(pandas 1.5-3.1, numpy 1.23-2.5, Python 3.11-3.13, pyarrow on and off), compressed
forms included; ``fixtures/realkbench/`` two runs of the real kbench. Beside each file,
``<file>.json`` is what pandas computed there; here the same figures come from what
kprofile's loader builds, with whatever pandas is installed and without pyarrow.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from kprofile.errors import InvalidInputError
from kprofile.inputs.load import kind_of, load_results
from kprofile.inputs.pickles import decode_pickle, read_pickle

FIXTURES = Path(__file__).parents[3] / "fixtures"
MATRIX = sorted(
    p
    for p in (FIXTURES / "kbench").glob("*/*")
    if p.suffix != ".json" and p.name != "VERSIONS"
)
# The genuine runs that have a table (E: nothing ran, kbench wrote no merged_df).
REAL = sorted(
    p.with_suffix("") for p in (FIXTURES / "realkbench").glob("*/out.pkl.json")
)
ZSTD = importlib.util.find_spec("zstandard") is not None
_ENVIRONMENT = re.compile(
    r"py(3\.\d+)-pandas(\d+)\.(\d+)\.\d+-numpy(\d+)\.\d+\.\d+(-pyarrow\d+\.\d+\.\d+)?"
)


def figures(frame: pd.DataFrame, metric: str) -> dict[str, Any]:
    """The figures ``make_kbench_matrix.expected`` computes, from a loaded frame."""
    values = frame[metric].astype("float64").to_numpy()
    ran = np.isfinite(values) & (values > 0)
    best = int(np.flatnonzero(ran)[np.argmin(values[ran])])
    return {
        "entries": len(frame),
        "failed": int((~ran).sum()),
        "metric": metric,
        "best": float(values[ran].min()),
        "worst": float(values[ran].max()),
        "best_spec": str(frame["spec"].iloc[best]),
    }


def expected(path: Path) -> dict[str, Any]:
    figures: dict[str, Any] = json.loads(
        path.with_name(path.name + ".json").read_text()
    )
    return figures


def test_the_matrix_covers_every_corner_of_the_supported_range() -> None:
    folders = sorted({p.parent.name for p in MATRIX})
    found = [_ENVIRONMENT.fullmatch(name) for name in folders]
    assert all(found), folders
    matches = [m for m in found if m]
    assert {m[1] for m in matches} == {"3.11", "3.12", "3.13"}
    assert {m[2] for m in matches} == {"1", "2", "3"}
    assert {(m[2], m[3]) for m in matches} >= {("2", str(n)) for n in range(4)}
    assert {m[4] for m in matches} == {"1", "2"}
    assert {bool(m[5]) for m in matches} == {True, False}
    assert {bool(m[5]) for m in matches if m[2] == "3"} == {True, False}
    assert len(folders) >= 10
    for name in folders:
        versions = (FIXTURES / "kbench" / name / "VERSIONS").read_text().split("\n")
        python, pandas_version, numpy_version = versions[:3]
        assert name.startswith(f"py{python.split()[1].rsplit('.', 1)[0]}-"), name
        assert f"-pandas{pandas_version.split()[1]}-" in name
        assert f"-numpy{numpy_version.split()[1]}" in name


def test_every_variant_and_compression_is_in_every_environment() -> None:
    for folder in {p.parent for p in MATRIX}:
        names = {p.name for p in folder.iterdir()}
        for variant in (
            "kbench_ms",
            "kbench_s",
            "sliced",
            "sliced_rows",
            "consolidated",
        ):
            assert f"{variant}.pkl" in names, folder
        for variant in ("multiindex", "tuples", "categorical"):
            assert f"{variant}.pkl" in names, folder
        for suffix in ("gz", "bz2", "xz"):
            assert f"kbench_ms.pkl.{suffix}" in names, folder
        assert "gzip_named.pkl" in names
        assert ("arrow_backend.pkl" in names) == ("pyarrow" in folder.name), folder
    assert sum(p.name.endswith(".zst") for p in MATRIX) >= 2
    assert all(p.stat().st_size < 20_000 for p in MATRIX)  # small, checked in


def test_pandas_3_with_pyarrow_is_there_at_protocols_0_1_and_2() -> None:
    """pyarrow's buffers pickle as bytearray(_codecs.encode(text)) below protocol 3."""
    protocols = {f"protocol{n}.pkl" for n in (0, 1, 2)}
    folders = {p.parent for p in MATRIX if p.name in protocols}
    assert len(folders) >= 2
    for folder in folders:
        assert "-pandas3." in folder.name and "pyarrow" in folder.name, folder
        assert protocols <= {p.name for p in folder.iterdir()}, folder


@pytest.mark.parametrize("path", MATRIX, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_matrix_file_gives_the_figures_pandas_computed(path: Path) -> None:
    want = expected(path)
    if path.suffix == ".zst" and not ZSTD:
        with pytest.raises(InvalidInputError, match="pip install zstandard"):
            load_results(str(path))
        return
    assert kind_of(str(path)) == "pkl"
    results = load_results(str(path))
    assert figures(results.frame, want["metric"]) == want
    assert results.file == "/home/kernels/bench/matmul.mojo"
    assert results.name == "matmul"
    assert results.params == ("M", "N", "K", "BM", "BN", "SCHEDULE", "SWAP_AB")


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.parent.name)
def test_a_genuine_kbench_run_gives_the_figures_pandas_computed(path: Path) -> None:
    results = load_results(str(path))
    want = expected(path)
    # kbench's record of failures (out.failures.json) adds its failed points as
    # rows without a measurement; the figures are those of the rows that ran
    assert results.failure is not None
    ran = results.frame[results.frame[results.failure].isna()]
    assert figures(ran, want["metric"]) == want
    record = json.loads(path.with_name("out.failures.json").read_text())
    assert (results.name, results.file) == (record["spec_name"], record["spec_file"])
    first = (  # the parameter names kbench recorded, or its first spec string's
        list(record["failures"][0]["params"])
        if record["failures"]
        else [t.split("=")[0] for t in str(ran["spec"].iloc[0]).split("/")[1:]]
    )
    assert results.params == tuple(name.lstrip("$") for name in first)


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.parent.name)
def test_a_genuine_run_holds_every_cell_of_the_csv_kbench_wrote(path: Path) -> None:
    frame = read_pickle(path)["merged_df"]
    csv = pd.read_csv(path.with_name("out.csv"), dtype=str, keep_default_na=False)
    assert list(frame.columns) == ["mesh_idx", *csv.columns]
    for column in csv.columns:
        texts = csv[column].tolist()
        if pd.api.types.is_numeric_dtype(frame[column].dtype):
            assert frame[column].tolist() == [float(t) for t in texts], column
        else:
            assert frame[column].tolist() == texts, column


def test_pyarrow_backed_columns_and_labels_come_back_as_python_strings() -> None:
    (run,) = (p for p in REAL if p.parent.name == "B")
    decoded = decode_pickle(run.read_bytes(), skip=())
    for key in ("merged_df", "build_df"):
        frame = decoded[key]
        assert frame["spec"].dtype == pd.StringDtype("python")
        assert frame.columns.dtype.storage == "python"  # type: ignore[union-attr]
    assert len(decoded["build_df"]) == 144  # every point, the 12 failures included


def test_pandas_3_read_only_arrays_of_a_sliced_frame_load() -> None:
    path = FIXTURES / "kbench/py3.13-pandas3.1.1-numpy2.4.6/sliced_rows.pkl"
    data = path.read_bytes()
    assert b"_readonly\x94\x89" in data  # pandas 3.1 writes the flag (False)
    read_only = data.replace(b"_readonly\x94\x89", b"_readonly\x94\x88")
    for payload in (data, read_only):
        frame = decode_pickle(payload)["merged_df"]
        assert figures(frame, "met (ms)") == expected(path)
        frame.loc[frame.index[0], "spec"] = "changed"  # a new array, writable


def test_a_protocol_0_buffer_in_another_encoding_is_refused(tmp_path: Path) -> None:
    """The one encoding pickle writes below protocol 3 is latin-1: a real file with
    its buffers' encoding changed is refused, not decoded as something else."""
    folder = FIXTURES / "kbench" / "py3.13-pandas3.1.1-numpy2.4.6-pyarrow26.0.1"
    data = (folder / "protocol0.pkl").read_bytes()
    assert data.count(b"Vlatin1\n") == 1
    forged = tmp_path / "protocol0.pkl"
    forged.write_bytes(data.replace(b"Vlatin1\n", b"Vutf_8_\n"))
    with pytest.raises(InvalidInputError) as refused:
        load_results(str(forged))
    assert refused.value.record.reason == "refused _codecs.encode of str"
