"""Parsed command-line options as one typed record, and the small parsers behind them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kprofile.errors import usage_error

DEFAULT_METRIC = "met (ms)"


@dataclass(frozen=True)
class Options:
    files: tuple[str, ...]
    metric: str = DEFAULT_METRIC
    higher_is_better: bool | None = None
    ratio: bool = False
    head: int | None = None
    tail: int | None = None
    top: float | None = None
    within: float | None = None
    verbose: bool = False
    diff: bool = False
    merge: bool = False
    correlation: bool = False
    pivots: tuple[str, ...] = ()
    sort_pivots: tuple[str, ...] = ()
    query: str | None = None
    output: str | None = None
    out_dir: str = "."
    format: str = "text"
    update: str | None = None
    dry_run: bool = False
    cover: float | None = None
    importance: bool = False
    plot: str | None = None

    @property
    def mode(self) -> str:
        """``diff``, ``merge``, ``correlation``, ``cover``, ``importance`` (whole-input modes)
        or ``files`` (per-file views, and ``--update``)."""
        for name, on in self._modes():
            if on:
                return name.lstrip("-")
        return "files"

    def _modes(self) -> tuple[tuple[str, bool], ...]:
        return (
            ("--diff", self.diff),
            ("--merge", self.merge),
            ("--correlation", self.correlation),
            ("--cover", self.cover is not None),
            ("--importance", self.importance),
        )


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
    """``0.05`` or ``5%``; within (0, 1] (or [0, ...) for a band when ``allow_zero``)."""
    text = value.strip()
    scale = 100.0 if text.endswith("%") else 1.0
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
    elif not 0.0 < number <= 1.0:
        raise usage_error(
            f"{option}: expected a fraction in (0, 1] like 0.05 or 5%, got {value!r}"
        )
    return number


def check_combinations(options: Options) -> None:
    """Refuse flags that cannot work together, naming them."""
    modes = [flag for flag, on in options._modes() if on]
    if len(modes) > 1:
        raise usage_error(f"{modes[0]} and {modes[1]} cannot be combined")
    views = [
        flag
        for flag, on in (
            ("--ratio", options.ratio),
            ("--head", options.head is not None),
            ("--tail", options.tail is not None),
            ("--top", options.top is not None),
            ("--within", options.within is not None),
        )
        if on
    ]
    if modes and views:
        raise usage_error(
            f"{views[0]} is a per-file view; it cannot be combined with {modes[0]}"
        )
    if options.sort_pivots and not options.merge:
        raise usage_error("--sort-pivots only applies to --merge")
    if options.correlation and options.pivots:
        raise usage_error("-p/--pivots does not apply to --correlation")
    if options.output and options.mode in ("diff", "correlation", "importance"):
        raise usage_error(
            f"-o writes a manifest of selected entries; {modes[0]} selects none"
        )
    selecting = [v for v in views if v != "--ratio"]
    if options.output and len(selecting) > 1:
        raise usage_error(
            f"-o: {selecting[0]} and {selecting[1]} select different entries; pass one of them"
        )
    _check_update(options, modes, selecting)
    if options.plot is not None and not options.importance:
        raise usage_error("--plot only applies to --importance")
    for flag, count in (("--head", options.head), ("--tail", options.tail)):
        if count is not None and count < 1:
            raise usage_error(
                f"{flag}: expected a positive number of entries, got {count}"
            )
    if not options.files:
        raise usage_error("no input files; see kprofile --help")


def _check_update(options: Options, modes: list[str], selecting: list[str]) -> None:
    if options.dry_run and options.update is None:
        raise usage_error("--dry-run only applies to --update")
    if options.update is None:
        return
    if modes:
        raise usage_error(
            f"--update works per result file; it cannot be combined with {modes[0]}"
        )
    if options.output:
        raise usage_error("--update and -o both write a manifest; pass one of them")
    several = [v for v in selecting if v in ("--head", "--tail")]
    if several:
        raise usage_error(
            f"--update takes one config per shape (the best, or the common config of --top/--within); {several[0]} selects several"
        )
    if len(selecting) > 1:
        raise usage_error(
            f"--update: {selecting[0]} and {selecting[1]} choose different configs; pass one of them"
        )
