"""kprofile's modes and per-file views, declared once: each row holds the functions it
dispatches to.

A mode's row (``Mode``): its flag, whether the command line asks for it (``given``),
the function that makes its request from the command line (``request``: only what
the mode needs), its handler (``run(request) -> ModeResult``, in ``modes/<mode>.py``)
and what it admits: the per-file views, ``-o``, ``--update``, ``--combine``
and its own options; ``pools``: it reads every input as one set of measurements (so
repeated runs of a shape are joined, never written twice: ``kprofile.prepare``). A
view's row (``View``): its flag, its value on the command line, its builder (in
``modes/views*.py``) and its ``kind``, what it selects.
``modes.checks.check_options`` derives every "cannot be combined" rule from these
tables; ``kprofile.run`` makes the chosen mode's request and calls its handler. A new
mode is one row and one module, a new view one row and one function.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, Literal, NamedTuple, TypeVar, cast

from kprofile.core.defaults import (
    COVER_LOSS_TIME_LIMIT,
    COVER_TIME_LIMIT,
    DEFAULT_OBJECTIVE,
    NOISE,
    RANGES_TOL,
    Closeness,
    Objective,
)
from kprofile.modes import (
    budget,
    correlation,
    cover,
    diff,
    files,
    importance,
    merge,
    ranges,
    score,
)
from kprofile.modes.request import Charts, Data, Prepared
from kprofile.modes.rerun import Rerun
from kprofile.modes.result import ModeResult
from kprofile.modes.views import Builder, head_view, ratio_view, tail_view
from kprofile.modes.views_common import top_fraction_view, top_view, within_view
from kprofile.options import Options

R = TypeVar("R")


class Mode(NamedTuple, Generic[R]):  # as View: cheaper to create than a dataclass
    name: str
    flag: str | None  # None: the default mode (per-file views)
    given: Callable[[Options], bool]  # the command line asks for it
    request: Callable[[Options, Prepared], R]
    handler: Callable[[R], ModeResult]
    metric: bool = True  # needs a metric column
    views: bool = False  # admits --ratio, --head, --tail, --top, --within
    output: bool = False  # -o writes the entries it selects
    update: bool = False  # --update takes the configs it selects
    combines: bool = True  # admits --combine (needs a metric; files stay apart)
    pools: bool = False  # reads every input as one set of measurements
    options: tuple[str, ...] = ()  # its own flags (see OWN_OPTIONS)

    @property
    def label(self) -> str:
        return self.flag or "the per-file views"


ViewKind = Literal["shows", "rows", "config"]


class View(NamedTuple):
    """A per-file view: ``flag`` gives it the value ``value`` reads (None: not asked
    for); ``builder`` makes its sections for one file or ``-p`` group. ``kind``: it
    only shows entries, or also selects rows (``-o --write-selection`` writes them),
    or picks one config, the common config (for ``-o`` and ``--update``)."""

    flag: str
    value: Callable[[Options], Any]
    builder: Builder
    kind: ViewKind = "shows"

    @property
    def selects(self) -> bool:
        return self.kind != "shows"


VIEWS: tuple[View, ...] = (
    View("--ratio", lambda o: o.ratio or None, ratio_view),
    View("--head", lambda o: o.head, head_view, "rows"),
    View("--tail", lambda o: o.tail, tail_view, "rows"),
    View("--top", lambda o: o.top, top_view, "config"),
    View("--top-fraction", lambda o: o.top_fraction, top_fraction_view, "config"),
    View("--within", lambda o: o.within, within_view, "config"),
)


def given_views(options: Options) -> list[View]:
    """The views asked for, in the table's order (the order they are shown in)."""
    return [v for v in VIEWS if v.value(options) is not None]


def _data(o: Options, prepared: Prepared) -> Data:
    assert prepared.metric is not None  # Mode.metric: the orchestrator found one
    charts = None
    if o.plot is not None or o.report is not None:
        pair = (o.heatmap[0], o.heatmap[1]) if len(o.heatmap) == 2 else None
        charts = Charts(pair)
    return Data(
        prepared.inputs,
        prepared.metric,
        o.pivots,
        prepared.progress,
        charts,
        prepared.names,
    )


def _files(o: Options, prepared: Prepared) -> files.FilesRequest:
    views = tuple((v.builder, v.value(o)) for v in given_views(o))
    sink = "-o" if o.output else "--update" if o.update is not None else None
    rows = bool(o.output and o.write_selection)
    data = _data(o, prepared)
    rerun = None
    if o.rerun is not None:
        within: Closeness = NOISE if o.rerun_within is None else o.rerun_within
        rerun = Rerun(o.rerun, within)
    return files.FilesRequest(
        data, views, o.verbose, sink, rows, o.keep_within, rerun, prepared.runs
    )


def _diff(o: Options, prepared: Prepared) -> diff.DiffRequest:
    described = "first file with each shape"
    if o.baseline:
        joined = f" ({o.combine} of their runs)" if o.combine else ""
        described = f"--baseline {', '.join(o.baseline)}{joined}"
    return diff.DiffRequest(
        _data(o, prepared),
        o.out_dir,
        prepared.baseline,
        described,
        o.fail_above,
        o.allow_failed,
    )


def _merge(o: Options, prepared: Prepared) -> merge.MergeRequest:
    writable = o.output is not None
    return merge.MergeRequest(
        prepared.inputs, o.pivots, o.sort_pivots, o.query, writable
    )


def _cover(o: Options, prepared: Prepared) -> cover.CoverRequest:
    assert o.cover is not None  # given
    data = _data(o, prepared)
    return cover.CoverRequest(data, o.cover, o.time_limit, o.cover_loss_time_limit)


def _ranges(o: Options, prepared: Prepared) -> ranges.RangesRequest:
    assert o.ranges is not None  # given
    tol = RANGES_TOL if o.tol is None else o.tol
    return ranges.RangesRequest(_data(o, prepared), o.ranges, tol, o.range_end)


def _score(o: Options, prepared: Prepared) -> score.ScoreRequest:
    assert o.score is not None  # given
    sources = tuple(r.path for r in prepared.sources)
    data = _data(o, prepared)
    return score.ScoreRequest(
        data, o.score, sources, o.fail_above, o.verbose, o.allow_failed
    )


def _budget(o: Options, prepared: Prepared) -> budget.BudgetRequest:
    assert o.budget is not None  # given
    objective = cast(Objective, o.objective or DEFAULT_OBJECTIVE)  # click's choice
    data = _data(o, prepared)
    return budget.BudgetRequest(data, o.budget, objective, o.time_limit, o.verbose)


DRAWS = ("--plot", "--heatmap")  # a mode whose pictures answer its question


def _never(o: Options) -> bool:
    return False


MODES: tuple[Mode[Any], ...] = (
    Mode(
        "files", None, _never, _files, files.run,
        views=True, output=True, update=True,
        options=("--keep-within", "--rerun", "--rerun-within", *DRAWS),
    ),
    Mode(
        "diff", "--diff", lambda o: o.diff, _diff, diff.run,
        options=("--out-dir", "--baseline", "--fail-above", "--allow-failed",
                 *DRAWS),
    ),
    Mode(
        "merge", "--merge", lambda o: o.merge, _merge, merge.run,
        metric=False, combines=False, output=True, options=("--sort-pivots",),
    ),
    Mode(
        "correlation", "--correlation", lambda o: o.correlation,
        lambda o, p: correlation.CorrelationRequest(
            _data(o, p), o.out_dir, o.include_shapes
        ),
        correlation.run,
        options=("--out-dir", "--include-shapes", *DRAWS),
    ),
    Mode(
        "cover", "--cover", lambda o: o.cover is not None, _cover, cover.run,
        output=True, pools=True,
        options=("--time-limit", "--cover-loss-time-limit", *DRAWS),
    ),
    Mode(
        "importance", "--importance", lambda o: o.importance,
        lambda o, p: importance.ImportanceRequest(_data(o, p)),
        importance.run,
        pools=True, options=DRAWS,
    ),
    Mode(
        "ranges", "--ranges", lambda o: o.ranges is not None, _ranges, ranges.run,
        output=True, update=True, pools=True,
        options=("--tol", "--range-end", *DRAWS),
    ),
    Mode(
        "score", "--score", lambda o: o.score is not None, _score, score.run,
        pools=True, options=("--fail-above", "--allow-failed", *DRAWS),
    ),
    Mode(
        "budget", "--budget", lambda o: o.budget is not None, _budget, budget.run,
        output=True, pools=True, options=("--objective", "--time-limit", *DRAWS),
    ),
)  # fmt: skip

# Flags that only some modes admit (``Mode.options``), and whether each is given.
OWN_OPTIONS: tuple[tuple[str, Callable[[Options], bool]], ...] = (
    ("--sort-pivots", lambda o: bool(o.sort_pivots)),
    ("--out-dir", lambda o: o.out_dir is not None),
    ("--baseline", lambda o: bool(o.baseline)),
    ("--include-shapes", lambda o: o.include_shapes),
    ("--time-limit", lambda o: o.time_limit != COVER_TIME_LIMIT),  # also spelled
    # --cover-time-limit
    ("--cover-loss-time-limit",
     lambda o: o.cover_loss_time_limit != COVER_LOSS_TIME_LIMIT),
    ("--plot", lambda o: o.plot is not None),
    ("--heatmap", lambda o: bool(o.heatmap)),
    ("--tol", lambda o: o.tol is not None),
    ("--range-end", lambda o: o.range_end is not None),
    ("--fail-above", lambda o: o.fail_above is not None),
    ("--allow-failed", lambda o: o.allow_failed),
    ("--objective", lambda o: o.objective is not None),
    ("--keep-within", lambda o: o.keep_within is not None),
    ("--rerun", lambda o: o.rerun is not None),
    ("--rerun-within", lambda o: o.rerun_within is not None),
)  # fmt: skip
