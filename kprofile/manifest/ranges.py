"""Replace the range entries of some groups in a curated manifest, keeping every other
byte (``--ranges --update``).

Text in, text out. For each group of the results, the ``params`` entries that carry the
range column and its end (``M`` and ``M_END``) and whose merged values equal the group's
on every matched column are the group's old ranges: they are removed, and the group's
new entries take the place of the first of them. An entry without the end column is a
point someone tuned by hand (``M: 100``): it stays, as every other entry does. The new
ranges keep the old ones' outer bounds where those reach further (a curated first
range from ``M: 0``, a last one to a large ``M_END``): the sweep measured only between.
A group with no old entry gets its entries after the last entry of ``params``. A group
whose old entries already equal the new ones is left alone.

New entries are written like their neighbour: the same merge key (``<<: *defaults``;
keys equal to what it gives are not repeated), dash and key columns, block or flow
mapping, and each value in the style of the first scalar written for its key. Every
other byte is the input's own: comments, blank lines, anchors, other entries, line
endings, a missing final newline. The result is parsed again and must hold exactly the
intended entries, else nothing is returned.

Built on the in-place editor's primitives (``read_layout``, ``Edit``/``apply_edits``,
the scalar writer, ``neighbour``'s entry writer), which it uses without changing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from kprofile.manifest.change import GroupRanges, RangeTable
from kprofile.manifest.layout import Item, Layout, read_layout
from kprofile.manifest.neighbour import insertion, overwrite, removal
from kprofile.manifest.scalar import normalize
from kprofile.manifest.splice import Edit, apply_edits
from kprofile.manifest.verify import check_update
from tuning_codegen.errors import InputError
from tuning_codegen.values import same_entry, same_value

Status = Literal["added", "replaced", "unchanged"]
Values = dict[str, Any]


@dataclass(frozen=True)
class GroupChange:
    group: Mapping[str, Any]
    status: Status
    removed: tuple[int, ...]  # params indices of the group's old entries
    entries: tuple[int, ...]  # params indices of its entries after the update


@dataclass(frozen=True)
class ReplaceResult:
    text: str
    changes: tuple[GroupChange, ...]


@dataclass(frozen=True)
class _Plan:
    group: GroupRanges
    removed: tuple[int, ...]
    entries: tuple[Values, ...]  # normalized
    merged: tuple[Values, ...]  # as they will read back
    status: Status


def replace_ranges(
    text: str,
    table: RangeTable,
    *,
    match: Sequence[str],
    path: str,
    layout: Layout | None = None,
) -> ReplaceResult:
    """``text`` with each group's range entries replaced (see the module docstring);
    ``layout``: its layout, if the caller read it already (``read_layout``)."""
    layout = read_layout(text, path) if layout is None else layout
    merged = [dict(item.merged) for item in layout.items]
    if layout.flow and layout.items:
        raise InputError(
            path,
            "--update --ranges edits a block list of params (one '- ' entry per "
            "line), not a flow list [...]",
        )
    owners = _owners(merged, table, tuple(match), path)
    plans = _plans(layout, table, owners, merged, path)
    edits = _edits(text, layout, plans, path)
    new_text = apply_edits(text, edits) if edits else text
    expected, changes = _expected(merged, plans)
    if new_text != text:
        check_update(
            new_text, path, layout, expected,
            action="replace the ranges in place",
            suspect="an anchor inside a replaced entry?",
        )  # fmt: skip
    return ReplaceResult(new_text, tuple(changes))


def _owners(
    merged: Sequence[Values], table: RangeTable, match: tuple[str, ...], path: str
) -> list[tuple[int, ...]]:
    """For each group, the indices of its old range entries; an entry two groups
    claim is an error."""
    owner: dict[int, int] = {}
    out = []
    for number, group in enumerate(table.groups):
        owned = tuple(
            i
            for i, entry in enumerate(merged)
            if table.column in entry
            and table.end in entry
            and all(p in entry and same_value(entry[p], group.group[p]) for p in match)
        )
        for i in owned:
            if i in owner:
                other = table.groups[owner[i]].group
                raise InputError(
                    path,
                    f"params[{i}] matches both {_label(other)} and "
                    f"{_label(group.group)}; name the columns that tell them apart "
                    "with -p",
                )
            owner[i] = number
        out.append(owned)
    return out


def _label(values: Mapping[str, Any]) -> str:
    return "/".join(f"{k}={v}" for k, v in values.items()) or "the only group"


def _plans(
    layout: Layout,
    table: RangeTable,
    owners: Sequence[tuple[int, ...]],
    merged: Sequence[Values],
    path: str,
) -> list[_Plan]:
    """What happens to each group. New entries are written like the first entry they
    replace; a new group's like the last entry that stays."""
    plans: list[_Plan | None] = [
        _plan(
            _bounded(g, [merged[i] for i in owned], table),
            owned,
            layout.items[owned[0]],
            merged,
            path,
        )
        if owned
        else None
        for g, owned in zip(table.groups, owners)
    ]
    gone = _gone([p for p in plans if p is not None])
    kept = [item for item in layout.items if item.index not in gone]
    last = kept[-1] if kept else None
    return [
        p if p is not None else _plan(g, (), last, merged, path)
        for g, p in zip(table.groups, plans)
    ]


def _bounded(
    group: GroupRanges, old: Sequence[Values], table: RangeTable
) -> GroupRanges:
    """The group's new ranges, the first starting where the old first did and the
    last ending where the old last did, where those reach further."""
    entries = [dict(e) for e in group.entries]
    if not entries:
        return group
    start, end = table.column, table.end
    starts = [e[start] for e in old if _number(e[start])]
    ends = [e[end] for e in old if _number(e[end])]
    if starts and _number(entries[0][start]) and min(starts) < entries[0][start]:
        entries[0][start] = min(starts)
    if ends and _number(entries[-1][end]) and max(ends) > entries[-1][end]:
        entries[-1][end] = max(ends)
    return group._replace(entries=tuple(entries))


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _plan(
    group: GroupRanges,
    removed: tuple[int, ...],
    like: Item | None,
    merged: Sequence[Values],
    path: str,
) -> _Plan:
    defaults = {} if like is None or like.merge_text is None else dict(like.defaults)
    entries = tuple(
        {str(k): normalize(v, str(k), path) for k, v in e.items()}
        for e in group.entries
    )
    after = tuple({**defaults, **e} for e in entries)
    before = [merged[i] for i in removed]
    status: Status = "added" if not removed else "replaced"
    if removed and len(before) == len(after) and all(map(same_entry, before, after)):
        status = "unchanged"
    return _Plan(group, removed, entries, after, status)


def _gone(plans: Sequence[_Plan]) -> set[int]:
    """Old entries that disappear: a replaced group's, but the first (overwritten)."""
    return {i for p in plans if p.status == "replaced" for i in p.removed[1:]}


def _edits(text: str, layout: Layout, plans: Sequence[_Plan], path: str) -> list[Edit]:
    gone = _gone(plans)
    edits: list[Edit] = []
    for plan in plans:
        if plan.status == "replaced":
            first, *rest = plan.removed
            edits.append(
                overwrite(text, layout, layout.items[first], plan.entries, path)
            )
            edits += [removal(text, layout.items[i], path) for i in rest]
    added = [e for p in plans if p.status == "added" for e in p.entries]
    if added:
        kept = [item for item in layout.items if item.index not in gone]
        last = kept[-1] if kept else None
        edits.append(insertion(text, layout, last, added, path))
    return edits


def _expected(
    merged: Sequence[Values], plans: Sequence[_Plan]
) -> tuple[list[Values], list[GroupChange]]:
    """The entries the result must read back as, and what happened to each group."""
    first = {p.removed[0]: p for p in plans if p.status == "replaced"}
    gone = _gone(plans)
    expected: list[Values] = []
    moved: dict[int, int] = {}  # old index -> new index of what stands there
    for i, entry in enumerate(merged):
        moved[i] = len(expected)
        if i in first:
            expected += first[i].merged
        elif i not in gone:
            expected.append(entry)
    changes = []
    for plan in plans:
        if plan.status == "added":
            at = tuple(range(len(expected), len(expected) + len(plan.merged)))
            expected += plan.merged
        elif plan.status == "replaced":
            start = moved[plan.removed[0]]
            at = tuple(range(start, start + len(plan.merged)))
        else:  # unchanged: where its old entries now stand
            at = tuple(moved[i] for i in plan.removed)
        changes.append(GroupChange(plan.group.group, plan.status, plan.removed, at))
    return expected, changes
