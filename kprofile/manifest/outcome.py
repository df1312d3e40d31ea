"""What ``--update`` did to each shape of a manifest, as records, and how a change
reads in the summary (``BM: 128 -> 256``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from kprofile.manifest.scalar import render_scalar

Status = Literal["added", "changed", "unchanged", "kept"]  # kept: --keep-within


@dataclass(frozen=True)
class ShapeChange:
    shape: Mapping[str, Any]
    status: Status
    index: int
    changed_keys: tuple[str, ...]
    before: Mapping[str, Any] = field(
        default_factory=dict
    )  # merged values of changed_keys before
    after: Mapping[str, Any] = field(default_factory=dict)  # ... and after the update


@dataclass(frozen=True)
class Dropped:
    """A comment the update took away with the value it described: the entry's
    index in ``params``, the key and the comment's text."""

    index: int
    key: str
    comment: str


class Summary(NamedTuple):
    """What a summary of an update adds to its rows (``--keep-within``'s judgement):
    facts before the counts, columns after the changes, notes; ``kept``: the counts
    include ``kept``."""

    facts: tuple[tuple[str, Any], ...] = ()
    columns: Mapping[str, list[Any]] = {}
    notes: tuple[str, ...] = ()
    kept: bool = False


@dataclass(frozen=True)
class UpdateResult:
    text: str
    changes: tuple[ShapeChange, ...]
    dropped: tuple[Dropped, ...] = ()


def change_details(change: ShapeChange) -> str:
    """``BM: 128 -> 256, ...`` for a changed shape, ``BM=64, ...`` (non-shape keys) for
    an added one, ``best BM=256, ...`` for one that kept its config (the values it
    was spared), and the empty string for an unchanged one."""
    if change.status == "added":
        return ", ".join(
            f"{k}={show_value(v)}"
            for k, v in change.after.items()
            if k not in change.shape
        )
    if change.status == "changed":
        return ", ".join(
            f"{k}: {show_value(change.before.get(k, _UNSET))}"
            f" -> {show_value(change.after[k])}"
            for k in change.changed_keys
        )
    if change.status == "kept":
        spared = (f"{k}={show_value(change.after[k])}" for k in change.changed_keys)
        return "best " + ", ".join(spared)
    return ""


class _Unset:
    def __repr__(self) -> str:
        return "unset"


_UNSET: Any = _Unset()


def show_value(value: Any) -> str:
    """A value as it reads in YAML flow style; ``unset`` for a key the entry did not
    have."""
    if value is _UNSET:
        return "unset"
    if value is None or isinstance(value, (bool, int, float, str)):
        return render_scalar(value, flow=True)
    return repr(value)  # a list or mapping the entry held before


def dropped_note(dropped: Sequence[Dropped]) -> tuple[str, ...]:
    """The comments that went with the values they described, as one note."""
    if not dropped:
        return ()
    said = ", ".join(f"params[{d.index}] {d.key} ({d.comment})" for d in dropped)
    return (f"comments dropped with the values they described: {said}",)
