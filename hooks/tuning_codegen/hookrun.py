"""A hook run (``--hook``): the tables the commit touches, judged from the index.

Every file a touched table reads, its target included, is read as staged
(``commit.snapshot.IndexFiles``), and the tables touched are those of git's changes
(``commit.changed``), so the verdict is the commit's under any hook runner; a
formatter's configuration, read from the working tree, must be the commit's too
(``commit.formatconfig``).
``--check`` prints the diff of the staged target and exits 1. Otherwise the regions
are regenerated **in the working tree**: spliced into the file as it is there, so its
unstaged changes outside the regions stay (a working copy whose unstaged changes
break a region is refused with one line); and the run exits 1 whenever the commit
holds a stale region, rewritten or already regenerated but unstaged: stage it and
commit again. Nothing is ever staged for the user.
"""

from __future__ import annotations

from collections.abc import Sequence

from tuning_codegen.commit.formatconfig import refuse_configuration_not_committed
from tuning_codegen.commit.snapshot import Commit, IndexFiles, hook_tables
from tuning_codegen.errors import EXIT_OK, EXIT_STALE, InputError, InputErrors
from tuning_codegen.flags import Request
from tuning_codegen.generate import (
    TargetUpdate,
    check_regions_intact,
    markers_of,
    plan,
)
from tuning_codegen.locks import locked
from tuning_codegen.registry import Registry
from tuning_codegen.report import Diffs, Reporter, Shown
from tuning_codegen.sources import file_identity
from tuning_codegen.splice import locate, splice_insides
from tuning_codegen.table import Table
from tuning_codegen.textio import read_text
from tuning_codegen.transaction import Transaction, remove_stale_temporaries


def run_hook(
    commit: Commit,
    tables: Sequence[Table],
    request: Request,
    *,
    diffs: Diffs,
    shown: Shown,
    reporter: Reporter,
) -> int:
    """Judge the touched ones of ``tables``; the exit code."""
    touched = hook_tables(commit, tables, request.files)
    if not touched:
        return EXIT_OK
    refuse_configuration_not_committed(commit, touched)
    registry = commit.registry
    files = IndexFiles(commit)
    files.prefetch(touched)
    updates = plan(touched, registry.tables, registry.real_path, files)
    if request.check:
        reporter.checked(updates, diffs, shown)
        return EXIT_STALE if any(u.stale for u in updates) else EXIT_OK
    stale = [u for u in updates if u.stale]
    _refuse_outside_sparse_checkout(stale, commit)
    written = regenerate_working_tree(stale, registry)
    reporter.restaged(written, [u for u in stale if u not in written], shown)
    return EXIT_STALE if stale else EXIT_OK


def _refuse_outside_sparse_checkout(
    stale: Sequence[TargetUpdate], commit: Commit
) -> None:
    errors = [
        InputError(
            update.path,
            f"outside the sparse checkout, but table '{update.stale_tables[0].name}' "
            "needs it to regenerate; add its folder with git sparse-checkout add",
        )
        for update in stale
        if update.path in commit.absent
    ]
    if errors:
        raise InputErrors(errors)


def regenerate_working_tree(
    stale: Sequence[TargetUpdate], registry: Registry
) -> list[TargetUpdate]:
    """Write each stale update's regions into the working tree's copy of its target,
    all or nothing, under the targets' locks; the updates whose file changed."""
    reals = sorted({u.real for u in stale})
    with locked(reals):
        remove_stale_temporaries(reals)
        edits = [_edit(update, registry) for update in stale]
        written = [(u, old, new) for u, (old, new) in zip(stale, edits) if old != new]
        with Transaction() as transaction:
            for update, old, new in written:
                transaction.stage(update.path, update.real, new, old=old)
            transaction.commit()
    return [update for update, _, _ in written]


def _edit(update: TargetUpdate, registry: Registry) -> tuple[str, str]:
    """The working tree's text of the target, and that text with the new regions."""
    try:
        current = read_text(update.real)
    except InputError as exc:
        raise InputError(
            update.path,
            f"cannot regenerate it in the working tree: {exc.message}; restore it "
            "(git checkout -- PATH) and commit again",
        ) from None
    everyone = _sharing_target(update, registry)
    try:
        regions = locate(current, markers_of(update.tables), update.path)
    except InputErrors as exc:
        raise InputError(
            update.path,
            "cannot regenerate it in the working tree: its unstaged changes break "
            f"the region ({exc.errors[0].message}); stage or undo them",
        ) from None
    new = splice_insides(current, regions, update.insides)
    check_regions_intact(new, everyone, update.path)
    return current, new


def _sharing_target(update: TargetUpdate, registry: Registry) -> list[Table]:
    """Every table of the registry whose target is ``update``'s file."""
    key = file_identity(update.real)
    return [
        t for t in registry.tables if file_identity(registry.real_path(t.target)) == key
    ]
