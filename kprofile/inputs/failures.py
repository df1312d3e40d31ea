"""kbench's record of the points that failed: ``NAME.failures.json`` beside
``NAME.pkl`` and ``NAME.csv``.

kbench writes it with every run (``spec_name``, ``spec_file``, ``num_valid``,
``num_total`` and ``failures``: one ``{mesh_idx, params, failure_type, exec_stderr,
exec_stdout}`` per point that did not run, ``failure_type`` one of ``build``,
``execution``, ``timeout``). A failed point is not a row of the results; here it
becomes one, with no measurement (every column of the results missing) and its kind
in a column of its own, so that every view ranks it where a failed run goes: last,
never best.

The file is an input like any other: a regular file, read up to a size limit, at most
``MAX_FAILURES`` points, each checked for what it must be (a point's parameters are
plain names and scalars, which become a spec string decoded by the results' own
decoder). Nothing in it is trusted as a size or a path, and its stderr is never
printed. A missing file is silence (older kbench writes none); one that cannot be
used is one warning, and the results are read without it.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from kprofile.inputs.csvfile import SPEC
from kprofile.inputs.files import irregular, open_regular
from kprofile.inputs.limits import (
    MAX_FAILURES,
    MAX_FAILURES_BYTES,
    MAX_SPEC_CHARS,
    MAX_SPEC_TOKENS,
)
from kprofile.inputs.pickles.compressed import SUFFIXES as COMPRESSED

FAILURE = "failure"  # the column holding a failed point's kind (None: it ran)
KINDS = ("build", "execution", "timeout")
OTHER = "other"  # a failure_type kbench does not write today
SUFFIX = ".failures.json"
_SCALARS = (bool, int, float, str)
_MAX_INDEX = 1 << 53


@dataclass(frozen=True)
class FailedPoint:
    """One point kbench could not measure: its ``mesh_idx``, the ``NAME=value``
    tokens of its spec (runtime names with their ``$``) and its kind."""

    mesh_idx: int
    tokens: tuple[str, ...]
    kind: str


@dataclass(frozen=True)
class FailureRecord:
    path: str
    spec_name: str | None
    points: tuple[FailedPoint, ...]


class BadRecord(Exception):
    """Why a failures file cannot be used (one clause)."""


def failures_path(results_path: str) -> str:
    """Where kbench writes the failures of ``results_path``: ``out.pkl`` ->
    ``out.failures.json`` (kbench names every file of a run by adding a suffix), and
    so for a compressed copy of the pickle: ``out.pkl.gz`` -> ``out.failures.json``."""
    path = Path(results_path)
    if path.suffix.lower() in COMPRESSED and Path(path.stem).suffix:
        path = path.with_name(path.stem)
    return str(path.with_name(path.name.removesuffix(path.suffix) + SUFFIX))


def read_failures(results_path: str) -> tuple[FailureRecord | None, str | None]:
    """The failures recorded beside ``results_path``, and a warning line for stderr
    when there is a file that cannot be used (then no record). No file: neither."""
    path = failures_path(results_path)
    try:
        if not os.path.exists(path):
            return None, None
        return parse_failures(path, _read_bounded(path)), None
    except BadRecord as exc:
        return None, unusable(path, str(exc))
    except OSError as exc:
        return None, unusable(path, f"cannot read: {exc.strerror or exc}")
    except MemoryError:  # a file within the limit can still be too much here
        return None, unusable(path, "not enough memory to read it")


def unusable(path: str, reason: str) -> str:
    """The warning for a failures file that cannot be used."""
    return f"{path}: warning: {reason}; its failed points are not counted"


def _read_bounded(path: str) -> bytes:
    what = irregular(os.stat(path).st_mode)
    if what:
        raise BadRecord(f"not a regular file ({what})")
    with open_regular(path) as handle:
        data = handle.read(MAX_FAILURES_BYTES + 1)
    if len(data) > MAX_FAILURES_BYTES:
        raise BadRecord(f"larger than the limit of {MAX_FAILURES_BYTES:,} bytes")
    return data


def parse_failures(path: str, data: bytes) -> FailureRecord:
    """The record in ``data`` (the bytes of ``path``), checked; ``BadRecord`` when it
    is not what kbench writes."""
    try:
        document = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError as exc:
        raise BadRecord(f"not valid UTF-8 (byte offset {exc.start})") from None
    except RecursionError:
        raise BadRecord("nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, an integer of too many digits
        raise BadRecord(f"not valid JSON ({str(exc).splitlines()[0]})") from None
    if not isinstance(document, dict) or not isinstance(document.get("failures"), list):
        raise BadRecord("not a kbench failures record (no 'failures' list)")
    failures = document["failures"]
    if len(failures) > MAX_FAILURES:
        raise BadRecord(f"more than {MAX_FAILURES:,} failed points")
    points = tuple(_point(i, f) for i, f in enumerate(failures))
    seen: set[int] = set()
    for point in points:
        if point.mesh_idx in seen:
            raise BadRecord(f"mesh_idx {point.mesh_idx} failed twice")
        seen.add(point.mesh_idx)
    name = document.get("spec_name")
    return FailureRecord(path, name if isinstance(name, str) else None, points)


def _no_constant(name: str) -> Any:
    raise BadRecord(f"not valid JSON ({name} is no JSON number)")


def _point(position: int, failure: Any) -> FailedPoint:
    where = f"failure {position}"
    if not isinstance(failure, dict):
        raise BadRecord(f"{where} is not an object")
    index = failure.get("mesh_idx")
    if type(index) is not int or not 0 <= index < _MAX_INDEX:
        raise BadRecord(f"{where}: mesh_idx is not a point's index")
    params = failure.get("params")
    if not isinstance(params, dict) or len(params) > MAX_SPEC_TOKENS:
        raise BadRecord(f"{where}: params is not a mapping of parameters")
    tokens = tuple(_token(where, name, value) for name, value in params.items())
    if sum(map(len, tokens)) + len(tokens) > MAX_SPEC_CHARS:
        raise BadRecord(f"{where}: params longer than a spec string may be")
    kind = failure.get("failure_type")
    return FailedPoint(index, tokens, kind if kind in KINDS else OTHER)


def _token(where: str, name: Any, value: Any) -> str:
    """``NAME=value`` as kbench writes it in a spec string (``str`` of the value)."""
    if not isinstance(name, str) or not name.removeprefix("$").isidentifier():
        raise BadRecord(f"{where}: a parameter name is not a name")
    if value is not None and not isinstance(value, _SCALARS):
        raise BadRecord(f"{where}: {name} is not a scalar")
    if isinstance(value, float) and not math.isfinite(value):
        raise BadRecord(f"{where}: {name} is not a finite number")
    text = str(value)
    if "/" in text or "\n" in text:
        raise BadRecord(f"{where}: the value of {name} cannot be part of a spec")
    return f"{name}={text}"


def join_failures(
    frame: pd.DataFrame, record: FailureRecord, *, name: str | None, key: str | None
) -> tuple[pd.DataFrame, str]:
    """``frame`` (a results table before its spec strings are decoded) with a row
    per failed point of ``record`` after its own (its spec string made of the point's
    parameters, under the stem of the table's, ``key`` (the row key column the file
    has, if any) its ``mesh_idx``), and the name of the column of kinds."""
    if SPEC not in frame.columns or not len(frame):
        raise BadRecord("the results have no spec strings to match its points to")
    first = frame[SPEC].iloc[0]
    stem = first.split("/", 1)[0] if isinstance(first, str) else ""
    if record.spec_name is not None and record.spec_name != (name or stem):
        raise BadRecord("it names another benchmark than the results do")
    if key is not None:
        _check_not_measured(frame[key], record)
    column = FAILURE
    while column in frame.columns:
        column = f"{column} (kprofile)"
    points = record.points
    added = {
        SPEC: np.array(["/".join((stem, *p.tokens)) for p in points], dtype=object),
        column: np.array([p.kind for p in points], dtype=object),
    }
    if key is not None:
        added[key] = np.array([p.mesh_idx for p in points], dtype=np.int64)
    rows = pd.RangeIndex(len(frame), len(frame) + len(points))
    failed = pd.DataFrame(added, index=rows)
    ran = frame.reset_index(drop=True).assign(**{column: None})
    return pd.concat([ran, failed], axis=0), column


def _check_not_measured(keys: pd.Series, record: FailureRecord) -> None:
    """A point both measured and failed: the record is of another run."""
    failed = np.array([p.mesh_idx for p in record.points], dtype=np.int64)
    measured = pd.to_numeric(keys, errors="coerce").to_numpy(dtype=np.float64)
    both = np.intersect1d(failed, measured[np.isfinite(measured)])
    if len(both):
        raise BadRecord(
            f"mesh_idx {int(both[0])} is a measured row too (a record of another run)"
        )
