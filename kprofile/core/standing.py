"""How close each measured (shape, config) stands to its shape's best, and which are
close enough to count as the best's equals: what ``--keep-within`` and
``--rerun-within`` share.

A ``Standing`` is a ``kprofile.core.measure.Measured`` (one ratio per (shape, config),
1.0 the shape's best) and, for repeated runs joined by ``--combine``, each row's noise
limit (``kprofile.core.repeats.noise_limits``: the larger run-to-run spread of the
config and of the best). A config is *close* to its shape's best

- within a tolerance X: ``ratio <= 1 + X``, ``--within``'s band
  (``kprofile.core.metric.within_tolerance``, the one tolerance rule);
- within the noise (``noise``): ``ratio`` at most its noise limit, the rule by which
  the ``noise`` section counts the configs within noise of the best.

The shape's best itself is always close.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kprofile.core.defaults import NOISE, Closeness
from kprofile.core.measure import Measured
from kprofile.core.metric import Metric, within_tolerance
from kprofile.core.repeats import Repeats, noise_limits, spread_table


@dataclass(frozen=True, eq=False)
class Standing:
    """``measured``: the results, one ratio per (shape, config); ``limits``: per row
    of ``measured.table``, the largest ratio within the noise (None: no repeated runs
    were joined, so no noise was measured)."""

    measured: Measured
    metric: Metric
    limits: np.ndarray | None = None


def standing(
    measured: Measured, metric: Metric, repeats: Repeats | None = None
) -> Standing:
    """``measured`` with its noise limits when ``repeats`` (the joined runs it was
    measured from: ``kprofile.core.runs.CombinedRuns``) gives them."""
    if repeats is None:
        return Standing(measured, metric)
    table = spread_table(measured, repeats)
    return Standing(measured, metric, noise_limits(table))


def limits(found: Standing, within: Closeness) -> np.ndarray:
    """Per row of ``found.measured.table``: the largest ratio that is close."""
    if within == NOISE:
        if found.limits is None:
            raise ValueError("no noise was measured: join repeated runs first")
        return found.limits
    assert not isinstance(within, str)  # the only word is NOISE
    return np.full(len(found.measured.table), 1.0 + within)


def close(found: Standing, within: Closeness) -> np.ndarray:
    """Per row of ``found.measured.table``: whether the config is close to its
    shape's best (module docstring)."""
    ratio = found.measured.table["ratio"].to_numpy(dtype=np.float64)
    if within == NOISE:
        return ratio <= limits(found, within)
    assert not isinstance(within, str)
    return within_tolerance(ratio, within)


def is_close(ratio: float, limit: float, within: Closeness) -> bool:
    """One ratio against its limit (``limits``), by ``close``'s rule."""
    if within == NOISE:
        return bool(ratio <= limit)
    assert not isinstance(within, str)
    return bool(within_tolerance(np.array([ratio]), within)[0])


def closeness_label(within: Closeness) -> str:
    """``0.02 (ratio <= 1.02)``, or what the noise means."""
    if within == NOISE:
        return (
            "noise (ratio <= the larger run-to-run spread of the config and the "
            "shape's best)"
        )
    assert not isinstance(within, str)
    return f"{within:g} (ratio <= {1 + within:g})"
