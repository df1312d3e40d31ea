"""``--fail-above R``: whether a table's score passes the gate, and the words for it.

The gate fails when the table is not shown to be within R of each shape's best: the
geomean ratio of the scored shapes is above R, no shape was scored, or (unless
``--allow-failed``) a shape has no ratio because the table's config failed there
(``config failed``), has no run there (``not measured``) or nothing ran there (``no
successful run``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from kprofile.core.scorecols import FAILED, NO_RUN, NOT_MEASURED
from kprofile.core.values import counted

if TYPE_CHECKING:
    from kprofile.core.score import Score


class Judged(NamedTuple):
    """What a gate judges: the geomean ratio of the shapes with one (``scored`` of
    ``shapes``), and the shapes without one, by reason."""

    geomean: float
    scored: int
    shapes: int
    failed: int  # the config judged failed there
    not_measured: int  # it has no run there
    no_run: int  # nothing ran there


class Words(NamedTuple):
    """What the messages call the config judged and its geomean."""

    config: str = "the table's config"
    geomean: str = "the geomean ratio"
    scored: str = "scored"  # the shapes with a ratio


TABLE = Words()


def gate(
    score: Score, limit: float, *, allow_failed: bool = False
) -> tuple[str, str | None]:
    """``--score --fail-above``: ``judge`` of a table's score."""
    judged = Judged(
        score.geomean,
        score.scored,
        len(score.shapes),
        score.failed,
        score.not_measured,
        score.no_run,
    )
    return judge(judged, limit, allow_failed=allow_failed)


def judge(
    score: Judged, limit: float, *, allow_failed: bool = False, words: Words = TABLE
) -> tuple[str, str | None]:
    """``--fail-above``: the fact it shows, and why the run fails (None: it passes).

    It fails when the geomean ratio of the scored shapes is above ``limit``, when no
    shape was scored, and (unless ``allow_failed``) when the table's config did not
    run successfully at a shape (``config failed``, ``not measured``) or nothing ran
    at one (``no successful run``): a crash is no ratio of 1.0, and a shape nobody
    measured is not a shape the table passed. Shapes no entry covers (``no entry``)
    lie outside the table and are counted apart only."""
    unrun, short = _unrun(score, words), _unrun(score, words, short=True)
    if not score.scored:
        return f"{limit:g}: fail (no shape {words.scored})", (
            f"fail: no shape was {words.scored}, so --fail-above {limit:g} cannot pass"
            + (f" ({unrun})" if unrun else "")
        )
    reasons, why = [], []
    if score.geomean > limit:
        reasons.append(f"{words.geomean} is above it")
        why.append(
            f"{words.geomean} {score.geomean:.6g} is above --fail-above {limit:g}"
        )
    if unrun and not allow_failed:
        reasons.append(short)
        why.append(f"{unrun}; --allow-failed judges the {words.scored} shapes alone")
    if reasons:
        return f"{limit:g}: fail ({'; '.join(reasons)})", f"fail: {'; '.join(why)}"
    if unrun:
        return f"{limit:g}: pass (--allow-failed: {short})", None
    return f"{limit:g}: pass", None


def _unrun(score: Judged, words: Words, *, short: bool = False) -> str:
    """The shapes the gate cannot pass, by reason: ``3 of 13 shapes have no ratio: 1
    where the table's config failed (config failed), 1 where it has no run (not
    measured), 1 where no config ran (no successful run)`` (``short``: ``3 of 13
    shapes without a ratio: 1 config failed, 1 not measured, 1 no successful run``);
    empty when there are none."""
    count = score.failed + score.not_measured + score.no_run
    if not count:
        return ""
    if short:
        return (
            f"{count} of {score.shapes} shapes without a ratio: "
            f"{score.failed} {FAILED}, {score.not_measured} {NOT_MEASURED}, "
            f"{score.no_run} {NO_RUN}"
        )
    return (
        f"{count} of {counted(score.shapes, 'shape', 'shapes')} "
        f"{'has' if count == 1 else 'have'} no ratio: {score.failed} where "
        f"{words.config} failed ({FAILED}), {score.not_measured} where it has no run "
        f"({NOT_MEASURED}), {score.no_run} where no config ran ({NO_RUN})"
    )
