"""``--budget K``: the handler and its sections: ``budget`` (what was proven, the chosen
configs and how many shapes each serves), then the table's score on the same results
in the sections ``--score`` prints (``kprofile.modes.score.score_sections``). ``-o``
writes one entry per shape: its values, then its config's. The analysis is
``kprofile.core.portfolio``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from kprofile.core.defaults import COVER_TIME_LIMIT, DEFAULT_OBJECTIVE, Objective
from kprofile.core.scorecols import CONFIG
from kprofile.core.values import counted, entries
from kprofile.errors import usage_error
from kprofile.modes.request import Data
from kprofile.modes.result import ModeResult
from kprofile.modes.score import (
    choices,
    measured_results,
    score_pictures,
    score_sections,
)
from kprofile.render.section import Picture, Section

if TYPE_CHECKING:
    from kprofile.core.measure import Measured
    from kprofile.core.portfolio import Portfolio
    from kprofile.manifest.change import Entry

OBJECTIVE_TEXT = {
    "geomean": "geomean ratio over the shapes",
    "worst": "worst ratio over the shapes, then the geomean",
}
IN_SAMPLE = (
    "in-sample: the noise of these results favours the table chosen from them; the "
    "number to trust is its --score on another run (docs/score.md)"
)


class BudgetRequest(NamedTuple):
    data: Data
    size: int  # at most this many configs
    objective: Objective = DEFAULT_OBJECTIVE
    time_limit: float | None = COVER_TIME_LIMIT  # None: no limit
    verbose: bool = False  # every shape's ratio too


def run(request: BudgetRequest) -> ModeResult:
    """``--budget K``: the best table of at most K configs, proven or bounded."""
    from kprofile.core.portfolio import budget  # start-up: --budget only

    data, metric, limit = request.data, request.data.metric, request.time_limit
    with data.progress("budget: measuring every shape and config"):
        measured = measured_results(data.inputs, data.pivots, metric, "--budget")
    shown = "" if limit is None else f" (limit {limit:g} s)"
    with data.progress(f"budget: searching the best {request.size}{shown}"):
        portfolio = budget(
            measured,
            metric,
            size=request.size,
            objective=request.objective,
            time_limit=limit,
        )
    if not portfolio.configs:
        raise usage_error(_no_table(portfolio, limit))
    position = {c: i for i, c in enumerate(portfolio.configs)}
    config = portfolio.score.shapes[CONFIG].to_numpy(dtype=np.int64)
    labels = [position.get(c, -1) for c in config.tolist()]
    chosen = choices(measured.configs, CONFIG, config, labels, portfolio.score)
    scored = score_sections(
        portfolio.score,
        title="budget: the table's score on the results it was chosen from",
        chosen=chosen,
        metric=metric,
        verbose=request.verbose,
        notes=(IN_SAMPLE,),
    )
    sections = (budget_section(portfolio, measured, limit), *scored)
    pictures: tuple[Picture, ...] = ()
    if data.charts is not None:
        title = f"How far is the best table of {request.size} from each shape's best?"
        pictures = score_pictures(portfolio.score, title)
    entries = tuple(budget_entries(portfolio, measured))
    return ModeResult(sections, entries, pictures=pictures)


def _no_table(portfolio: Portfolio, time_limit: float | None) -> str:
    """Why there is no table: K configs cannot run every shape, or no time."""
    k = portfolio.size
    configs = counted(k, "config", "configs")
    if portfolio.status == "infeasible":
        return (
            f"--budget {k}: no table of {configs} runs every shape (a config serves "
            f"only shapes where it ran successfully); it takes {portfolio.needed}"
        )
    return (
        f"--budget {k}: no table of {configs} that runs every shape was found within "
        f"--time-limit {time_limit:g} s (it takes at least {portfolio.needed}); "
        "raise it"
    )


def status_text(portfolio: Portfolio) -> str:
    """What was proven about the table."""
    k = portfolio.size
    if portfolio.status != "optimal":
        return "time limit (a better table may exist: see lower bound and gap)"
    what = "geomean ratio" if portfolio.objective == "geomean" else "worst ratio"
    configs = counted(k, "config", "configs")
    text = f"optimal (no table of at most {configs} has a lower {what})"
    if portfolio.objective == "worst" and not portfolio.tie_proven:
        text += "; its geomean is not proven lowest among tables of that worst ratio"
    return text


def budget_section(
    portfolio: Portfolio, measured: Measured, time_limit: float | None
) -> Section:
    """Facts (status, value, bound) and the chosen configs with their shape counts."""
    ids = list(portfolio.configs)
    table = measured.configs.loc[ids].reset_index(drop=True)
    table.insert(0, CONFIG, np.arange(len(ids)))
    served = portfolio.score.shapes[CONFIG].value_counts()
    table["shapes"] = served.reindex(ids).fillna(0).to_numpy(dtype=np.int64)
    bound: tuple[tuple[str, Any], ...] = ()
    if portfolio.status != "optimal":
        bound = (("lower bound", portfolio.lower_bound), ("gap", portfolio.gap))
    limit = "none" if time_limit is None else f"{time_limit:g} s"
    facts: tuple[tuple[str, Any], ...] = (
        ("status", status_text(portfolio)),
        ("configs", f"{len(ids)} (at most {portfolio.size})"),
        ("objective", OBJECTIVE_TEXT[portfolio.objective]),
        (f"{portfolio.objective} ratio", portfolio.value),
        *bound,
        ("time limit", limit),
    )
    configs = counted(portfolio.size, "config", "configs")
    title = f"budget: the best table of at most {configs}"
    return Section("budget", title, None, facts, table)


def budget_entries(portfolio: Portfolio, measured: Measured) -> list[Entry]:
    """One entry per shape the table serves, in shape order: its values, then its
    config's (``--cover -o`` writes the same)."""
    shapes = portfolio.score.shapes
    served = shapes[shapes[CONFIG].to_numpy() >= 0]
    values = entries(measured.shapes.loc[served.index])
    configs = entries(measured.configs.loc[served[CONFIG].to_numpy()])
    return [{**s, **c} for s, c in zip(values, configs)]
