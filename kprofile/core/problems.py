"""What a shape is, decided once for every mode: the problem the kernel is dispatched
on, never whatever ``$`` happens to mark.

``problem(inputs, pivots)`` gives the columns that tell shapes apart (``keys``) and
those the problem holds fixed in every input (``fixed``):

- ``-p`` as given (``given``): the user's columns, nothing else;
- else kbench's runtime parameters (``$M``), with the compile-time parameters that are
  problem sizes: those each file's structure shows (``core.structure``: N and K of a
  Mojo GEMM sweep of several problems), and those constant within every file but not
  across them (one problem per file). Those the structure cannot tell from a tuning
  parameter (``unsure``) are taken as part of the problem, so two problems are never
  merged; ``unsure_note`` says so once, with the ``-p`` that settles it;
- the parameters constant in every input, with one value in all of them (N and K of a
  one-problem sweep, or a tile the sweep never varied: the results cannot tell which)
  are ``fixed``: the same problem throughout. They do not tell shapes apart, but an
  entry of a manifest that names one with another value is another problem
  (``--update``, ``--score``);
- a file with neither runtime parameters nor problem sizes is named by its constant
  parameters (one file per shape).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import NamedTuple

from kprofile.core.structure import file_structure
from kprofile.core.values import plain
from kprofile.errors import PROG, KprofileError, column_list
from kprofile.inputs.load import Results
from kprofile.inputs.results import Structure
from tuning_codegen.values import value_key


class Problem(NamedTuple):
    keys: tuple[str, ...]  # tell the shapes apart (labels, groups, joins)
    fixed: tuple[str, ...] = ()  # one value in every input: part of every problem
    unsure: tuple[str, ...] = ()  # of keys: maybe tuning parameters (said once)
    given: bool = False  # -p

    @property
    def matched(self) -> tuple[str, ...]:
        """What an entry of a manifest must agree on to be this problem's."""
        return self.keys + self.fixed


def problem(inputs: Sequence[Results], pivots: Sequence[str] = ()) -> Problem:
    """The problem columns of ``inputs`` (see the module); a ``-p`` column no input
    has is an error."""
    if pivots:
        missing = [p for p in pivots if not any(p in r.frame.columns for r in inputs)]
        if missing and inputs:
            where = inputs[0].path if len(inputs) == 1 else PROG
            raise no_pivot(where, missing, inputs)
        return Problem(tuple(pivots), given=True)
    inputs = [r for r in inputs if r.params]
    if not inputs:
        return Problem(())
    runtime = shared_runtime(inputs)
    found = [file_structure(r) for r in inputs]
    constant = _constant_in_all(inputs, found)
    sizes = {p for s in found for p in s.sizes}
    unsure = {p for s in found for p in s.unsure} - sizes
    swept = {p for r, s in zip(inputs, found) for p in _tuning(r, s)}
    unsure |= (sizes | unsure) & swept  # a size in one file, tuned in another
    sizes = (sizes - unsure) | {p for p in constant if _differs(inputs, p)}
    order = [*runtime, *(p for r in inputs for p in r.params)]
    keys = _ordered(order, set(runtime) | sizes | unsure)
    if not keys:
        return Problem(constant)
    return Problem(
        keys,
        tuple(p for p in constant if p not in keys),
        tuple(p for p in keys if p in unsure),
    )


def no_pivot(
    path: str, missing: Iterable[str], inputs: Sequence[Results]
) -> KprofileError:
    """``no column 'Q' to group by (-p); columns: M, N, ...``: the parameters first,
    then the other columns of ``inputs``."""
    names = ", ".join(map(repr, missing))
    offered = [*(p for r in inputs for p in r.params),
               *(c for r in inputs for c in r.frame.columns)]  # fmt: skip
    return KprofileError(
        path, f"no column {names} to group by (-p); {column_list(offered)}"
    )


def joined_structure(inputs: Sequence[Results]) -> Structure:
    """What the structures of ``inputs`` say of one record that joins them (repeated
    runs combined): their problem sizes (a column constant in each, with another
    value in another, among them), the unsure ones, and the columns with one value
    in all of them."""
    found = problem(inputs)
    if not found.keys or found.keys == _constants(inputs):
        return Structure((), (), found.keys or found.fixed)
    runtime = shared_runtime(inputs)
    sizes = tuple(k for k in found.keys if k not in runtime and k not in found.unsure)
    return Structure(sizes, found.unsure, found.fixed)


def _constants(inputs: Sequence[Results]) -> tuple[str, ...]:
    return _constant_in_all(inputs, [file_structure(r) for r in inputs])


def swept(inputs: Sequence[Results], found: Problem) -> tuple[str, ...]:
    """The parameters the inputs sweep within their problems: neither the problem's
    nor one value in the whole file."""
    return tuple(
        dict.fromkeys(
            p
            for r in inputs
            for p in r.params
            if p not in found.matched and p not in file_structure(r).constant
        )
    )


def shape_keys(
    inputs: Sequence[Results], pivots: Sequence[str] = ()
) -> tuple[str, ...]:
    """What every mode groups, labels and matches shapes by: the problem's columns,
    those that tell problems apart and those every input holds fixed
    (``problem(...).matched``)."""
    return problem(inputs, pivots).matched


def shared_runtime(inputs: Sequence[Results]) -> tuple[str, ...]:
    """The runtime parameters (``$M=256``) of the inputs, in order of appearance: one
    that any input passes at run time tells problems apart in all of them (a sweep
    of ``$N`` read with one that fixes N at compile time keeps the two Ns apart)."""
    return tuple(dict.fromkeys(p for r in inputs for p in r.runtime))


def is_constant(results: Results, column: str) -> bool:
    """One value in the column (a missing value one too), from its codes."""
    known = results.constant
    if known is not None and column in results.params:
        return column in known
    codes = results.value_codes(column)
    return not len(codes) or bool((codes == codes[0]).all())


def unsure_note(inputs: Sequence[Results], found: Problem) -> str | None:
    """The one line that says which parameters were taken as part of the problem
    without the results telling, and the ``-p`` that settles it."""
    if not found.unsure:
        return None
    one = len(found.unsure) == 1
    names = ", ".join(found.unsure)
    rest = ",".join(p for p in found.keys if p not in found.unsure)
    where = inputs[0].path if len(inputs) == 1 else f"{len(inputs)} inputs"
    settle = f"-p {rest} takes {'it' if one else 'them'} as tuning; " if rest else ""
    what = (
        "is a problem size or a tuning parameter"
        if one
        else ("are problem sizes or tuning parameters")
    )
    return (
        f"{where}: warning: cannot tell from the sweep whether {names} {what}: "
        f"taken as part of the shape {','.join(found.matched)}; "
        f"{settle}--spec SPEC.yaml (the spec kbench ran) tells"
    )


def _constant_in_all(
    inputs: Sequence[Results], found: Sequence[Structure]
) -> tuple[str, ...]:
    """The parameters every input has, each with one value in every file (as the
    file was loaded: a ``--query`` that keeps one tile makes no problem of it)."""
    shared = [p for p in inputs[0].params if all(p in r.params for r in inputs[1:])]
    return tuple(p for p in shared if all(p in s.constant for s in found))


def _tuning(results: Results, found: Structure) -> list[str]:
    """The parameters ``results`` sweeps within its problems."""
    known = {*results.runtime, *found.sizes, *found.unsure, *found.constant}
    return [p for p in results.params if p not in known]


def _differs(inputs: Sequence[Results], column: str) -> bool:
    """A constant column with another value in another input."""
    seen: set[Hashable] = set()
    for results in inputs:
        if not results.frame.empty:
            seen.add(value_key(plain(results.frame[column].iloc[0])))
    return len(seen) > 1


def _ordered(order: Sequence[str], chosen: set[str]) -> tuple[str, ...]:
    return tuple(p for p in dict.fromkeys(order) if p in chosen)
