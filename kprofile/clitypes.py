"""The click types that parse kprofile's option values, and the parsers they share:
fractions (``0.05`` or ``5%``, with the hint for a number that was meant as a
percentage), ratios, column lists, seconds, counts, paths and numbers. Each turns a
bad value into one usage line.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import click

from kprofile.core.defaults import NOISE, Closeness
from kprofile.errors import usage_error


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
    try:
        number = float(text.rstrip("%")) / (100.0 if percent else 1.0)
    except ValueError:
        raise usage_error(
            f"{option}: expected a fraction like 0.05 or 5%, got {value!r}"
        ) from None
    if _fraction_fits(number, percent=percent, allow_zero=allow_zero):
        return number
    if allow_zero and number >= 0.0 and number != math.inf:
        expected = "a fraction below 1 like 0.02 or 2%"
    elif allow_zero:
        expected = "a non-negative fraction"
    else:
        expected = "a fraction in (0, 1] like 0.05 or 5%"
    raise usage_error(
        f"{option}: expected {expected}, got {value!r}"
        f"{percent_hint(text, number, percent=percent, allow_zero=allow_zero)}"
    )


def _fraction_fits(number: float, *, percent: bool, allow_zero: bool) -> bool:
    if allow_zero:  # a tolerance: 1 or more only as a percentage
        return 0.0 <= number < math.inf and (percent or number < 1.0)
    return 0.0 < number <= 1.0


def percent_hint(text: str, number: float, *, percent: bool, allow_zero: bool) -> str:
    """``; did you mean 5%?`` when a refused bare number would be a fraction the
    option takes, read as a percentage (``--top 5``); else nothing. Every fraction
    option's message ends with it."""
    if percent or not _fraction_fits(
        number / 100.0, percent=True, allow_zero=allow_zero
    ):
        return ""
    return f"; did you mean {text}%?"


def ratio_hint(text: str) -> str:
    """``; did you mean 1.05 (5% above the best)?`` when a refused ratio reads as the
    fraction or percentage above the best it meant (``0.05``, ``5%``); else nothing."""
    percent = text.endswith("%")
    try:
        above = float(text.rstrip("%")) / (100.0 if percent else 1.0)
    except ValueError:
        return ""
    if not (0.0 < above < math.inf and (percent or above < 1.0)):
        return ""
    return f"; did you mean {1.0 + above:g} ({above * 100:g}% above the best)?"


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
        text = str(value).strip()
        try:
            number = float(text)
        except ValueError:
            number = math.nan
        if not 1.0 <= number < math.inf:
            raise usage_error(
                f"{_option_name(param)}: expected a ratio of 1.0 or more (1.05: 5% "
                f"above the best), got {value!r}{ratio_hint(text)}"
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
