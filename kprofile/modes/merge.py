"""``--merge``: the handler and its section (the joined table, sorted and filtered);
``-o`` writes its rows. The analysis is ``kprofile.core.merge``."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from kprofile.core.merge import Merged, merge_inputs, sort_rows
from kprofile.core.metric import Metric
from kprofile.core.query import query_rows
from kprofile.core.values import records
from kprofile.errors import usage_error
from kprofile.options import Options
from kprofile.outcome import Outcome
from kprofile.render.section import Section


def run(options: Options, outcome: Outcome, metric: Metric | None) -> None:
    """``--merge``: the joined table, sorted and filtered; -o writes its rows."""
    merged = merge_inputs(outcome.inputs, options.pivots)
    table = merged.table
    if options.sort_pivots:
        table = sort_rows(table, options.sort_pivots)
    if options.query:
        table = query_rows(table, options.query)
    if table.empty:
        after = f" after --query {options.query!r}" if options.query else ""
        raise usage_error(f"--merge: the result is empty{after}")
    merged = dataclasses.replace(merged, table=table)
    outcome.sections.append(merge_section(merged, [r.path for r in outcome.inputs]))
    outcome.entries += records(table)


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
        "merge", "merge: " + ", ".join(sources), None, facts, merged.table, notes=notes
    )
