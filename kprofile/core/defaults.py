"""What the analyses do when not told otherwise, and the choices some of them take.

Plain constants, importing nothing else of the project and no pandas: the command line
shows them in ``--help`` and offers the choices without loading the analyzer's stack.
Each names the module whose behaviour it is.
"""

from __future__ import annotations

from typing import Literal, get_args

DEFAULT_METRIC = "met (ms)"  # core.metric: what Mojo's std.benchmark writes

# core.cover: seconds for the whole search (size, then loss), and the part of it the
# loss search may take once the size is proven: short, since on hard tables (200 shapes
# x 500 configs at 5%) proving the loss took minutes where the size took a second; when
# it runs out, the table improved by swaps stands. core.portfolio takes the first too.
COVER_TIME_LIMIT = 120.0
COVER_LOSS_TIME_LIMIT = 2.0

# modes.shapes: the band whose configs the per-shape view counts (ratio <= 1.02)
SHAPES_BAND = 0.02

RANGES_TOL = 0.03  # core.ranges: how far from each point's best its config may be

Objective = Literal["geomean", "worst"]  # core.portfolio: what --budget minimizes
OBJECTIVES: tuple[Objective, ...] = get_args(Objective)
DEFAULT_OBJECTIVE: Objective = "geomean"

Aggregate = Literal["median", "min", "mean"]  # core.repeats: repeated runs as one
AGGREGATES: tuple[Aggregate, ...] = get_args(Aggregate)

# core.standing: how close to a shape's best a config counts as one of its contenders
# (--rerun-within) or as good as the best (--keep-within): a tolerance (0.02), or the
# run-to-run noise the repeated runs measured (--combine).
NOISE: Literal["noise"] = "noise"
Closeness = float | Literal["noise"]
