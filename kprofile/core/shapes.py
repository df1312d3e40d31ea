"""Every shape's best config at once, per input: what the per-shape view shows.

An input's rows are grouped by the shape's columns (``kprofile.core.problems``,
through ``core.columns.group_rows``); for every group, in a few passes over the whole
file (``reduceat`` over its groups, never a step per group): its best run, the best
run of another config (the runner-up) and its ratio, how many configs ran within a
band of the best, and its failed runs, by the kind kbench recorded. A config is the
values of the parameters that are not the shape's (``core.configs``), so a config
run twice in one file is never its own runner-up. Ties go to the first row, as
``core.summary`` breaks them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kprofile.core.columns import Grouping, first_minimum
from kprofile.core.configs import config_keys
from kprofile.core.metric import Metric, metric_values, ratio_to, valid_mask
from kprofile.core.summary import failures_by_kind

SLACK = 1e-12  # a ratio of exactly 1 + band stays within it, as --within keeps it


@dataclass(frozen=True, eq=False)
class ShapeBests:
    """Each group of ``grouping`` (one input's shapes), in its order: ``best`` the
    file row of its best run (-1: nothing ran), ``value`` its metric (NaN: none),
    ``runner_up`` the ratio of the best run of another config to it (NaN: no other
    config ran), ``within`` how many configs ran within the band of the best (the
    best included), ``failed`` its runs without a measurement, and ``failed_by``
    those kbench recorded, by kind (None: its record was not read)."""

    grouping: Grouping
    best: np.ndarray
    value: np.ndarray
    runner_up: np.ndarray
    within: np.ndarray
    failed: np.ndarray
    failed_by: dict[str, np.ndarray] | None


def shape_bests(
    grouping: Grouping, metric: Metric, params: Sequence[str], band: float
) -> ShapeBests:
    """``ShapeBests`` of ``grouping``; a config is the values of ``params``."""
    order, starts = grouping.order, grouping.starts
    values, keys, best = ranked_in_groups(grouping, metric)
    valid = np.isfinite(keys)
    ran = np.isfinite(keys[best])
    value = np.where(ran, values[best], np.nan)
    group = np.repeat(np.arange(len(starts)), grouping.stops - starts)
    config = config_keys(grouping.results, params)[order]
    other = np.where(config != config[best][group], keys, np.inf)
    second = first_minimum(other, starts)
    runner = np.where(np.isfinite(other[second]), values[second], np.nan)
    close = valid & (ratio_to(values, value[group], metric) <= 1.0 + band + SLACK)
    return ShapeBests(
        grouping,
        np.where(ran, order[best], -1),
        value,
        ratio_to(runner, value, metric),
        _distinct(group[close], config[close], len(starts)),
        (grouping.stops - starts) - np.add.reduceat(valid.astype(np.int64), starts),
        failures_by_kind(grouping),
    )


def ranked_in_groups(
    grouping: Grouping, metric: Metric
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The metric of the rows group by group (``grouping.order``), each row's key
    (lower is better; ``inf`` where it did not run), and each group's best position
    among them (its first smallest key)."""
    values = metric_values(grouping.results.frame, metric)[grouping.order]
    valid = valid_mask(values)
    keys = np.where(valid, -values if metric.higher_is_better else values, np.inf)
    return values, keys, first_minimum(keys, grouping.starts)


def _distinct(group: np.ndarray, config: np.ndarray, groups: int) -> np.ndarray:
    """How many distinct configs each group has among the rows given."""
    if not len(group):
        return np.zeros(groups, dtype=np.int64)
    order = np.lexsort((config, group))
    group, config = group[order], config[order]
    new = np.r_[True, (group[1:] != group[:-1]) | (config[1:] != config[:-1])]
    return np.bincount(group[new], minlength=groups)
