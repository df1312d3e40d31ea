"""``--merge``, the analysis: an outer join of several tables (usually manifests) on
pivot columns.

Rows keep the order in which their pivot values first appear across the inputs. A
column other than the pivots present in several inputs is filled from the first input
that has a value for the row; rows where inputs disagree are counted in a note.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from kprofile.errors import KprofileError, usage_error
from kprofile.inputs.load import Results


@dataclass(frozen=True, eq=False)
class Merged:
    table: pd.DataFrame
    pivots: tuple[str, ...]
    conflicts: int


def default_pivots(inputs: Sequence[Results]) -> tuple[str, ...]:
    """The parameter columns every input has, in the first input's order."""
    return tuple(p for p in inputs[0].params if all(p in r.params for r in inputs[1:]))


def merge_inputs(inputs: Sequence[Results], pivots: Sequence[str] = ()) -> Merged:
    """Outer join of the inputs' parameter tables on ``pivots`` (default: common
    columns)."""
    keys = tuple(pivots) or default_pivots(inputs)
    if not keys:
        raise usage_error(
            "--merge: the inputs share no column to join on; name pivots with -p",
        )
    frames = []
    for results in inputs:
        missing = [k for k in keys if k not in results.params]
        if missing:
            raise KprofileError(
                results.path,
                f"--merge: no pivot column {', '.join(map(repr, missing))}",
            )
        frames.append(_nullable(results.frame[list(results.params)]))
    order = pd.concat(
        [f[list(keys)] for f in frames], ignore_index=True
    ).drop_duplicates(ignore_index=True)
    table = order
    conflicts = 0
    for frame in frames:
        table = table.merge(
            frame, how="left", on=list(keys), sort=False, suffixes=("", " (next)")
        )
        for column in [c for c in table.columns if c.endswith(" (next)")]:
            base = column.removesuffix(" (next)")
            first, later = table[base], table[column]
            if first.dtype != later.dtype:
                first, later = first.astype(object), later.astype(object)
            both = (first.notna() & later.notna()).to_numpy(dtype=bool)
            conflicts += int((first[both].to_numpy() != later[both].to_numpy()).sum())
            table[base] = first.where(first.notna(), later)
            table = table.drop(columns=column)
    return Merged(table, keys, conflicts)


def _nullable(frame: pd.DataFrame) -> pd.DataFrame:
    """Integer and boolean columns as nullable dtypes, so an outer join keeps 256 as
    256."""
    converted: dict[str, pd.Series] = {}
    for column in frame.columns:
        dtype = frame[column].dtype
        if pd.api.types.is_bool_dtype(dtype) and not isinstance(dtype, pd.BooleanDtype):
            converted[column] = frame[column].astype("boolean")
        elif pd.api.types.is_integer_dtype(dtype) and not isinstance(
            dtype, pd.api.extensions.ExtensionDtype
        ):
            converted[column] = frame[column].astype("Int64")
    return frame.assign(**converted) if converted else frame


def sort_rows(table: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """Stable sort by ``columns`` (each ascending, missing last)."""
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise usage_error(f"--sort-pivots: no column {', '.join(map(repr, missing))}")
    try:
        return table.sort_values(
            list(columns), kind="stable", na_position="last", ignore_index=True
        )
    except TypeError as exc:
        raise usage_error(f"--sort-pivots: cannot sort mixed values ({exc})") from None
