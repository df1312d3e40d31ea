"""Writing a kbench spec (``--rerun``): plain string building, so the bytes depend only
on what is written.

    # Contenders to measure again: ...
    name: gemm_blocked
    file: /work/gemm_blocked.mojo
    params:
    - $M: 64
      N: 512
      K: 64
      BM: [16, 32]
      BN: 32

kbench reads ``name``, ``file`` and ``params``, a list of groups, each the cartesian
product of its values (a scalar, or a list of them); a parameter passed at run time is
written with ``$``, any other is passed at compile time. Values are written as ``-o``
writes them (``kprofile.manifest.write``: what YAML 1.1 reads back as that value; a
list's items as flow scalars), so kbench's spec strings name the same values.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from kprofile.core.values import exact
from kprofile.manifest.scalar import render_scalar
from kprofile.manifest.write import Unwritable, comment, key_text, scalar, value_problem


def spec_text(
    *,
    name: str,
    file: str,
    groups: Sequence[Mapping[str, Any]],
    runtime: Collection[str],
    header: Sequence[str] = (),
) -> str:
    """The spec: ``header`` as comment lines, then ``name``, ``file`` and the groups
    (``runtime``: the parameters written with ``$``). ``Unwritable`` for a value no
    spec can hold."""
    lines = [comment(f"# {line}".rstrip()) for line in header]
    lines += [f"name: {scalar(name)}", f"file: {scalar(file)}"]
    lines.append("params:" if groups else "params: []")
    for group in groups:
        for number, (key, value) in enumerate(group.items()):
            text = _key(key, runtime=key in runtime)
            lead = "- " if number == 0 else "  "
            lines.append(f"{lead}{text}: {_value(key, value)}")
    return "\n".join(lines) + "\n"


def _key(key: str, *, runtime: bool) -> str:
    """A key as ``-o`` writes it; a runtime one with its ``$`` (``$M``, as kbench's
    specs have it, where the name is a plain word)."""
    if not runtime:
        return key_text(key)
    text = key_text(key)
    return f"${text}" if not text.startswith('"') else key_text(f"${key}")


def _value(key: str, value: Any) -> str:
    if not isinstance(value, list):
        try:
            return scalar(value)
        except Unwritable as exc:
            raise Unwritable(f"parameter {key!r}: {exc}") from None
    items = []
    for item in value:
        problem = value_problem(item)
        if problem is not None or isinstance(item, (list, tuple)):
            raise Unwritable(f"parameter {key!r}: {problem or 'a list of lists'}")
        items.append(render_scalar(exact(item), flow=True, quoting="explicit"))
    return f"[{', '.join(items)}]"
