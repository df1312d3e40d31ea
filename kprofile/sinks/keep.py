"""``--update --keep-within``: which entries keep their config, and what the summary
says of each measured one.

Before the edit, ``kprofile.manifest.upsert.plan`` says which entry each chosen config
would change; each such entry's old config is judged on the results
(``kprofile.core.keep``) and, when it stands within X (or the noise) of the shape's
best, left as it is (``kept``). The others change as without the flag. The summary
gains, per entry its shape matched: ``gain`` (a changed entry: its old config's ratio
to the shape's best, the old value over the new best's for a time) or ``ratio`` (an
entry that keeps its config, kept or unchanged), ``noise`` (with ``noise``: the ratio
each had to stay within), and a fact for the tolerance and for the kept entries.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from kprofile.core.defaults import NOISE
from kprofile.core.keep import KeepRule, Verdict, judge
from kprofile.core.scorecols import SCORED
from kprofile.core.standing import closeness_label
from kprofile.manifest.change import Upserts
from kprofile.manifest.layout import Layout
from kprofile.manifest.outcome import ShapeChange, Summary, UpdateResult
from kprofile.manifest.upsert import plan, upsert

JUDGED = ("changed", "unchanged")  # the statuses of an entry the results measure


class Kept(NamedTuple):
    """``planned``: what the update would do to each chosen config's entry without
    ``--keep-within``; ``verdicts``: each entry's old config judged (None: a new
    shape); ``kept``: the positions of the entries that stay; ``configs``: the
    chosen configs still to put in."""

    rule: KeepRule
    planned: tuple[ShapeChange, ...]
    verdicts: tuple[Verdict | None, ...]
    kept: frozenset[int]
    configs: tuple[Mapping[str, Any], ...]


def keep_entries(
    text: str, change: Upserts, layout: Layout, pivots: Sequence[str], path: str
) -> Kept:
    """The entries ``change.keep`` keeps, and the configs left to put in."""
    rule = change.keep
    assert rule is not None  # the caller's check
    planned = plan(text, change.configs, pivots=pivots, path=path, layout=layout)
    judged = [i for i, c in enumerate(planned) if c.status in JUDGED]
    olds = [layout.items[planned[i].index].merged for i in judged]
    found = judge(rule.found, rule.within, [change.configs[i] for i in judged], olds)
    verdicts: list[Verdict | None] = [None] * len(planned)
    for i, verdict in zip(judged, found):
        verdicts[i] = verdict
    kept = frozenset(
        i for i, v in zip(judged, found) if v.kept and planned[i].status == "changed"
    )
    configs = tuple(c for i, c in enumerate(change.configs) if i not in kept)
    return Kept(rule, planned, tuple(verdicts), kept, configs)


def with_kept(result: UpdateResult, kept: Kept) -> UpdateResult:
    """``result`` (of the configs put in) with each kept entry's row in its place:
    status ``kept``, and the change it was spared."""
    made = iter(result.changes)
    rows = [
        replace(kept.planned[i], status="kept") if i in kept.kept else next(made)
        for i in range(len(kept.planned))
    ]
    return UpdateResult(result.text, tuple(rows), result.dropped)


def kept_update(
    text: str, change: Upserts, layout: Layout, pivots: Sequence[str], path: str
) -> tuple[UpdateResult, Summary]:
    """``upsert`` of the configs that do not stay, each kept entry's row in its
    place, and what the summary adds (module docstring)."""
    kept = keep_entries(text, change, layout, pivots, path)
    made = upsert(text, kept.configs, pivots=pivots, path=path, layout=layout)
    result = with_kept(made, kept)
    changes = result.changes
    more = Summary(
        (("keep within", closeness_label(kept.rule.within)),),
        keep_columns(kept, changes),
        keep_notes(kept, changes),
        kept=True,
    )
    return result, more


def keep_columns(kept: Kept, changes: Sequence[ShapeChange]) -> dict[str, list[Any]]:
    """Per row of the summary: ``gain`` of a changed entry, ``ratio`` of one that
    keeps its config, and with the noise the ``noise`` each had to stay within."""
    gain, ratio, limit = [], [], []
    for change, verdict in zip(changes, kept.verdicts):
        value = math.nan if verdict is None else verdict.ratio
        moved = change.status == "changed"
        gain.append(value if moved else math.nan)
        ratio.append(math.nan if moved else value)
        limit.append(math.nan if verdict is None else verdict.limit)
    columns = {"gain": gain, "ratio": ratio}
    if kept.rule.within == NOISE:
        columns["noise"] = limit
    return columns


def keep_notes(kept: Kept, changes: Sequence[ShapeChange]) -> tuple[str, ...]:
    """What ``gain`` means, and the changed entries whose old config has none."""
    notes = [
        "gain: the old config's ratio to the shape's best on these results (its "
        "value / the best's, for a time); ratio: the same, of a config that stays"
    ]
    unmeasured = [
        f"params[{c.index}] ({v.status})"
        for c, v in zip(changes, kept.verdicts)
        if c.status == "changed" and v is not None and v.status != SCORED
    ]
    if unmeasured:
        notes.append(
            "no gain measured, the old config having no successful run there: "
            f"{', '.join(unmeasured)}; changed as without --keep-within"
        )
    return tuple(notes)
