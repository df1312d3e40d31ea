"""``--merge``: the handler and its section (the joined table, sorted and filtered);
``-o`` writes its rows, exactly, or refuses a value no manifest entry can hold with
the file and line it came from. The analysis is ``kprofile.core.merge``."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import pandas as pd

from kprofile.core.values import exact
from kprofile.errors import KprofileError, usage_error
from kprofile.inputs.load import Results
from kprofile.modes.result import ModeResult
from kprofile.render.section import Section
from tuning_codegen.values import same_value

if TYPE_CHECKING:
    from kprofile.core.merge import Merged
    from kprofile.manifest.change import Entry


class MergeRequest(NamedTuple):
    inputs: tuple[Results, ...]
    pivots: tuple[str, ...] = ()  # the join columns (default: those all share)
    sort_pivots: tuple[str, ...] = ()
    query: str | None = None  # rows kept after the join
    writable: bool = False  # -o writes the rows: refuse what no manifest can hold


def run(request: MergeRequest) -> ModeResult:
    """``--merge``: the joined table, sorted and filtered; -o writes its rows."""
    from kprofile.core.merge import (  # start-up: --merge only
        merge_inputs,
        merged_entries,
        sort_rows,
    )
    from kprofile.core.query import query_rows  # start-up: --query, --merge only

    merged = merge_inputs(request.inputs, request.pivots)
    table = merged.table
    if request.sort_pivots:
        table = sort_rows(table, request.sort_pivots)
    if request.query:
        table = query_rows(table, request.query)
    if table.empty:
        after = f" after --query {request.query!r}" if request.query else ""
        raise usage_error(f"--merge: the result is empty{after}")
    merged = dataclasses.replace(merged, table=table)
    section = merge_section(merged, [r.path for r in request.inputs])
    entries = merged_entries(table)
    if request.writable:
        check_writable(entries, request.inputs)
    return ModeResult((section,), tuple(entries))


def check_writable(entries: Sequence[Entry], inputs: Sequence[Results]) -> None:
    """Every key and value can be written to a manifest, or the error names the
    parameter, and the input file and line it came from."""
    from kprofile.manifest.scalar import key_problem  # start-up: YAML, -o only
    from kprofile.manifest.write import value_problem  # start-up: YAML, -o only

    for entry in entries:
        for key, value in entry.items():
            problem = key_problem(key, "explicit")
            if problem is not None:
                raise _refusal(inputs, key, value, problem, is_value=False)
            problem = value_problem(value)
            if problem is not None:
                raise _refusal(
                    inputs, key, value, f"parameter {key!r}: {problem}", is_value=True
                )


def _refusal(
    inputs: Sequence[Results], key: str, value: Any, problem: str, *, is_value: bool
) -> KprofileError:
    from kprofile.inputs.yamlsource import (  # start-up: YAML, --merge -o only
        any_node,
        is_collection,
        key_line,
    )

    source = _source(inputs, key, value)
    if source is None:
        return usage_error(f"--merge -o: {problem}")
    line = None
    if source.kind == "yaml":
        line = key_line(source.path, key, is_collection if is_value else any_node)
    return KprofileError(source.path, f"--merge -o: {problem}", line=line)


def _source(inputs: Sequence[Results], key: str, value: Any) -> Results | None:
    """The first input whose column ``key`` holds ``value`` (the very object, else
    the same value)."""
    from kprofile.core.merge import cells  # start-up: --merge only

    holders = [r for r in inputs if key in r.params]
    for results in holders:
        if any(v is value for v in cells(results, key).values):
            return results
    for results in holders:
        if any(same_value(exact(v), value) for v in cells(results, key).values):
            return results
    return holders[0] if holders else None


def merge_section(merged: Merged, sources: Sequence[str]) -> Section:
    facts = (
        ("inputs", len(sources)),
        ("pivots", ", ".join(merged.pivots)),
        ("rows", len(merged.table)),
    )
    notes: tuple[str, ...] = ()
    if merged.conflicts:
        notes = (
            f"note: {merged.conflicts} value(s) differed between inputs; "
            "the first input's value was kept",
        )
    return Section(
        "merge",
        "merge: " + ", ".join(sources),
        None,
        facts,
        shown_sets(merged.table),
        notes=notes,
    )


def shown_sets(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with every set spelled in sorted order, so the report does not
    depend on the hash seed (a set's own order does); -o refuses sets."""
    out = table
    for i in range(table.shape[1]):
        column = table.iloc[:, i]
        if column.dtype.kind == "O" and any(
            isinstance(v, (set, frozenset)) for v in column.tolist()
        ):
            if out is table:
                out = table.copy(deep=False)
            out.isetitem(i, column.map(_set_text).to_numpy(dtype=object))
    return out


def _set_text(value: Any) -> Any:
    if not isinstance(value, (set, frozenset)):
        return value
    return "{" + ", ".join(sorted(repr(v) for v in value)) + "}"
