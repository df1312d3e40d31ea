"""What the CLI does once arguments are parsed: select tables, plan, write or diff."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tuning_codegen.errors import (
    EXIT_INPUT_ERROR,
    EXIT_OK,
    EXIT_STALE,
    InputError,
    InputErrors,
)
from tuning_codegen.paths import REGISTRY_NAME, RealPaths, find_registry, short_path
from tuning_codegen.registry import Registry, load_registry
from tuning_codegen.table import Table

if TYPE_CHECKING:
    from tuning_codegen.generate import TargetUpdate

PROG = "tuning-codegen"
Label = Callable[[str], tuple[str, str]]


def run_single(table: Table, *, check: bool, annotate: bool = False) -> int:
    """Single-table mode: diff headers show the target path as given."""
    return _run(
        [table], (), check=check, label=lambda path: (path, path), annotate=annotate
    )


def run_registry(
    *,
    config: str | None,
    table_names: Sequence[str],
    since: str | None,
    files: Sequence[str],
    check: bool,
    list_only: bool,
    cwd: Path,
    hook: bool = False,
    annotate: bool = False,
) -> int:
    """Registry mode; ``hook``: only tables ``files`` touch (none given: none), and
    no registered file deleted (``tuning_codegen.hookmode``)."""
    registry = _open_registry(config, cwd, hook=hook)
    if hook:
        from tuning_codegen.hookmode import check_nothing_deleted

        check_nothing_deleted(registry)
    tables = _select_by_name(registry, table_names)
    if since is not None:
        from tuning_codegen.changes import changed_since

        tables = affected_tables(registry, tables, changed_since(since, registry.root))
    if files or hook:
        tables = affected_tables(registry, tables, {os.path.abspath(f) for f in files})
    if list_only:
        return _print_list(tables, registry.tables, cwd, check=check)
    if not tables:
        return EXIT_OK

    def label(path: str) -> tuple[str, str]:
        rel = _relative(path, registry.root)
        return f"a/{rel}", f"b/{rel}"

    return _run(
        tables,
        registry.tables,
        check=check,
        label=label,
        git_style=True,
        cwd=cwd,
        real_of=registry.real_path,
        annotate=annotate,
    )


def _open_registry(config: str | None, cwd: Path, *, hook: bool) -> Registry:
    if config is not None:
        return load_registry(config)
    found = find_registry(cwd)
    if found is None:
        if hook:
            _refuse_deleted_registry(cwd)
        raise InputError(
            str(cwd),
            f"no {REGISTRY_NAME} found here or in a parent folder up to the git root; "
            "create one, pass --config, or use the single-table flags (see --help)",
        )
    return load_registry(short_path(str(found)))


def _refuse_deleted_registry(cwd: Path) -> None:
    from tuning_codegen.hookmode import deleted_registry

    deleted = deleted_registry(cwd)
    if deleted is not None:
        raise InputError(
            short_path(deleted),
            "deleted or renamed in this commit, but the tuning-codegen hook still "
            "runs; restore it, or remove the hook from .pre-commit-config.yaml",
        )


def _select_by_name(registry: Registry, names: Sequence[str]) -> list[Table]:
    if not names:
        return list(registry.tables)
    known = {t.name: t for t in registry.tables}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise InputError(
            registry.path,
            f"no table named {', '.join(repr(n) for n in unknown)} "
            f"(tables: {', '.join(known)})",
        )
    return [t for t in registry.tables if t.name in set(names)]


def affected_tables(
    registry: Registry, tables: Iterable[Table], changed: set[str]
) -> list[Table]:
    """Tables reading or writing a changed file; all of them if the registry changed."""
    resolve = RealPaths()
    real = {resolve(p) for p in changed}
    tables = list(tables)
    if registry.real_path(registry.path) in real:
        return tables
    return [t for t in tables if any(registry.real_path(p) in real for p in t.inputs())]


def _relative(path: str, start: str) -> str:
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(start))
    return rel.replace(os.sep, "/")


def _display(path: str, cwd: Path | None) -> str:
    if cwd is None:
        return path
    rel = os.path.relpath(os.path.abspath(path), cwd)
    return path if rel.startswith("..") else rel


def _run(
    tables: Sequence[Table],
    siblings: Sequence[Table],
    *,
    check: bool,
    label: Label,
    git_style: bool = False,
    cwd: Path | None = None,
    real_of: Callable[[str], str] = os.path.realpath,
    annotate: bool = False,
) -> int:
    from tuning_codegen.generate import plan, regenerate  # not needed when no table is

    if not check:
        for update in regenerate(tables, siblings, real_of):
            names = ", ".join(t.name for t in update.stale_tables)
            print(f"regenerated {_display(update.path, cwd)} (tables: {names})")
        return EXIT_OK
    stale = [u for u in plan(tables, siblings, real_of) if u.stale]
    if not stale:
        return EXIT_OK
    if annotate:  # --format github: one workflow command per stale region
        from tuning_codegen.annotate import stale_annotations

        print("\n".join(stale_annotations(stale)))
    _print_diffs(stale, label, git_style=git_style)
    return EXIT_STALE


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def _print_diffs(stale: list[TargetUpdate], label: Label, *, git_style: bool) -> None:
    from tuning_codegen.diff import unified_diff

    out = sys.stdout
    for update in stale:
        fromfile, tofile = label(update.path)
        if git_style:
            out.write(f"diff --git {fromfile} {tofile}\n")
        out.write(unified_diff(update.old, update.new, fromfile, tofile))
    regions = sum(len(u.stale_tables) for u in stale)
    out.write(
        f"{_plural(regions, 'stale region')} in {_plural(len(stale), 'file')}; "
        f"run {PROG} to regenerate\n"
    )
    out.flush()


def _print_list(
    tables: Sequence[Table], siblings: Sequence[Table], cwd: Path, *, check: bool
) -> int:
    """One line per table; exit 2 if a table has an error, else 1 if ``check`` and
    one is stale."""
    rows = [
        (t.name, _display(t.target, cwd), table_status(t, siblings)) for t in tables
    ]
    if not rows:
        print("no tables selected")
        return EXIT_OK
    width = [max(len(r[i]) for r in rows) for i in range(2)]
    for name, target, status in rows:
        print(f"{name:<{width[0]}}  {target:<{width[1]}}  {status}")
    statuses = {status.split(":", 1)[0] for _, _, status in rows}
    if "error" in statuses:
        return EXIT_INPUT_ERROR
    return EXIT_STALE if check and "stale" in statuses else EXIT_OK


def table_status(table: Table, siblings: Sequence[Table] = ()) -> str:
    """fresh, stale, or ``error: ...`` for one table (its target's other regions
    checked too)."""
    from tuning_codegen.generate import plan

    try:
        (update,) = plan([table], siblings)
    except InputErrors as exc:
        return f"error: {exc.errors[0]}"
    except InputError as exc:
        return f"error: {exc}"
    return "stale" if update.stale_tables else "fresh"
