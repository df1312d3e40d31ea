"""The command line as one typed record, and the click types that parse its values.

``Options`` is what ``kprofile.cli`` hands to ``kprofile.run``: every flag already
parsed (fractions as floats, column lists as tuples). Which flags may be combined is
decided by the mode table in ``kprofile.modes`` (``check_options``), not here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, NamedTuple

import click

from kprofile.core.defaults import (
    COVER_LOSS_TIME_LIMIT,
    COVER_TIME_LIMIT,
    NOISE,
    Closeness,
)
from kprofile.errors import usage_error
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
    merge: bool = False
    correlation: bool = False
    include_shapes: bool = False  # -c: correlate the shape columns too
    pivots: tuple[str, ...] = ()
    spec: str | None = None  # the kbench spec the results were swept with
    sort_pivots: tuple[str, ...] = ()
    query: str | None = None
    output: str | None = None
    write_selection: bool = False
    out_dir: str = "."
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


def parse_columns(values: Iterable[str], option: str) -> tuple[str, ...]:
    """``[M,N,K]``, ``M,N`` and repeated flags alike, flattened, duplicates dropped."""
    names: list[str] = []
    for value in values:
        text = value.strip()
        if text.startswith("[") and text.endswith("]"):
            text = text[1:-1]
        for part in text.split(","):
            name = part.strip().strip("'\"")
            if not name:
                raise usage_error(f"{option}: empty column name in {value!r}")
            if name not in names:
                names.append(name)
    return tuple(names)


def parse_fraction(value: str, option: str, *, allow_zero: bool) -> float:
    """``0.05`` or ``5%``: in (0, 1], or any finite value >= 0 when ``allow_zero``
    (a tolerance), where 1 or more must be written as a percentage (``150%``): a bare
    ``2`` is far more often ``2%`` mistyped than a tolerance of 200%."""
    text = value.strip()
    percent = text.endswith("%")
    scale = 100.0 if percent else 1.0
    try:
        number = float(text.rstrip("%")) / scale
    except ValueError:
        raise usage_error(
            f"{option}: expected a fraction like 0.05 or 5%, got {value!r}"
        ) from None
    if allow_zero:
        if not number >= 0.0 or number == float("inf"):
            raise usage_error(
                f"{option}: expected a non-negative fraction, got {value!r}"
            )
        if number >= 1.0 and not percent:
            raise usage_error(
                f"{option}: expected a fraction below 1 like 0.02 or 2%, got "
                f"{value!r}; did you mean {text}%?"
            )
    elif not 0.0 < number <= 1.0:
        raise usage_error(
            f"{option}: expected a fraction in (0, 1] like 0.05 or 5%, got {value!r}"
        )
    return number


def _option_name(param: click.Parameter | None) -> str:
    """The long spelling of an option, as messages name it (``--top``)."""
    if param is None:
        return "kprofile"
    longs = [o for o in param.opts if o.startswith("--")]
    return (longs or list(param.opts) or [str(param.name)])[0]


class Fraction(click.ParamType):
    """``0.05`` or ``5%``; ``band`` (a tolerance) admits 0, and 100% or more written
    as a percentage."""

    name = "fraction"

    def __init__(self, *, band: bool) -> None:
        self.band = band

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        if isinstance(value, float):
            return value
        return parse_fraction(str(value), _option_name(param), allow_zero=self.band)


class Within(click.ParamType):
    """A tolerance as ``--within`` reads it (``0.02`` or ``2%``), or ``noise``: the
    run-to-run spread repeated runs measured (``--combine``)."""

    name = "tolerance"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> Closeness:
        if isinstance(value, float):
            return value
        text = str(value)
        if text.strip().lower() == NOISE:
            return NOISE
        return parse_fraction(text, _option_name(param), allow_zero=True)


class Columns(click.ParamType):
    """``M,N,K`` or ``[M,N,K]``; with ``multiple=True`` the lists are joined later
    by ``parse_columns`` so repeated flags and duplicates behave the same."""

    name = "columns"

    def __init__(self, option: str) -> None:
        self.option = option

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> str:
        text = str(value)
        parse_columns([text], self.option)  # refuses an empty name now
        return text


class Seconds(click.ParamType):
    """A time limit: seconds (0 or more), or ``none`` for no limit."""

    name = "seconds"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float | None:
        if value is None or isinstance(value, float):
            return value
        text = str(value).strip().lower()
        if text == "none":
            return None
        try:
            seconds = float(text)
        except ValueError:
            seconds = -1.0
        if not 0.0 <= seconds < float("inf"):
            raise usage_error(
                f"{_option_name(param)}: expected seconds (0 or more) or 'none', "
                f"got {value!r}"
            )
        return seconds


class Ratio(click.ParamType):
    """A ratio to the best: a finite number of 1.0 or more (1.05: 5% above)."""

    name = "ratio"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        if isinstance(value, float):
            return value
        try:
            number = float(str(value).strip())
        except ValueError:
            number = math.nan
        if not 1.0 <= number < math.inf:
            raise usage_error(
                f"{_option_name(param)}: expected a ratio of 1.0 or more (1.05: 5% "
                f"above the best), got {value!r}"
            )
        return number


class Positive(click.ParamType):
    """A positive integer (a count of entries or rows)."""

    name = "count"

    def __init__(self, what: str) -> None:
        self.what = what

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> int:
        try:
            number = int(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a valid integer", param, ctx)
        if number < 1:
            raise usage_error(
                f"{_option_name(param)}: expected a positive number of {self.what}, "
                f"got {number}"
            )
        return number


class PathText(click.ParamType):
    """A file or folder path: an empty (or all-blank) one is refused, never taken as
    the current folder or a file named ``.yaml``."""

    name = "path"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> str:
        text = str(value)
        if not text.strip():
            raise usage_error(f"{_option_name(param)}: expected a path, got {text!r}")
        return text


class Number(click.ParamType):
    """A finite number: ``16384`` stays an int, ``0.5`` or ``1e3`` is a float."""

    name = "number"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> int | float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
        text = str(value).strip()
        try:
            return int(text)
        except ValueError:
            pass
        try:
            number = float(text)
        except ValueError:
            number = float("nan")
        if not math.isfinite(number):
            raise usage_error(
                f"{_option_name(param)}: expected a number, got {value!r}"
            )
        return number
