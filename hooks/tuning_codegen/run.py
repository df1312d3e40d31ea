"""What the CLI does once arguments are parsed: select tables, plan, write or diff.

What happened goes to the reporter the CLI made (``tuning_codegen.report``); the exit
code is returned.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from tuning_codegen.commit.since import changed_since
from tuning_codegen.commit.snapshot import (
    hook_tables,
    open_commit,
    refuse_deleted_registry,
)
from tuning_codegen.commit.touched import tables_touched
from tuning_codegen.errors import (
    EXIT_INPUT_ERROR,
    EXIT_OK,
    EXIT_STALE,
    InputError,
    InputErrors,
    quote_path,
)
from tuning_codegen.flags import Request
from tuning_codegen.generate import plan
from tuning_codegen.hookrun import run_hook
from tuning_codegen.listing import statuses
from tuning_codegen.paths import REGISTRY_NAME
from tuning_codegen.regenerate import regenerate
from tuning_codegen.registry import (
    Registry,
    discover_registry,
    unregistered,
)
from tuning_codegen.report import Diffs, Reporter, Row, Shown
from tuning_codegen.table import Table


def run_single(table: Table, *, check: bool, reporter: Reporter) -> int:
    """Single-table mode: output shows the target path as given."""
    diffs = Diffs(lambda path: (path, path))
    return _run([table], (), check=check, diffs=diffs, shown=str, reporter=reporter)


def run_registry(request: Request, cwd: str, reporter: Reporter) -> int:
    """Registry mode; with ``--hook``, the commit judged (``tuning_codegen.hookrun``):
    only the tables its changes touch, every file read from the index."""
    if request.hook:
        return _run_hook(request, cwd, reporter)
    registry = open_registry(request.config, cwd)
    tables = _select_by_name(registry, request.tables)
    if request.since is not None:
        changed = changed_since(request.since, registry.root)
        tables = tables_touched(registry, tables, changed, root=registry.root)
    if request.files:
        _check_registered(registry, request.files)
        changed = {os.path.abspath(f) for f in request.files}
        tables = tables_touched(registry, tables, changed, root=registry.root)
    shown = _shown_from(cwd)
    if request.list_tables:
        return _list(tables, registry.tables, shown, check=request.check,
                     reporter=reporter)  # fmt: skip
    return _run(
        tables,
        registry.tables,
        check=request.check,
        diffs=_repository_diffs(registry.root),
        shown=shown,
        real_of=registry.real_path,
        reporter=reporter,
    )


def _run_hook(request: Request, cwd: str, reporter: Reporter) -> int:
    commit = open_commit(request.config, cwd)
    if commit is None:
        refuse_deleted_registry(cwd)
        raise _no_registry(cwd)
    registry = commit.registry
    tables = _select_by_name(registry, request.tables)
    shown = _shown_from(cwd)
    if not commit.root:  # outside a git repository: the working tree is all there is
        tables = hook_tables(commit, tables, request.files)
        return _run(tables, registry.tables, check=request.check,
                    diffs=_repository_diffs(registry.root), shown=shown,
                    real_of=registry.real_path, reporter=reporter)  # fmt: skip
    return run_hook(
        commit,
        tables,
        request,
        diffs=_repository_diffs(commit.root),
        shown=shown,
        reporter=reporter,
    )


def _repository_diffs(root: str) -> Diffs:
    """Diffs labelled as git labels them: ``a/PATH`` and ``b/PATH``, PATH from the
    repository's root."""

    def label(path: str) -> tuple[str, str]:
        rel = _relative(path, root)
        return f"a/{rel}", f"b/{rel}"

    return Diffs(label, git_style=True)


def _check_registered(registry: Registry, files: Sequence[str]) -> None:
    """Named without ``--hook``, every file must belong to a table: a typo or a file
    the registry does not know is said, never taken for "nothing to do"."""
    unknown = unregistered(registry, files)
    if unknown:
        tables = ", ".join(t.name for t in registry.tables) or "none"
        raise InputErrors(
            InputError(
                path,
                f"not a file of any table of {quote_path(registry.path)} (a manifest, "
                f"snippet or target); tables: {tables}",
            )
            for path in unknown
        )


def open_registry(config: str | None, cwd: str) -> Registry:
    registry = discover_registry(config, cwd)
    if registry is None:
        raise _no_registry(cwd)
    return registry


def _no_registry(cwd: str) -> InputError:
    return InputError(
        cwd,
        f"no {REGISTRY_NAME} found here or in a parent folder up to the git root; "
        "create one, pass --config, or use the single-table flags (see --help)",
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


def _relative(path: str, start: str) -> str:
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(start))
    return rel.replace(os.sep, "/")


def _shown_from(cwd: str) -> Shown:
    """A path as output shows it: relative to ``cwd`` when below it."""

    def shown(path: str) -> str:
        rel = os.path.relpath(os.path.abspath(path), cwd)
        return path if rel.startswith("..") else rel

    return shown


def _run(
    tables: Sequence[Table],
    siblings: Sequence[Table],
    *,
    check: bool,
    diffs: Diffs,
    shown: Shown,
    real_of: Callable[[str], str] = os.path.realpath,
    reporter: Reporter,
) -> int:
    if not tables:
        return EXIT_OK
    if not check:
        reporter.written(regenerate(tables, siblings, real_of), shown)
        return EXIT_OK
    updates = plan(tables, siblings, real_of)
    reporter.checked(updates, diffs, shown)
    return EXIT_STALE if any(u.stale for u in updates) else EXIT_OK


def _list(
    tables: Sequence[Table],
    siblings: Sequence[Table],
    shown: Shown,
    *,
    check: bool,
    reporter: Reporter,
) -> int:
    """One row per table; exit 2 if a table has an error, else 1 if ``check`` and
    one is stale."""
    rows = [
        Row(s.table.name, shown(s.table.target), s.status, s.error)
        if s.error is None
        else Row(s.table.name, shown(s.table.target), f"error: {s.error}", s.error)
        for s in statuses(tables, siblings)
    ]
    reporter.listed(rows)
    if any(row.error is not None for row in rows):
        return EXIT_INPUT_ERROR
    return EXIT_STALE if check and any(r.status == "stale" for r in rows) else EXIT_OK
