"""Writing what ``generate.plan`` planned: every stale target, all or nothing, under
the targets' locks (``regenerate``), never through a hard link."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence

from tuning_codegen.errors import InputError
from tuning_codegen.generate import TargetUpdate, plan
from tuning_codegen.locks import locked
from tuning_codegen.table import Table
from tuning_codegen.transaction import Transaction, remove_stale_temporaries


def write_updates(updates: Iterable[TargetUpdate]) -> list[TargetUpdate]:
    """Write every stale target, all or nothing; return the ones written.

    The caller holds the targets' locks (``regenerate`` does).
    """
    written = [u for u in updates if u.stale]
    for update in written:
        _refuse_hard_links(update.path)
    with Transaction() as transaction:
        for update in written:
            real = update.real or os.path.realpath(update.path)
            transaction.stage(update.path, real, update.new, old=update.old)
        transaction.commit()
    return written


def _refuse_hard_links(path: str) -> None:
    """A new file renamed over one name of a hard-linked file would split it: the
    other names would keep the old text."""
    try:
        links = os.stat(path).st_nlink
    except OSError:  # gone since planning: the transaction reports it
        return
    if links > 1:
        raise InputError(
            path,
            f"cannot write: the file has {links} hard links, and a rewrite would "
            "leave the other names with the old text; remove the extra links",
        )


def regenerate(
    tables: Sequence[Table],
    siblings: Sequence[Table] = (),
    real_of: Callable[[str], str] = os.path.realpath,
) -> list[TargetUpdate]:
    """Lock every target, remove stale temporaries, plan, and write the stale ones;
    every update planned (``stale``: written). A target whose link changed since
    ``real_of`` resolved it is written at the checked place or not at all (its text
    no longer matches the plan)."""
    reals = sorted({real_of(t.target) for t in tables})
    with locked(reals):
        remove_stale_temporaries(reals)
        updates = plan(tables, siblings, real_of)
        write_updates(updates)
    return updates
