"""Reading inputs: kbench pickles and CSVs, spec YAMLs and manifests, into ``Results``.

Every loader returns one typed record whose frame has a column naming each row
(``Results.row_key``: kbench's ``mesh_idx``; for a CSV row, which has none, the line
it starts on; for a pickled frame without one, the row's position in it) and one
column per parameter (decoded from ``spec`` for results, the params keys for YAML).
A file that cannot be used raises ``InvalidInputError``; ``load_inputs`` collects
those so the command can skip the file, report it and carry on.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from kprofile.errors import InvalidInput, InvalidInputError, KprofileError
from kprofile.inputs.csvfile import SPEC, read_csv
from kprofile.inputs.files import irregular
from kprofile.inputs.limits import DEFAULT_MAX_ROWS
from kprofile.inputs.pickles import RefusedPickle, read_pickle
from kprofile.inputs.spec import SpecLimit, expand_specs, parse_token
from kprofile.inputs.specyaml import expand_spec
from kprofile.progress import SILENT, Progress
from tuning_codegen.errors import InputError
from tuning_codegen.manifest import load_manifest

MESH_IDX = "mesh_idx"
LINE = "line"  # a CSV row's row key: the line it starts on in the file
ROW = "row"  # the row key of a pickled frame without mesh_idx: the row's position
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
# What DataFrame.to_pickle writes (and kprofile decompresses, bounded).
COMPRESSED = (".gz", ".bz2", ".xz", ".zst")


@dataclass(frozen=True, eq=False)
class Results:
    """One input file as a table.

    ``params`` names the parameter columns in spec order (for YAML inputs, the params
    keys). ``name``/``file``/``git_revision``/``datetime`` are kbench's metadata where
    the file has it. ``warnings`` are complete lines for stderr (rows left out).
    ``constant`` names the parameter columns constant in ``frame`` when whoever made
    the record already knows them (a ``-p`` group: ``core.columns.groups`` works them
    out for every group at once); None: not known yet. ``runtime``: the parameters the
    spec marks as runtime (``$M=256``), which kbench's own specs use for the shape.
    """

    path: str
    kind: str
    frame: pd.DataFrame
    params: tuple[str, ...]
    name: str | None = None
    file: str | None = None
    git_revision: str | None = None
    datetime: str | None = None
    warnings: tuple[str, ...] = ()
    row_key: str = MESH_IDX  # the column naming each row (core.columns.row_id)
    constant: tuple[str, ...] | None = None
    runtime: tuple[str, ...] = ()


def kind_of(path: str) -> str:
    suffixes = [s.lower() for s in Path(path).suffixes[-2:]]
    if len(suffixes) == 2 and suffixes[1] in COMPRESSED and KINDS.get(suffixes[0]):
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
        if kind == "pkl":
            return _load_pickle(path)
        if kind == "csv":
            table = read_csv(path)
            results = _results(path, "csv", table.frame, {}, (LINE, table.lines))
            return dataclasses.replace(results, warnings=table.warnings)
        return _load_yaml(path, max_rows)
    except InvalidInputError:
        raise
    except InputError as exc:  # KprofileError, and tuning_codegen's manifest errors
        raise invalid(
            exc.message
            if exc.location.line is None
            else f"line {exc.location.line}: {exc.message}"
        ) from None
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
            raise KprofileError(
                path, "no 'merged_df' (kbench writes none when nothing ran)"
            )
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
    frame, warnings = _rows_with_a_spec(frame, path)
    return dataclasses.replace(_results(path, "pkl", frame, meta), warnings=warnings)


def _rows_with_a_spec(
    frame: pd.DataFrame, path: str
) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """A row without a spec string has no parameters: it is left out, never ranked
    (as a truncated CSV row is), with a warning naming its position."""
    if SPEC not in frame.columns:
        return frame, ()
    spec = frame[SPEC]
    has = spec.map(lambda s: isinstance(s, str) and s != "").to_numpy(dtype=bool)
    if has.all():
        return frame, ()
    missing = np.flatnonzero(~has)
    shown = ", ".join(str(i) for i in missing[:10]) + (
        ", ..." if len(missing) > 10 else ""
    )
    rows = "row" if len(missing) == 1 else "rows"
    left = f"{len(missing)} {rows} without a spec left out ({rows} {shown})"
    warning = f"{path}: warning: {left}"
    if has.any():
        return frame[has], (warning,)
    raise KprofileError(path, "no row has a spec string: nothing to analyze")


def _load_yaml(path: str, max_rows: int) -> Results:

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
    frame, key = _with_row_key(frame, MESH_IDX, np.arange(len(frame)))
    doc = manifest.document
    return Results(
        path,
        "yaml",
        frame,
        grid.names,
        name=_text(doc.get("name")),
        file=_text(doc.get("file")),
        row_key=key,
    )


def _with_row_key(
    frame: pd.DataFrame, name: str, values: np.ndarray
) -> tuple[pd.DataFrame, str]:
    """``frame`` with ``values`` as its first column, named ``name`` unless the file
    has a column of that name (then ``name (kprofile)``), and that name."""
    key = name
    while key in frame.columns:
        key = f"{key} (kprofile)"
    frame = frame.reset_index(drop=True)
    frame.insert(0, key, values)
    return frame, key


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


def _results(
    path: str,
    kind: str,
    frame: pd.DataFrame,
    meta: Mapping[str, Any],
    rows: tuple[str, np.ndarray] | None = None,
) -> Results:
    """``rows``: the row key to add and its values (a CSV's lines); None for a
    pickled frame, whose ``mesh_idx`` names its rows, or its positions without one."""
    if frame.empty:
        raise KprofileError(path, "the results table has no rows")
    frame = frame.reset_index(drop=True)
    if rows is None and MESH_IDX not in frame.columns:
        rows = (ROW, np.arange(len(frame)))
    params: tuple[str, ...] = ()
    runtime: tuple[str, ...] = ()
    name = _text(meta.get("name"))
    if SPEC in frame.columns:
        try:
            decoded = expand_specs(frame[SPEC].to_numpy(dtype=object))
        except SpecLimit as exc:
            raise KprofileError(path, str(exc)) from None
        renamed = {
            p: (p if p not in frame.columns else f"{p} (spec)") for p in decoded.names
        }
        params = tuple(renamed.values())
        extra = pd.DataFrame(
            {renamed[p]: decoded.columns[p] for p in decoded.names}, index=frame.index
        )
        frame = pd.concat([frame, extra], axis=1)
        first = frame[SPEC].iloc[0]
        runtime = _runtime(first, renamed)
        if name is None:
            name = first.split("/", 1)[0] if isinstance(first, str) else None
    key = MESH_IDX
    if rows is not None:
        frame, key = _with_row_key(frame, *rows)
    return Results(
        path,
        kind,
        frame,
        params,
        name=name,
        file=_text(meta.get("file")),
        git_revision=_text(meta.get("git-revision")),
        runtime=runtime,
        datetime=_text(meta.get("datetime")),
        row_key=key,
    )


def _text(value: Any) -> str | None:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return None
    if isinstance(value, _dt.datetime):
        return value.isoformat(sep=" ", timespec="seconds")
    return str(value)


def _runtime(first: Any, renamed: Mapping[str, str]) -> tuple[str, ...]:
    """The parameter columns the first spec string marks as runtime (``$M=256``)."""
    if not isinstance(first, str):
        return ()
    tokens = first.split("/")[1:]
    names = (parse_token(t)[0] for t in tokens if t.lstrip().startswith("$"))
    return tuple(dict.fromkeys(renamed[n] for n in names if n in renamed))
