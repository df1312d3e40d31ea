"""``--budget K``: the best dispatch table of at most K shared configs.

Input: a ``kprofile.core.measure.Measured`` (failed runs dropped; a (shape, config)
measured twice keeps its best run, unless ``kprofile.core.repeats`` combined them).
Every shape that ran is served by the chosen config with its lowest ratio there (the
earliest config on a tie), and a config can serve only shapes where it ran
successfully: a config never measured at a shape has no ratio there, so the table
must hold, for every shape, a config that ran at it (otherwise the answer is
``infeasible`` and ``needed`` says how many configs such a table needs). Shapes where
nothing ran have no best and are left out (their status in ``score`` says so).

The table minimizes the geometric mean of the shapes' ratios (``geomean``: the sum of
log ratios), or the worst ratio and then the geomean (``worst``), exactly
(``kprofile.core.portfolio_solver``: HiGHS, as ``--cover``, under one time limit).
``status`` is ``optimal`` when proven, ``time limit`` when the time ran out first (the
best table found stands, with the proven ``lower_bound`` and the ``gap``), and
``infeasible`` when no K configs serve every shape. A proof holds to HiGHS's
resolution: the sum of log ratios within 2e-6 of its proven bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from kprofile.core.defaults import OBJECTIVES, Objective
from kprofile.core.measure import Measured, check_matrix
from kprofile.core.metric import Metric
from kprofile.core.score import Score, score_configs

if TYPE_CHECKING:
    from kprofile.core.portfolio_solver import BudgetSolution

Status = Literal["optimal", "time limit", "infeasible"]


@dataclass(frozen=True, eq=False)
class Portfolio:
    """What ``budget`` chose.

    ``configs``: ids (``Measured.configs`` index) of the chosen configs, ascending;
    ``()`` when infeasible. ``score``: the table scored on the same results
    (``score_configs``; ``score.shapes`` is the assignment: each shape's config, value,
    best and ratio). ``lower_bound``: proven, no table of at most ``size`` configs has
    a lower geomean (``geomean``) or worst ratio (``worst``); equal to ``value`` when
    optimal. ``tie_proven``: for ``worst``, the geomean is proven lowest among tables
    with that worst ratio too. ``needed``: a proven lower bound on the configs any
    table serving every shape needs (exact when infeasible).
    """

    size: int
    objective: Objective
    status: Status
    configs: tuple[int, ...]
    score: Score
    lower_bound: float
    tie_proven: bool
    needed: int

    @property
    def value(self) -> float:
        """The table's geomean or worst ratio (the objective; NaN when infeasible)."""
        if self.objective == "geomean":
            return self.score.geomean
        return self.score.worst_ratio

    @property
    def gap(self) -> float:
        """How much better a table might still be: value / lower bound - 1."""
        if not math.isfinite(self.lower_bound) or not self.configs:
            return math.nan
        return max(0.0, self.value / self.lower_bound - 1.0)


def budget(
    measured: Measured,
    metric: Metric,
    *,
    size: int,
    objective: Objective = "geomean",
    time_limit: float | None,
) -> Portfolio:
    """The best table of at most ``size`` configs (module docstring). ``time_limit``:
    seconds for the whole search, None for no limit."""
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}")
    from kprofile.core.portfolio_solver import solve_budget  # start-up of other modes

    shapes, configs, costs = cost_matrix(measured)
    solution = solve_budget(costs, size, objective, time_limit=time_limit)
    chosen = configs[list(solution.picked)]
    config = np.full(len(measured.shapes), -1, dtype=np.int64)
    if len(chosen):
        position = measured.shapes.index.get_indexer(pd.Index(shapes))
        config[position] = chosen[np.argmin(costs[:, list(solution.picked)], axis=1)]
    return Portfolio(
        size=size,
        objective=objective,
        status=_status(solution),
        configs=tuple(int(c) for c in chosen),
        score=score_configs(measured, config, metric),
        lower_bound=_as_ratio(solution, objective, len(shapes)),
        tie_proven=solution.tie_proven,
        needed=solution.needed,
    )


def cost_matrix(measured: Measured) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The shapes that ran and the configs that ran somewhere (ids, ascending) and the
    shapes x configs log ratios, ``inf`` where the config did not run at the shape."""
    table = measured.table
    shapes, row = np.unique(table["shape"].to_numpy(), return_inverse=True)
    configs, col = np.unique(table["config"].to_numpy(), return_inverse=True)
    check_matrix(len(shapes) * len(configs), "--budget")
    costs = np.full((len(shapes), len(configs)), np.inf)
    costs[row, col] = np.log(table["ratio"].to_numpy(dtype=np.float64))
    return shapes, configs, costs


def _status(solution: BudgetSolution) -> Status:
    if not solution.picked and solution.objective == math.inf:
        return "infeasible" if solution.feasible is False else "time limit"
    return "optimal" if solution.proven else "time limit"


def _as_ratio(solution: BudgetSolution, objective: Objective, shapes: int) -> float:
    """The proven bound as a geomean or worst ratio."""
    if not math.isfinite(solution.bound):
        return math.nan
    if objective == "geomean":
        return math.exp(solution.bound / shapes) if shapes else 1.0
    return math.exp(solution.bound)
