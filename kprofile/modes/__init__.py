"""kprofile's modes and views, declared once.

Each mode names its flag, its handler (``module:function``, imported only when the mode
runs) and what it admits: the per-file views, ``-o``, ``--update``, ``-p``,
``--combine`` and its own options. Each per-file view names its flag, its ``Options``
field, its section builder and what it selects. ``check_options`` derives every
"cannot be combined" rule from these tables, ``kprofile.run`` dispatches through
``MODES`` and the default mode through ``VIEWS``: a new mode is one row and one handler
module, a new view one row and one function.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from kprofile.errors import usage_error

if TYPE_CHECKING:
    from kprofile.core.metric import Metric
    from kprofile.options import Options
    from kprofile.outcome import Outcome

Handler = Callable[["Options", "Outcome", "Metric | None"], None]


def _load(spec: str) -> Any:
    """The function ``module:function`` names, imported now."""
    module, _, function = spec.partition(":")
    return getattr(importlib.import_module(module), function)


@dataclass(frozen=True)
class Mode:
    name: str
    flag: str | None  # None: the default mode (per-file views)
    attribute: str  # the Options field that selects it
    handler: str  # "module:function"
    metric: bool = True  # needs a metric column
    views: bool = False  # admits --ratio, --head, --tail, --top, --within
    output: bool = False  # -o writes the entries it selects
    update: bool = False  # --update takes the configs it selects
    pivots: bool = True  # admits -p
    combines: bool = True  # admits --combine (needs a metric; files stay apart)
    options: tuple[str, ...] = ()  # its own flags (see OWN_OPTIONS)

    @property
    def label(self) -> str:
        return self.flag or "the per-file views"

    def load(self) -> Handler:
        handler: Handler = _load(self.handler)
        return handler


@dataclass(frozen=True)
class View:
    """A per-file view: ``flag`` sets the ``Options`` field ``attribute``; ``builder``
    (``module:function``, see ``kprofile.modes.views.Builder``) makes its sections and
    selection for one file or ``-p`` group."""

    flag: str
    attribute: str
    builder: str
    selects: bool = False  # picks rows: -o --write-selection writes them
    common: bool = False  # picks one config (the common config) for -o and --update

    def load(self) -> Any:
        return _load(self.builder)


MODES: tuple[Mode, ...] = (
    Mode(
        "files",
        None,
        "",
        "kprofile.modes.files:run",
        views=True,
        output=True,
        update=True,
    ),
    Mode(
        "diff",
        "--diff",
        "diff",
        "kprofile.modes.diff:run",
        combines=False,  # compares files: combined, they would be one
        options=("--out-dir",),
    ),
    Mode(
        "merge",
        "--merge",
        "merge",
        "kprofile.modes.merge:run",
        metric=False,
        combines=False,
        output=True,
        options=("--sort-pivots",),
    ),
    Mode(
        "correlation",
        "--correlation",
        "correlation",
        "kprofile.modes.correlation:run",
        pivots=False,
        options=("--out-dir", "--include-shapes"),
    ),
    Mode(
        "cover",
        "--cover",
        "cover",
        "kprofile.modes.cover:run",
        output=True,
        options=("--time-limit", "--cover-loss-time-limit"),
    ),
    Mode(
        "importance",
        "--importance",
        "importance",
        "kprofile.modes.importance:run",
        options=("--plot",),
    ),
    Mode(
        "ranges",
        "--ranges",
        "ranges",
        "kprofile.modes.ranges:run",
        output=True,
        update=True,
        options=("--tol", "--range-end"),
    ),
    Mode(
        "score",
        "--score",
        "score",
        "kprofile.modes.score:run",
        options=("--fail-above",),
    ),
    Mode(
        "budget",
        "--budget",
        "budget",
        "kprofile.modes.budget:run",
        output=True,
        options=("--objective", "--time-limit"),
    ),
)

# Flags that only some modes admit, and the Options field each sets.
OWN_OPTIONS = {
    "--sort-pivots": "sort_pivots",
    "--out-dir": "out_dir",
    "--include-shapes": "include_shapes",
    "--time-limit": "time_limit",  # also spelled --cover-time-limit
    "--cover-loss-time-limit": "cover_loss_time_limit",
    "--plot": "plot",
    "--tol": "tol",
    "--range-end": "range_end",
    "--fail-above": "fail_above",
    "--objective": "objective",
}
VIEWS: tuple[View, ...] = (
    View("--ratio", "ratio", "kprofile.modes.views:ratio_view"),
    View("--head", "head", "kprofile.modes.views:head_view", selects=True),
    View("--tail", "tail", "kprofile.modes.views:tail_view", selects=True),
    View("--top", "top", "kprofile.modes.views:top_view", selects=True, common=True),
    View(
        "--top-fraction",
        "top_fraction",
        "kprofile.modes.views:top_fraction_view",
        selects=True,
        common=True,
    ),
    View(
        "--within",
        "within",
        "kprofile.modes.views:within_view",
        selects=True,
        common=True,
    ),
)


def _given(options: Options, attribute: str) -> bool:
    """Whether the user set ``attribute`` (it differs from the field's default)."""
    default = next(f.default for f in fields(options) if f.name == attribute)
    return bool(getattr(options, attribute) != default)


def given_modes(options: Options) -> list[Mode]:
    return [m for m in MODES if m.flag and _given(options, m.attribute)]


def given_views(options: Options) -> list[View]:
    """The views asked for, in the table's order (the order they are shown in)."""
    return [v for v in VIEWS if _given(options, v.attribute)]


def check_options(options: Options) -> Mode:
    """The active mode, after refusing every combination the table does not admit."""
    chosen = given_modes(options)
    if len(chosen) > 1:
        raise usage_error(f"{chosen[0].flag} and {chosen[1].flag} cannot be combined")
    mode = chosen[0] if chosen else MODES[0]
    views = given_views(options)
    if views and not mode.views:
        raise usage_error(
            f"{views[0].flag} is a per-file view; it cannot be combined with "
            f"{mode.label}"
        )
    _check_own_options(options, mode)
    if options.combine is not None and not (mode.metric and mode.combines):
        raise usage_error(f"--combine does not apply to {mode.label}")
    if options.pivots and not mode.pivots:
        raise usage_error(f"-p/--pivots does not apply to {mode.label}")
    _check_sinks(options, mode, [v for v in views if v.selects])
    if not options.files:
        raise usage_error("no input files; see kprofile --help")
    return mode


def _check_own_options(options: Options, mode: Mode) -> None:
    for flag, attribute in OWN_OPTIONS.items():
        if not _given(options, attribute) or flag in mode.options:
            continue
        owners = [m.label for m in MODES if flag in m.options]
        either = ", ".join(owners[:-1]) + " or " if len(owners) > 1 else ""
        raise usage_error(f"{flag} only applies to {either}{owners[-1]}")


def _check_sinks(options: Options, mode: Mode, selecting: list[View]) -> None:
    """-o, --update, --dry-run and --write-selection."""
    if options.dry_run and options.update is None:
        raise usage_error("--dry-run only applies to --update")
    if options.write_selection and not options.output:
        raise usage_error("--write-selection only applies to -o")
    if options.output and not mode.output:
        raise usage_error(
            f"-o writes a manifest of selected entries; {mode.label} selects none"
        )
    if options.update is not None:
        _check_update(options, mode, selecting)
    if options.output and options.write_selection:
        if not selecting:
            flags = [v.flag for v in VIEWS if v.selects]
            raise usage_error(
                f"--write-selection needs {', '.join(flags[:-1])} or {flags[-1]}"
            )
        if len(selecting) > 1:
            raise usage_error(
                f"-o: {selecting[0].flag} and {selecting[1].flag} select different "
                "entries; pass one of them"
            )
    elif options.output:
        _one_config("-o", selecting)


def _check_update(options: Options, mode: Mode, selecting: list[View]) -> None:
    if not mode.update:
        raise usage_error(f"--update does not apply to {mode.label}")
    if options.output:
        raise usage_error("--update and -o both write a manifest; pass one of them")
    several = [v for v in selecting if not v.common]
    if several:
        common = "/".join(v.flag for v in VIEWS if v.common)
        raise usage_error(
            "--update takes one config per shape (the best, or the common config of "
            f"{common}); {several[0].flag} selects several"
        )
    _one_config("--update", selecting)


def _one_config(sink: str, selecting: list[View]) -> None:
    """Without --write-selection a sink takes one config per file: the best entry,
    or the common config of one view that picks one."""
    configs = [v for v in selecting if v.common]
    if len(configs) > 1:
        raise usage_error(
            f"{sink}: {configs[0].flag} and {configs[1].flag} choose different "
            "configs; pass one of them"
        )
