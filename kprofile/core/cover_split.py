"""From measured ratios to the set cover of ``core.cover``, and back to config ids.

``split_shapes`` keeps the (shape, config) rows within TOL and sets aside the shapes
that no shared config can serve; ``solve_shared`` covers the others with
``kprofile.core.cover_solver`` (HiGHS, imported when a cover is solved), configs as
candidates in id (first appearance) order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from kprofile.core.measure import check_matrix
from kprofile.core.metric import within_tolerance

if TYPE_CHECKING:
    from kprofile.core.cover_solver import CoverSolution


@dataclass(frozen=True, eq=False)
class Split:
    """``covering``: rows of a ``Measured.table`` within tol, of shapes that share a
    config. ``alone``: the best row of every other shape. ``baseline``: the best config
    of each sharing shape (distinct, in shape order). ``baseline_size``: distinct best
    configs over all shapes (one config per shape)."""

    covering: pd.DataFrame
    alone: pd.DataFrame
    baseline: list[int]
    baseline_size: int


def split_shapes(table: pd.DataFrame, tol: float) -> Split:
    covering = table[within_tolerance(table["ratio"], tol)]
    own_best = table.sort_values(
        ["shape", "ratio", "config"], kind="stable"
    ).drop_duplicates("shape")
    shared = _shapes_with_shared_config(covering)
    sharing = own_best["shape"].isin(shared)
    return Split(
        covering=covering[covering["shape"].isin(shared)],
        alone=own_best[~sharing],
        baseline=own_best[sharing]["config"].drop_duplicates().tolist(),
        baseline_size=int(own_best["config"].nunique()),
    )


def _shapes_with_shared_config(covering: pd.DataFrame) -> set[int]:
    """Shapes with a config within tol that is within tol for another shape too."""
    serves = covering.groupby("config")["shape"].transform("size")
    return set(covering.loc[(serves >= 2).to_numpy(), "shape"].tolist())


def solve_shared(
    split: Split, *, time_limit: float | None, loss_time_limit: float | None
) -> tuple[CoverSolution, list[int]]:
    """The solver's answer for the sharing shapes, and the ids of the configs chosen."""
    from kprofile.core.cover_solver import (  # HiGHS's stack: start-up of other modes
        CoverProblem,
        solve_cover,
    )

    covering = split.covering
    shapes = sorted(set(covering["shape"].tolist()))
    configs = sorted(set(covering["config"].tolist()))
    row = covering["shape"].map({s: i for i, s in enumerate(shapes)})
    position = {c: j for j, c in enumerate(configs)}
    col = covering["config"].map(position)
    check_matrix(len(shapes) * len(configs), "--cover")
    ratios = np.full((len(shapes), len(configs)), np.inf)
    ratios[row.to_numpy(dtype="int64"), col.to_numpy(dtype="int64")] = covering[
        "ratio"
    ].to_numpy()
    solution = solve_cover(
        CoverProblem(ratios),
        time_limit=time_limit,
        loss_time_limit=loss_time_limit,
        known=[position[c] for c in split.baseline],
    )
    return solution, [configs[j] for j in solution.picked]
