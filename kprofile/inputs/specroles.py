"""What a kbench spec's groups say of its parameters: which are runtime (``$M``),
which are problem sizes and which are tuned.

In a spec a group is one cartesian product: a key with a list of values is swept in
it; a key with one value is fixed in it. kbench's Mojo GEMM specs give a group per
problem (``$M: [...]``, ``N: 4096``, ``K: 4096``, tile lists), so a compile-time key
fixed in every group that names it, with another value in another group, is a
problem size; one swept in some group is a tuning parameter; one with a single value
in the whole spec is the same problem everywhere (constant).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, NamedTuple

from kprofile.errors import KprofileError
from kprofile.inputs.results import Structure
from kprofile.inputs.specgroup import SKIPPED_KEYS
from tuning_codegen.values import value_key


class SpecRoles(NamedTuple):
    runtime: tuple[str, ...]  # written with $, in order of appearance
    structure: Structure  # sizes, nothing unsure, the keys with one value


def read_roles(path: str) -> SpecRoles:
    """The roles of the spec YAML at ``path`` (``--spec``), read as a bounded YAML."""
    from tuning_codegen.manifest import load_manifest  # start-up: --spec only

    return spec_roles(load_manifest(path).document, path)


def spec_roles(document: Mapping[str, Any], path: str) -> SpecRoles:
    """The roles of a spec's parameters, read from its groups."""
    params = document.get("params")
    if isinstance(params, Mapping):  # a single group (kbench reads it too)
        params = [params]
    if not isinstance(params, list) or not all(isinstance(g, Mapping) for g in params):
        raise KprofileError(path, "'params' must be a list of mappings")
    runtime: dict[str, None] = {}
    values: dict[str, set[Hashable]] = {}
    swept: set[str] = set()
    for group in params:
        for key, value in group.items():
            raw = str(key)
            if raw in SKIPPED_KEYS:
                continue
            name = raw.removeprefix("$")
            if raw.startswith("$"):
                runtime[name] = None
            choices = value if isinstance(value, list) else [value]
            keys = {value_key(v) for v in choices}
            if len(keys) > 1:
                swept.add(name)
            values.setdefault(name, set()).update(keys)
    compile_time = [n for n in values if n not in runtime]
    sizes = tuple(n for n in compile_time if n not in swept and len(values[n]) > 1)
    constant = tuple(n for n in values if len(values[n]) == 1)
    return SpecRoles(tuple(runtime), Structure(sizes, (), constant))
