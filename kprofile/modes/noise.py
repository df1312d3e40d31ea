"""``--combine``'s report, after any mode's: the run-to-run spread of the combined
measurements, and the shapes whose best config is within it of others ("best is
within noise of N others"). The analysis is ``kprofile.core.repeats.noise``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from kprofile.core.values import MISSING_LABEL, entries, shape_label
from kprofile.render.section import Section

if TYPE_CHECKING:
    from kprofile.core.runs import CombinedRuns

WITHIN = "best within noise of"
RULE = (
    "spread: max / min of the successful runs of a config at a shape; another config "
    "is within noise of the best when its ratio is at most the larger spread of the two"
)


def noise_sections(runs: CombinedRuns, *, side: bool = False) -> list[Section]:
    """``noise``: facts, and one row per shape whose best is within noise of others.
    ``side``: one of several (``-d``'s baseline and new runs), named by its label."""
    from kprofile.core.repeats import (  # start-up: --combine only
        BEST_CONFIG,
        BEST_SPREAD,
        RUNNER_UP,
        RUNNER_UP_RATIO,
        SHAPE,
        WITHIN_NOISE,
    )

    noise, measured = runs.noise, runs.measured
    flagged = noise.flagged
    table = measured.shapes.loc[flagged[SHAPE].to_numpy()].reset_index(drop=True)
    labels = _config_labels(
        measured.configs, flagged[[BEST_CONFIG, RUNNER_UP]].to_numpy().ravel()
    )
    table["best"] = [labels[c] for c in flagged[BEST_CONFIG].tolist()]
    table[RUNNER_UP] = [labels[c] for c in flagged[RUNNER_UP].tolist()]
    table[RUNNER_UP_RATIO] = flagged[RUNNER_UP_RATIO].to_numpy()
    table[BEST_SPREAD] = flagged[BEST_SPREAD].to_numpy()
    table[WITHIN] = flagged[WITHIN_NOISE].to_numpy()
    repeats = runs.repeats
    facts: tuple[tuple[str, Any], ...] = (
        ("combined", f"{repeats.how} of the successful runs of each (shape, config)"),
        ("files", len(runs.files)),
        ("rows", sum(len(r.frame) for r in runs.files)),
        ("measurements", len(repeats.frame)),
        ("repeated", f"{noise.repeated} with two successful runs or more"),
        ("median spread", noise.median_spread),
        ("worst spread", noise.worst_spread),
        ("shapes", len(noise.shapes)),
        ("within noise", f"{len(flagged)} of {len(noise.shapes)} shapes"),
    )
    title = "noise: shapes whose best config is within the run-to-run spread of others"
    if side:
        title = f"noise ({runs.label}): " + title.removeprefix("noise: ")
    return [Section("noise", title, None, facts, table, notes=(RULE,))]


def _config_labels(configs: pd.DataFrame, ids: np.ndarray) -> dict[int, str]:
    """``BM=64/BN=256/...`` for each config id of ``ids``; ``-1`` (none) as ``NA``."""
    wanted = sorted({int(i) for i in ids if i >= 0})
    rows = entries(configs.loc[wanted])
    return {-1: MISSING_LABEL, **{i: shape_label(r) for i, r in zip(wanted, rows)}}
