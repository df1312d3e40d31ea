"""Formatter-stable regions: each region as the repository's formatter leaves it.

A repository formats its sources after generating them (``mojo format``, ``ruff
format``, ``clang-format`` as pre-commit hooks after ``tuning-codegen``, or a format
step before the freshness check). Without this, the formatter reflows a region, the
check calls it stale, regenerating puts it back, and the loop never ends. So for a
target whose table names a ``format`` command, the regenerated regions are spliced
into the target's text in memory, that text is formatted, and the formatted regions
are what the target must hold, for writing and for ``--check`` alike:

- only the regions' bytes are taken: what the formatter changes elsewhere in the file
  is not written (that is the formatter's business, when it runs);
- the formatter must leave every marker line findable as it was (exactly once, in
  order, a comment line); else one error names the table;
- the result is a fixed point: formatted again, the regions do not change (checked by
  a second run whenever the first one changed them; else one error);
- bounded: a timeout (``TUNING_CODEGEN_FORMAT_TIMEOUT`` seconds, 60 by default), an
  output size limit; a formatter that is missing, fails (its first error line is
  quoted) or times out is one error, exit 2, nothing written.

The command itself is run by ``formatrun`` (found on PATH outside the repository,
bounded, one error line).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tuning_codegen.errors import InputError, InputErrors
from tuning_codegen.formatrun import Target, run_formatter
from tuning_codegen.splice import Markers, inside_lines, locate, splice_insides
from tuning_codegen.table import Formatter


def formatted_insides(
    text: str,
    regions: Sequence[object],
    insides: Mapping[str, str],
    markers: Sequence[Markers],
    formatter: Formatter,
    target: Target,
) -> dict[str, str]:
    """``insides`` (each table's region, LF-terminated lines) as ``formatter`` leaves
    them once spliced into ``text`` (at ``regions``, located with ``markers``)."""
    spliced = splice_insides(text, regions, insides)  # type: ignore[arg-type]
    first = _regions_of(run_formatter(formatter, spliced, target), markers, insides,
                        formatter, target)  # fmt: skip
    if first == dict(insides):
        return first
    again = splice_insides(text, regions, first)  # type: ignore[arg-type]
    second = _regions_of(run_formatter(formatter, again, target), markers, insides,
                         formatter, target)  # fmt: skip
    unsettled = [name for name in first if second[name] != first[name]]
    if unsettled:
        raise InputError(
            target.shown,
            f"the formatter ({formatter.shown()}) does not settle on the region of "
            f"table '{unsettled[0]}': formatting its output again changes it; "
            "fix the formatter's configuration, or keep it off the region (fmt: off)",
        )
    return first


def _regions_of(
    formatted: str,
    markers: Sequence[Markers],
    wanted: Mapping[str, str],
    formatter: Formatter,
    target: Target,
) -> dict[str, str]:
    """The inside of each wanted region in the formatter's output."""
    try:
        found = locate(formatted, markers, target.shown)
    except InputErrors as exc:
        raise _broke_markers(exc.errors[0], formatter, target) from None
    return {
        region.table: inside_lines(formatted, region)
        for region in found
        if region.table in wanted
    }


def _broke_markers(
    error: InputError, formatter: Formatter, target: Target
) -> InputError:
    return InputError(
        target.shown,
        f"the formatter ({formatter.shown()}) moves or rewrites a marker line: in its "
        f"output, {error.message}; keep it off the marker lines (e.g. fmt: off/on "
        "around the region)",
    )
