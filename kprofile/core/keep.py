"""``--update --keep-within``: how each entry's config fares on the new results, and
whether it stays.

An entry about to change (``--update`` found another config for its shape) is judged
where it is dispatched: its shape, as the new config names it, and its config, the
entry's values for the results' parameter columns (a key it lacks reads as null),
looked up as ``--score`` looks up a table's configs (``kprofile.core.score``). It gets
``--score``'s status there: ``scored`` with its ratio to the shape's new best (the old
config's value / the new best's, for a time), or ``config failed`` (every run of it
failed at the shape), ``not measured`` (the results have no run of it there). A scored
config close to the best (``kprofile.core.standing``: within X, or within the noise)
is kept; any other entry changes as it would without ``--keep-within``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from kprofile.core.defaults import Closeness
from kprofile.core.score import config_ids, score_configs
from kprofile.core.scorecols import NOT_MEASURED, RATIO, SCORED, STATUS
from kprofile.core.standing import Standing, is_close, limits


class KeepRule(NamedTuple):
    """What ``--update`` keeps: entries whose config stands ``within`` of the best
    on the results ``found``."""

    found: Standing
    within: Closeness


class Verdict(NamedTuple):
    """One entry's old config on the new results: ``status`` (``--score``'s), its
    ``ratio`` to the shape's best and the largest ratio it could have and stay
    (``limit``; NaN both, unless scored), and whether it stays (``kept``)."""

    status: str
    ratio: float
    limit: float
    kept: bool


def judge(
    found: Standing,
    within: Closeness,
    shapes: Sequence[Mapping[str, Any]],
    olds: Sequence[Mapping[str, Any]],
) -> list[Verdict]:
    """Per pair of ``shapes`` (a config the results chose for a shape: it names every
    shape column) and ``olds`` (the merged values of the entry it would replace), the
    old config's verdict (module docstring)."""
    measured = found.measured
    if not len(shapes):
        return []
    shape = config_ids(list(shapes), measured.shapes)
    config = config_ids(list(olds), measured.configs)
    chosen = np.full(len(measured.shapes), -1, dtype=np.int64)
    known = shape >= 0
    chosen[shape[known]] = config[known]
    scored = score_configs(measured, chosen, found.metric).shapes
    rows = scored.reindex(np.where(known, shape, -1))
    status = rows[STATUS].fillna(NOT_MEASURED).tolist()
    ratio = rows[RATIO].to_numpy(dtype=np.float64)
    limit = _limits(found, within, shape, config)
    limit = np.where(np.array(status) == SCORED, limit, np.nan)
    return [
        Verdict(s, float(r), float(lim), s == SCORED and is_close(r, lim, within))
        for s, r, lim in zip(status, ratio, limit)
    ]


def _limits(
    found: Standing, within: Closeness, shape: np.ndarray, config: np.ndarray
) -> np.ndarray:
    """The limit of each (shape, config) pair (NaN where the pair did not run)."""
    table = found.measured.table
    rows = pd.DataFrame({"shape": shape, "config": config, "at": range(len(shape))})
    ran = table[["shape", "config"]].assign(limit=limits(found, within))
    joined = rows.merge(ran, on=["shape", "config"], how="left").sort_values("at")
    return joined["limit"].to_numpy(dtype=np.float64)
