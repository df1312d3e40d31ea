"""kprofile's modes, declared once.

Each mode names its flag, its handler (``module:function``, imported only when the mode
runs) and what it admits: the per-file views, ``-o``, ``--update``, ``-p`` and its own
options. ``check_options`` derives every "cannot be combined" rule from this table, and
``kprofile.run`` dispatches through it, so a new mode is one more row here and one
handler module.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from kprofile.errors import usage_error

if TYPE_CHECKING:
    from kprofile.core.metric import Metric
    from kprofile.options import Options
    from kprofile.outcome import Outcome

Handler = Callable[["Options", "Outcome", "Metric | None"], None]


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
    options: tuple[str, ...] = ()  # its own flags (see OWN_OPTIONS)

    @property
    def label(self) -> str:
        return self.flag or "the per-file views"

    def load(self) -> Handler:
        module, _, function = self.handler.partition(":")
        handler: Handler = getattr(importlib.import_module(module), function)
        return handler


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
    Mode("diff", "--diff", "diff", "kprofile.modes.diff:run", options=("--out-dir",)),
    Mode(
        "merge",
        "--merge",
        "merge",
        "kprofile.modes.merge:run",
        metric=False,
        output=True,
        options=("--sort-pivots",),
    ),
    Mode(
        "correlation",
        "--correlation",
        "correlation",
        "kprofile.modes.correlation:run",
        pivots=False,
        options=("--out-dir",),
    ),
    Mode(
        "cover",
        "--cover",
        "cover",
        "kprofile.modes.cover_view:run",
        output=True,
        options=("--cover-time-limit", "--cover-loss-time-limit"),
    ),
    Mode(
        "importance",
        "--importance",
        "importance",
        "kprofile.modes.importance_view:run",
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
)

# Flags that only some modes admit, and the Options field each sets.
OWN_OPTIONS = {
    "--sort-pivots": "sort_pivots",
    "--out-dir": "out_dir",
    "--cover-time-limit": "cover_time_limit",
    "--cover-loss-time-limit": "cover_loss_time_limit",
    "--plot": "plot",
    "--tol": "tol",
    "--range-end": "range_end",
}
VIEWS = {
    "--ratio": "ratio",
    "--head": "head",
    "--tail": "tail",
    "--top": "top",
    "--top-fraction": "top_fraction",
    "--within": "within",
}
SELECTING = ("--head", "--tail", "--top", "--top-fraction", "--within")
COMMON = ("--top", "--top-fraction", "--within")  # each chooses one common config


def _given(options: Options, attribute: str) -> bool:
    """Whether the user set ``attribute`` (it differs from the field's default)."""
    default = next(f.default for f in fields(options) if f.name == attribute)
    return bool(getattr(options, attribute) != default)


def given_modes(options: Options) -> list[Mode]:
    return [m for m in MODES if m.flag and _given(options, m.attribute)]


def check_options(options: Options) -> Mode:
    """The active mode, after refusing every combination the table does not admit."""
    chosen = given_modes(options)
    if len(chosen) > 1:
        raise usage_error(f"{chosen[0].flag} and {chosen[1].flag} cannot be combined")
    mode = chosen[0] if chosen else MODES[0]
    views = [flag for flag, attr in VIEWS.items() if _given(options, attr)]
    if views and not mode.views:
        raise usage_error(
            f"{views[0]} is a per-file view; it cannot be combined with {mode.label}"
        )
    _check_own_options(options, mode)
    if options.pivots and not mode.pivots:
        raise usage_error(f"-p/--pivots does not apply to {mode.label}")
    _check_sinks(options, mode, [v for v in views if v in SELECTING])
    if not options.files:
        raise usage_error("no input files; see kprofile --help")
    return mode


def _check_own_options(options: Options, mode: Mode) -> None:
    for flag, attribute in OWN_OPTIONS.items():
        if not _given(options, attribute) or flag in mode.options:
            continue
        owners = [m.label for m in MODES if flag in m.options]
        if len(owners) == 1:
            raise usage_error(f"{flag} only applies to {owners[0]}")
        raise usage_error(f"{flag} does not apply to {mode.label}")


def _check_sinks(options: Options, mode: Mode, selecting: list[str]) -> None:
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
            raise usage_error(
                "--write-selection needs --head, --tail, --top, --top-fraction or "
                "--within"
            )
        if len(selecting) > 1:
            raise usage_error(
                f"-o: {selecting[0]} and {selecting[1]} select different entries; "
                "pass one of them"
            )
    elif options.output:
        _one_config("-o", selecting)


def _check_update(options: Options, mode: Mode, selecting: list[str]) -> None:
    if not mode.update:
        raise usage_error(f"--update does not apply to {mode.label}")
    if options.output:
        raise usage_error("--update and -o both write a manifest; pass one of them")
    several = [v for v in selecting if v in ("--head", "--tail")]
    if several:
        raise usage_error(
            "--update takes one config per shape (the best, or the common config of "
            f"--top/--within); {several[0]} selects several"
        )
    _one_config("--update", selecting)


def _one_config(sink: str, selecting: list[str]) -> None:
    """Without --write-selection a sink takes one config per file: the best entry,
    or the common config of --top or --within."""
    configs = [v for v in selecting if v in COMMON]
    if len(configs) > 1:
        raise usage_error(
            f"{sink}: {configs[0]} and {configs[1]} choose different configs; "
            "pass one of them"
        )
