"""Reading inputs: kbench pickles and CSVs, spec YAMLs and manifests, into ``Results``.

Every loader returns one typed record whose frame has a column naming each row
(``Results.row_key``: kbench's ``mesh_idx``; for a CSV row, which has none, the line
it starts on; for a pickled frame without one, the row's position in it) and one
column per parameter (decoded from ``spec`` for results, the params keys for YAML).
A file that cannot be used raises ``InvalidInputError``; ``load_inputs`` collects
those so the command can skip the file, report it and carry on. The record and how a
results frame becomes one are ``inputs.results``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from kprofile.errors import InvalidInput, InvalidInputError, KprofileError
from kprofile.inputs.csvfile import SPEC, read_csv
from kprofile.inputs.failedrows import nothing_ran, with_failures
from kprofile.inputs.files import irregular
from kprofile.inputs.limits import DEFAULT_MAX_ROWS
from kprofile.inputs.pickles import RefusedPickle, read_pickle
from kprofile.inputs.pickles.compressed import SUFFIXES
from kprofile.inputs.results import (
    MESH_IDX,
    Results,
    text_value,
    with_row_key,
)
from kprofile.inputs.sniff import misnamed
from kprofile.inputs.specwords import spec_lengths
from kprofile.progress import SILENT, Progress
from tuning_codegen.errors import InputError

__all__ = ["MESH_IDX", "SPEC", "Results", "kind_of", "load_inputs", "load_results"]

OUT_OF_MEMORY = (
    "not enough memory to load it (the table it makes is too large for this machine)"
)
KINDS = {
    ".pkl": "pkl",
    ".pickle": "pkl",
    ".csv": "csv",
    ".yaml": "yaml",
    ".yml": "yaml",
}


def kind_of(path: str) -> str:
    suffixes = [s.lower() for s in Path(path).suffixes[-2:]]
    if len(suffixes) == 2 and suffixes[1] in SUFFIXES and KINDS.get(suffixes[0]):
        return "pkl" if KINDS[suffixes[0]] == "pkl" else ""
    return KINDS.get(Path(path).suffix.lower(), "")


def load_inputs(
    paths: Sequence[str],
    *,
    max_rows: int = DEFAULT_MAX_ROWS,
    progress: Progress = SILENT,
) -> tuple[list[Results], list[InvalidInput]]:
    """Load every path; unusable files are returned as InvalidInput records, in order.
    ``max_rows`` bounds the rows a spec YAML may expand to; ``progress`` hears of
    each file."""
    loaded: list[Results] = []
    invalid: list[InvalidInput] = []
    with progress("loading", len(paths)) as advance:
        for path in paths:
            try:
                with progress(f"reading {path}"):
                    loaded.append(load_results(path, max_rows=max_rows))
            except InvalidInputError as exc:
                invalid.append(exc.record)
            advance(1)
    return loaded, invalid


def load_results(path: str, *, max_rows: int = DEFAULT_MAX_ROWS) -> Results:
    """One input file, chosen by suffix (.pkl, .csv, .yaml); only regular files."""
    # A folder is no kind of result, whatever its name ends in.
    kind = (not os.path.isdir(path) and kind_of(path)) or "input"

    def invalid(reason: str) -> InvalidInputError:
        return InvalidInputError(InvalidInput(kind, path, reason))

    if os.path.isdir(path):
        raise invalid("is a directory; pass the result files in it (e.g. DIR/*.pkl)")
    if kind == "input":
        raise invalid(
            f"unknown file type {Path(path).suffix or '(no suffix)'!r}; "
            "expected .pkl, .csv or .yaml"
        )
    if not os.path.exists(path):
        raise invalid("no such file")
    try:
        what = irregular(os.stat(path).st_mode)  # follows symlinks
        if what:
            raise invalid(f"not a regular file ({what})")
        wrong = misnamed(path, kind)
        if wrong:
            raise invalid(wrong)
        if kind == "pkl":
            return _load_pickle(path)
        if kind == "csv":
            return _load_csv(path)
        return _load_yaml(path, max_rows)
    except InvalidInputError:
        raise
    except InputError as exc:  # KprofileError, and tuning_codegen's manifest errors
        record = InvalidInput(kind, path, exc.message, exc.location.line)
        raise InvalidInputError(record) from None
    except OSError as exc:
        raise invalid(f"cannot read: {exc.strerror or exc}") from None
    except MemoryError:  # a file within every limit can still exceed this machine
        raise invalid(OUT_OF_MEMORY) from None
    except SystemError as exc:  # how C code reports a failed allocation it left unset
        if "without exception set" not in str(exc):
            raise
        raise invalid(OUT_OF_MEMORY) from None


def _load_pickle(path: str) -> Results:
    try:
        payload = read_pickle(path)  # data only: nothing in the file is run
    except RefusedPickle as exc:
        raise KprofileError(path, str(exc)) from None
    meta: Mapping[str, Any] = {}
    frame: Any
    if isinstance(payload, pd.DataFrame):
        frame = payload
    elif isinstance(payload, dict):
        meta = payload
        frame = payload.get("merged_df")
        if frame is None:
            raise KprofileError(path, nothing_ran(path))
        if not isinstance(frame, pd.DataFrame):
            raise KprofileError(
                path, f"'merged_df' is a {type(frame).__name__}, expected a DataFrame"
            )
    else:
        raise KprofileError(
            path, f"expected a kbench result dict, got a {type(payload).__name__}"
        )
    if not frame.columns.is_unique:  # valid pandas, but no column can be chosen
        twice = frame.columns[frame.columns.duplicated()].unique()[:3]
        names = ", ".join(repr(name) for name in twice)
        raise KprofileError(path, f"columns named more than once: {names}")
    frame, warnings, lengths = _rows_with_a_spec(frame, path)
    results = with_failures(path, "pkl", frame, meta, spec_lengths=lengths)
    return dataclasses.replace(results, warnings=warnings + results.warnings)


def _load_csv(path: str) -> Results:
    table = read_csv(path)
    results = with_failures(path, "csv", table.frame, {}, table.lines)
    return dataclasses.replace(results, warnings=table.warnings + results.warnings)


def _rows_with_a_spec(
    frame: pd.DataFrame, path: str
) -> tuple[pd.DataFrame, tuple[str, ...], np.ndarray | None]:
    """A row without a spec string has no parameters: it is left out, never ranked
    (as a truncated CSV row is), with a warning naming its position. And the
    ``spec_lengths`` of the rows kept, where they were counted to find them."""
    if SPEC not in frame.columns:
        return frame, (), None
    values = frame[SPEC].to_numpy(dtype=object)
    lengths = None
    if isinstance(frame[SPEC].dtype, pd.StringDtype):  # text or missing, nothing else
        lengths = spec_lengths(values)
        has = lengths > 0
    else:
        has = _has_text(values)
    if has.all():
        return frame, (), lengths
    missing = np.flatnonzero(~has)
    shown = ", ".join(str(i) for i in missing[:10]) + (
        ", ..." if len(missing) > 10 else ""
    )
    rows = "row" if len(missing) == 1 else "rows"
    left = f"{len(missing)} {rows} without a spec left out ({rows} {shown})"
    warning = f"{path}: warning: {left}"
    if has.any():
        return frame[has], (warning,), None if lengths is None else lengths[has]
    raise KprofileError(path, "no row has a spec string: nothing to analyze")


def _has_text(values: np.ndarray) -> np.ndarray:
    """Which values are non-empty strings (one C pass where all are strings)."""
    if pd.api.types.infer_dtype(values, skipna=False) == "string":
        return np.asarray(values != "", dtype=bool)  # one comparison per item, in C
    return np.fromiter(
        (isinstance(v, str) and v != "" for v in values), dtype=bool, count=len(values)
    )


def _load_yaml(path: str, max_rows: int) -> Results:
    from kprofile.inputs.specyaml import expand_spec  # start-up: YAML inputs only
    from tuning_codegen.manifest import load_manifest  # start-up: YAML inputs only

    manifest = load_manifest(path)
    grid = expand_spec(manifest.document, path, max_rows=max_rows)
    if not grid.size:
        raise KprofileError(
            path,
            "no parameter instances (empty params, or every instance excluded by "
            "rules)",
        )
    frame = _exact_frame(grid.columns, grid.names)
    # kbench numbers the points of a spec in this order: their mesh_idx
    frame, key = with_row_key(frame, MESH_IDX, np.arange(len(frame)))
    doc = manifest.document
    return Results(
        path,
        "yaml",
        frame,
        grid.names,
        name=text_value(doc.get("name")),
        file=text_value(doc.get("file")),
        row_key=key,
    )


def _exact_frame(columns: Mapping[str, Any], names: Sequence[str]) -> pd.DataFrame:
    """The typed columns of a spec as a frame, object columns kept as objects: pandas
    would otherwise read datetimes as ``datetime64`` and strings as ``str`` with NaN,
    and a YAML value would no longer be what the file says."""
    series = {
        name: pd.Series(columns[name], dtype=object, copy=False)
        if isinstance(columns[name], np.ndarray) and columns[name].dtype.kind == "O"
        else columns[name]
        for name in names
    }
    return pd.DataFrame(series, columns=list(names), copy=False)
