"""One input file as a table: the ``Results`` record every loader returns, and how a
results frame becomes one (a column naming each row, the parameters decoded from its
spec strings, kbench's metadata as text).
"""

from __future__ import annotations

import datetime as _dt
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from kprofile.errors import KprofileError
from kprofile.inputs.csvfile import SPEC
from kprofile.inputs.spec import SpecLimit, expand_specs
from kprofile.inputs.specvalues import parse_token

MESH_IDX = "mesh_idx"
LINE = "line"  # a CSV row's row key: the line it starts on in the file
ROW = "row"  # the row key of a pickled frame without mesh_idx: the row's position


@dataclass(frozen=True, eq=False)
class ValueCodes:
    """Parameters' value codes (``spectyped.value_codes``) the loader made with the
    columns of one frame, good for that frame object only: a record holding another
    frame (after ``--query``, a ``-p`` group) factorizes its own."""

    frame: weakref.ReferenceType[pd.DataFrame]
    codes: Mapping[str, np.ndarray]


class Structure(NamedTuple):
    """What a file's own structure says of its compile-time parameters
    (``kprofile.core.structure``): ``sizes``, the problem sizes (N, K of a Mojo
    GEMM: fixed within a problem, changing with it), ``unsure``, those it cannot
    tell from a tuning parameter (taken as part of the problem), and ``constant``,
    the parameters with one value in the whole file."""

    sizes: tuple[str, ...]
    unsure: tuple[str, ...]
    constant: tuple[str, ...] = ()


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
    ``failure``: the column holding the kind of each point kbench recorded as failed
    (``build``, ``execution``, ``timeout``; None where the point ran), when its
    record was read (``inputs.failures``). ``structure``: the problem sizes its rows,
    as kbench ordered them, show (None: not read yet); a record made from it (a
    ``--query``, a group, combined runs) keeps what the file showed.
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
    failure: str | None = None
    known_codes: ValueCodes | None = None
    structure: Structure | None = None

    def value_codes(self, name: str) -> np.ndarray:
        """Column ``name`` as codes: equal values share one, a missing value is -1
        (``pd.factorize``, up to the numbering); the loader's, made once, where it
        made them for this very frame."""
        known = self.known_codes
        if known is not None and known.frame() is self.frame and name in known.codes:
            return known.codes[name]
        return pd.factorize(self.frame[name])[0]


def with_row_key(
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


def results_of(
    path: str,
    kind: str,
    frame: pd.DataFrame,
    meta: Mapping[str, Any],
    rows: tuple[str, np.ndarray] | None = None,
    spec_lengths: np.ndarray | None = None,
) -> Results:
    """``rows``: the row key to add and its values (a CSV's lines); None for a
    pickled frame, whose ``mesh_idx`` names its rows, or its positions without one.
    ``spec_lengths``: those of the frame's spec strings, where the caller has them."""
    if frame.empty:
        raise KprofileError(path, "the results table has no rows")
    frame = frame.reset_index(drop=True)
    if rows is None and MESH_IDX not in frame.columns:
        rows = (ROW, np.arange(len(frame)))
    params: tuple[str, ...] = ()
    runtime: tuple[str, ...] = ()
    codes: Mapping[str, np.ndarray] = {}
    name = text_value(meta.get("name"))
    if SPEC in frame.columns:
        frame, params, runtime, first, codes = _with_spec_columns(
            path, frame, spec_lengths
        )
        if name is None:
            name = first.split("/", 1)[0] if isinstance(first, str) else None
    key = MESH_IDX
    if rows is not None:
        frame, key = with_row_key(frame, *rows)
    return Results(
        path,
        kind,
        frame,
        params,
        name=name,
        file=text_value(meta.get("file")),
        git_revision=text_value(meta.get("git-revision")),
        runtime=runtime,
        datetime=text_value(meta.get("datetime")),
        row_key=key,
        known_codes=ValueCodes(weakref.ref(frame), codes),
    )


def _with_spec_columns(
    path: str, frame: pd.DataFrame, lengths: np.ndarray | None
) -> tuple[pd.DataFrame, tuple[str, ...], tuple[str, ...], Any, dict[str, np.ndarray]]:
    """``frame`` with a column per parameter of its spec strings (renamed where the
    file has a column of that name), the parameters, the runtime ones, the first
    spec string, and the parameters' value codes."""
    try:
        decoded = expand_specs(frame[SPEC].to_numpy(dtype=object), lengths)
    except SpecLimit as exc:
        raise KprofileError(path, str(exc)) from None
    taken = frame.columns
    renamed = {p: (p if p not in taken else f"{p} (spec)") for p in decoded.names}
    extra = pd.DataFrame(  # one block per column: no copy into 2-D blocks
        {renamed[p]: decoded.columns[p] for p in decoded.names},
        index=frame.index,
        copy=False,
    )
    frame = pd.concat([frame, extra], axis=1)
    first = frame[SPEC].iloc[0]
    codes = {renamed[p]: decoded.codes[p] for p in decoded.names}
    return frame, tuple(renamed.values()), _runtime(first, renamed), first, codes


def text_value(value: Any) -> str | None:
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
