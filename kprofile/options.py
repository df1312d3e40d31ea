"""The command line as one typed record.

``Options`` is what ``kprofile.cli`` hands to ``kprofile.run``: every flag already
parsed (fractions as floats, column lists as tuples) by the click types of
``kprofile.clitypes``. Which flags may be combined is decided by the mode table in
``kprofile.modes`` (``check_options``), not here.
"""

from __future__ import annotations

from typing import NamedTuple

from kprofile.core.defaults import (
    COVER_LOSS_TIME_LIMIT,
    COVER_TIME_LIMIT,
    Closeness,
)
from kprofile.inputs.limits import DEFAULT_MAX_ROWS


class Options(NamedTuple):  # not a dataclass: 40 fields cost 2 ms more at start-up
    files: tuple[str, ...]
    metric: str | None = None  # None: DEFAULT_METRIC, or the only 'met (<unit>)'
    higher_is_better: bool | None = None
    ratio: bool = False
    head: int | None = None
    tail: int | None = None
    top: float | None = None
    top_fraction: float | None = None
    within: float | None = None
    verbose: bool = False
    diff: bool = False
    baseline: tuple[str, ...] = ()  # -d: the baseline's runs (none: the first file)
    merge: bool = False
    correlation: bool = False
    include_shapes: bool = False  # -c: correlate the shape columns too
    pivots: tuple[str, ...] = ()
    spec: str | None = None  # the kbench spec the results were swept with
    sort_pivots: tuple[str, ...] = ()
    query: str | None = None
    output: str | None = None
    write_selection: bool = False
    out_dir: str | None = None  # -d's CSVs and -c's PNG (None: not written)
    format: str = "text"
    color: str = "auto"  # auto, always or never (tuning_codegen.colour)
    quiet: bool = False  # no progress display
    update: str | None = None
    dry_run: bool = False
    accept_foreign: bool = False  # --update: results of another benchmark or table
    cover: float | None = None
    time_limit: float | None = COVER_TIME_LIMIT  # --cover and --budget
    cover_loss_time_limit: float | None = COVER_LOSS_TIME_LIMIT
    importance: bool = False
    plot: str | None = None  # the folder of the PNG charts
    heatmap: tuple[str, ...] = ()  # the heatmap's two parameters (empty: by rank)
    report: str | None = None  # the HTML report's file
    max_rows: int = DEFAULT_MAX_ROWS
    ranges: str | None = None
    tol: float | None = None  # None: RANGES_TOL (so a given --tol is always seen)
    range_end: int | float | None = None
    score: str | None = None  # the table --score judges
    fail_above: float | None = None
    allow_failed: bool = False  # --fail-above judges the scored shapes alone
    budget: int | None = None
    objective: str | None = None  # None: DEFAULT_OBJECTIVE (a given one is seen)
    combine: str | None = None  # None: no combining; else median, min or mean
    keep_within: Closeness | None = None  # --update keeps configs this close to best
    rerun: str | None = None  # the kbench spec of each shape's contenders
    rerun_within: Closeness | None = None  # None: the noise with --combine
