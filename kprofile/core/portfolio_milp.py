"""The MILP behind ``--budget``'s sum objective, solved by HiGHS through scipy.

``min_total``: among tables of at most ``size`` candidates, the one whose rows' costs
sum lowest, each row served by one chosen candidate it may use (``keep``). Binary
``y_j`` (candidate chosen), continuous ``x_ij`` for each usable pair, ``sum_j x_ij =
1`` per row, ``x_ij <= y_j``, ``sum_j y_j <= size``, minimize ``sum costs[i, j] x_ij``.
With ``y`` fixed, the best ``x`` serves each row with its cheapest chosen candidate,
so ``x`` needs no integrality. HiGHS runs as for ``--cover`` (``highs_options``: no
relative gap); its absolute gap (1e-6 by default) is the resolution of a proof.
"""

from __future__ import annotations

import numpy as np

from kprofile.core.child import in_child
from kprofile.core.cover_milp import NOT_RUN, Outcome, highs_options, outcome

#: A sum within this of HiGHS's dual bound is proven (HiGHS's own absolute gap is
#: 1e-6; the rest is room for its float arithmetic).
PROOF_TOLERANCE = 2e-6


def min_total(
    costs: np.ndarray, keep: np.ndarray, size: int, *, time_limit: float | None
) -> Outcome:
    """The lowest-sum table of at most ``size`` candidates (module docstring).

    ``costs``: rows x candidates; ``keep``: the pairs that may serve (finite costs).
    ``Outcome.picked`` are candidate indices (columns of ``costs``), ``bound`` HiGHS's
    proven lower bound on the sum. Every row needs a usable pair."""
    if time_limit is not None and time_limit <= 0:
        return NOT_RUN
    from scipy import sparse  # scipy only when a solve runs (start-up of other modes)
    from scipy.optimize import Bounds, LinearConstraint, milp

    columns = np.flatnonzero(keep.any(axis=0))
    row, col = np.nonzero(keep[:, columns])
    n, k, m = costs.shape[0], len(columns), len(row)
    x = k + np.arange(m)
    pairs = np.arange(m)
    assign = sparse.csr_array((np.ones(m), (row, x)), shape=(n, k + m))
    link = sparse.csr_array(
        (
            np.concatenate([np.ones(m), -np.ones(m)]),
            (np.concatenate([pairs, pairs]), np.concatenate([x, col])),
        ),
        shape=(m, k + m),
    )
    count = sparse.csr_array(
        (np.ones(k), (np.zeros(k, dtype=np.int64), np.arange(k))), shape=(1, k + m)
    )
    result = in_child(  # a child process: Ctrl-C stops HiGHS at once
        milp,
        np.concatenate([np.zeros(k), costs[row, columns[col]]]),
        integrality=np.concatenate([np.ones(k), np.zeros(m)]).astype(np.int64),
        bounds=Bounds(0.0, 1.0),
        constraints=[
            LinearConstraint(assign, lb=1.0, ub=1.0),
            LinearConstraint(link, ub=0.0),
            LinearConstraint(count, ub=float(size)),
        ],
        options=highs_options(time_limit),
    )
    found = outcome(result, k, tolerance=PROOF_TOLERANCE)
    if found.picked is None:
        return found
    picked = tuple(int(columns[j]) for j in found.picked)
    return Outcome(picked=picked, proven=found.proven, bound=found.bound)
