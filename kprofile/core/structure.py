"""Which compile-time parameters of one results file are problem sizes, told from the
sweep's structure.

kbench passes ``$`` parameters at run time and every other one at compile time, so a
Mojo GEMM's problem sizes N and K are compile-time parameters like its tiles. A
problem size is fixed within a problem and changes with the problem; a tuning
parameter is swept within each problem. kbench writes its rows in its own order
(``mesh_idx``): each spec group a cartesian product, first key slowest, the groups
one after another. Read in that order, per compile-time parameter that varies:

- a value comes back after another while the runtime values stay the same (it is
  swept under a slower key): a **tuning** parameter;
- it has one value per runtime value (``$M``), while other parameters vary there:
  a **problem size** (one spec group per problem, each with its own ``$M`` list);
- otherwise each of its values is one block of the sweep within a runtime value,
  with a sweep inside. When the runtime values are swept, each in a block of its
  own, inside the parameter's blocks, it is a **problem size** (problems sharing
  one ``$M`` list, a group each). Else the results cannot tell it from the slowest
  tile of a group: one such parameter is taken as that tile; two or more that change
  together (N and K) are **unsure**: taken as part of the problem, which never
  merges two problems, and said once on stderr with the ``-p`` that settles it.
  Without runtime parameters (a file per shape) they are bundles of tiles, one per
  spec group, as likely as problem sizes: taken as tuned.

Where the structure cannot tell (a parameter that changes only between blocks), a
GEMM's names settle it: M, N or K is a problem size. One named so that the structure
takes for a tuning parameter (swept like a tile) is unsure.

It costs a few vectorized passes per parameter over its value codes, and reads the
rows segment by segment (a run of one value) wherever the segments are few.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from kprofile.inputs.load import MESH_IDX, Results
from kprofile.inputs.results import Structure

#: Names a GEMM's problem sizes go by: one the structure takes for a tuning
#: parameter is unsure instead (a sweep that lists ``N: [256, 512]`` like a tile).
GEMM_SIZES = frozenset({"M", "N", "K"})


def file_structure(results: Results) -> Structure:
    """The problem sizes, unsure and constant parameters of one file (see the
    module); what the record knows already, where it does."""
    if results.structure is not None:
        return results.structure
    runtime = [p for p in results.runtime if p in results.frame.columns]
    order = _mesh_order(results)
    codes = {p: _codes(results, p, order) for p in results.params}
    constant = tuple(p for p in results.params if not _varies(codes[p]))
    varying = [p for p in results.params if p not in runtime and p not in constant]
    if not varying:
        return Structure((), (), constant)
    sizes: list[str] = []
    while True:  # a size found holds the others' values apart (N=4096 twice)
        held = [codes[p] for p in (*runtime, *sizes)]
        groups = _RuntimeGroups.of(held, len(results.frame))
        layouts = {p: groups.layout(codes[p]) for p in varying if p not in sizes}
        more = _sizes(groups, layouts, codes, bool(held))
        if not more:
            break
        sizes += more
    blocked = _blocked(groups, layouts, codes)
    found = {*sizes, *(p for p in blocked if p.upper() in GEMM_SIZES)}
    unsure = _together([p for p in blocked if p not in found], layouts)
    unsure = unsure if runtime else set()
    unsure |= {p for p in varying if p.upper() in GEMM_SIZES and p not in found}
    return Structure(
        tuple(p for p in varying if p in found),
        tuple(p for p in varying if p in unsure),
        constant,
    )


def _sizes(
    groups: _RuntimeGroups,
    layouts: dict[str, _Layout],
    codes: dict[str, np.ndarray],
    held: bool,
) -> list[str]:
    """The parameters the structure shows are problem sizes, within the groups of
    what is held (the runtime values and the sizes found so far)."""
    swept = any(not lay.determined for lay in layouts.values())
    if held and swept:
        determined = [p for p, lay in layouts.items() if lay.determined]
        if determined:
            return determined
    blocked = _blocked(groups, layouts, codes)
    return [p for p in blocked if groups.swept_inside(codes[p])]


def _blocked(
    groups: _RuntimeGroups, layouts: dict[str, _Layout], codes: dict[str, np.ndarray]
) -> list[str]:
    """The parameters each of whose values is one block within a group, with a sweep
    inside: problem sizes, or the slowest tile of a spec group."""
    others = [codes[q] for q in layouts]
    return [
        p
        for p, lay in layouts.items()
        if not lay.recurs
        and not lay.determined
        and groups.sweep_inside(lay.changes, others)
    ]


def _mesh_order(results: Results) -> np.ndarray | None:
    """The rows in kbench's order: by ``mesh_idx`` where the frame has it and is not
    in that order already; None when the frame's order is it (a CSV's lines)."""
    if results.row_key != MESH_IDX:
        return None
    mesh = results.frame[MESH_IDX].to_numpy()
    if mesh.dtype.kind not in "iu" or len(mesh) < 2:
        return None
    if bool((mesh[1:] >= mesh[:-1]).all()):
        return None
    return np.argsort(mesh, kind="stable")


def _codes(results: Results, name: str, order: np.ndarray | None) -> np.ndarray:
    """The column's value codes in kbench's order (-1: a missing value)."""
    codes = results.value_codes(name)
    return codes if order is None else codes[order]


def _varies(codes: np.ndarray) -> bool:
    return bool(len(codes)) and bool((codes != codes[0]).any())


class _Layout(NamedTuple):
    """One parameter within the runtime groups: ``recurs`` (a value comes back in a
    group after another), ``determined`` (one value per group) and ``changes`` (where
    its value changes within a group, rows in group order)."""

    recurs: bool
    determined: bool
    changes: np.ndarray


class _RuntimeGroups(NamedTuple):
    """Rows grouped by their runtime values: ``ids`` per row (kbench's order),
    ``groups`` of them, ``order`` the rows group by group (None: they are already),
    ``same`` whether row i+1 is in row i's group (in group order)."""

    ids: np.ndarray
    groups: int
    order: np.ndarray | None
    same: np.ndarray

    @classmethod
    def of(cls, columns: Sequence[np.ndarray], rows: int) -> _RuntimeGroups:
        ids, count, contiguous = _group_ids(columns, rows)
        order = None if contiguous else np.argsort(ids, kind="stable")
        grouped = ids if order is None else ids[order]
        return cls(ids, count, order, grouped[1:] == grouped[:-1])

    def local(self, codes: np.ndarray) -> np.ndarray:
        return codes if self.order is None else codes[self.order]

    def layout(self, codes: np.ndarray) -> _Layout:
        local = self.local(codes)
        changes = (local[1:] != local[:-1]) & self.same
        segments = self.groups + int(np.count_nonzero(changes))
        if segments > self.groups * (int(local.max()) + 2):
            return _Layout(True, False, changes)  # more runs than (group, value)s
        starts = np.flatnonzero(np.r_[True, changes | ~self.same])
        distinct = _distinct_pairs(self.local(self.ids)[starts], local[starts] + 1)
        return _Layout(segments > distinct, distinct == self.groups, changes)

    def sweep_inside(self, changes: np.ndarray, others: Sequence[np.ndarray]) -> bool:
        """Whether another parameter varies inside a block of this one (its value
        and the runtime values held)."""
        inside = self.same & ~changes
        for codes in others:
            local = self.local(codes)
            if bool(((local[1:] != local[:-1]) & inside).any()):
                return True
        return False

    def swept_inside(self, codes: np.ndarray) -> bool:
        """Whether, in kbench's order, the runtime values change inside this
        parameter's runs, each runtime value one block there, so the parameter is
        slower than the runtime ones (a spec group's fixed value). A tile whose
        other values failed at one runtime value runs on into the next one's block
        too, but changes inside it, and its values come back: a problem size
        changes only where the runtime values do, or has each value in one run
        (two groups whose $M lists meet at one value)."""
        if self.groups < 2:
            return False
        kept = codes[1:] == codes[:-1]
        runtime = self.ids[1:] != self.ids[:-1]
        moves = runtime & kept
        if not bool(moves.any()):
            return False
        if bool((~kept & ~runtime).any()) and _recurs(codes, kept):
            return False
        run = np.r_[0, np.cumsum(~kept)]
        starts = np.flatnonzero(np.r_[True, ~kept | moves])
        return len(starts) == _distinct_pairs(run[starts], self.ids[starts])


def _group_ids(
    columns: Sequence[np.ndarray], rows: int
) -> tuple[np.ndarray, int, bool]:
    """One id per row for its tuple of runtime values, numbered by first appearance;
    how many; whether each group is one run of rows. Read run by run where the runs
    are few (kbench sweeps runtime values in blocks)."""
    if not columns or not rows:
        return np.zeros(rows, dtype=np.int64), min(rows, 1), True
    moves = np.zeros(rows - 1, dtype=bool)
    for codes in columns:
        moves |= codes[1:] != codes[:-1]
    starts = np.flatnonzero(np.r_[True, moves])
    firsts = np.stack([np.asarray(c[starts], dtype=np.int64) for c in columns])
    run_ids = _tuple_ids(firsts)
    count = int(run_ids.max()) + 1
    ids = np.repeat(run_ids, np.diff(np.r_[starts, rows]))
    return ids, count, count == len(starts)


def _tuple_ids(columns: np.ndarray) -> np.ndarray:
    """Per column of ``columns`` (one row per parameter), an id for its tuple,
    numbered by first appearance."""
    ids = np.zeros(columns.shape[1], dtype=np.int64)
    for codes in columns:
        ids = np.asarray(pd.factorize(ids * (int(codes.max()) + 2) + codes + 1)[0])
    return ids


def _recurs(codes: np.ndarray, kept: np.ndarray) -> bool:
    """Whether a value comes back in ``codes`` after another (``kept``: where a row
    holds the previous row's value)."""
    firsts = codes[np.flatnonzero(np.r_[True, ~kept])]
    return len(np.unique(firsts)) < len(firsts)


def _together(blocked: Sequence[str], layouts: dict[str, _Layout]) -> set[str]:
    """The parameters of ``blocked`` that change at the very rows another one does
    (N and K of one spec group per problem)."""
    by_rows: dict[bytes, list[str]] = {}
    for p in blocked:
        by_rows.setdefault(np.packbits(layouts[p].changes).tobytes(), []).append(p)
    return {p for names in by_rows.values() if len(names) > 1 for p in names}


def _distinct_pairs(a: np.ndarray, b: np.ndarray) -> int:
    """How many distinct (a, b) pairs there are (both non-negative)."""
    if not len(a):
        return 0
    a, b = a.astype(np.int64), b.astype(np.int64)
    return len(np.unique(a * (int(b.max()) + 1) + b))
