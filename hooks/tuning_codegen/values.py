"""What "the same value" means, for both tools: one definition.

A tuning table compares values as a kernel engineer reads them: the same number is the
same value whatever its type (``256 == 256.0``, and NaN equals NaN), but a boolean is
never a number (``True != 1``), a string never a number (``'1' != 1``), and null is
only null. Lists and mappings are the same when their items are. Two entries are the
same when they have the same keys with the same values.

The code generator refuses two entries that are the same; kprofile's ``-o`` drops the
second of two; ``--update`` matches entries by their pivots' keys; the in-place editor
checks what it wrote against what it meant. All of them call this module.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

_DEPTH = 64  # values come from bounded YAML; deeper than this is compared by repr


def value_key(value: Any, depth: int = 0) -> Hashable:
    """A hashable key that is equal for two values exactly when they are the same."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("num", "nan") if value != value else ("num", value)
    if value is None:
        return ("null",)
    if isinstance(value, str):
        return ("str", value)
    if depth < _DEPTH and isinstance(value, (list, tuple)):
        return ("list", tuple(value_key(v, depth + 1) for v in value))
    if depth < _DEPTH and isinstance(value, Mapping):
        return ("map", entry_key(value, depth + 1))
    return ("other", type(value).__name__, repr(value))


def entry_key(values: Mapping[Any, Any], depth: int = 0) -> Hashable:
    """A hashable key that is equal for two mappings exactly when they are the same
    (key order does not matter)."""
    return frozenset(
        (value_key(k, depth), value_key(v, depth)) for k, v in values.items()
    )


def same_value(a: Any, b: Any) -> bool:
    return value_key(a) == value_key(b)


def identical(a: Any, b: Any) -> bool:
    """The same value of the same type, written the same: what a writer may put in
    place of the other. 256 and 256.0, or 0.0 and -0.0, are the same value but not
    identical (a snippet shows them differently)."""
    if type(a) is not type(b) or not same_value(a, b):
        return False
    return not isinstance(a, float) or repr(a) == repr(b)


def same_entry(a: Mapping[Any, Any], b: Mapping[Any, Any]) -> bool:
    """The same keys with the same values."""
    return len(a) == len(b) and entry_key(a) == entry_key(b)
