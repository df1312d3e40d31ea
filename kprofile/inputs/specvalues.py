"""A spec token's value: the literal it spells or its text (``parse_value``), one
token (``parse_token``) or many at once (``parse_tokens``)."""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from typing import Any

_SCALARS = (bool, int, float, str)
# Literals whose value int() or float() gives exactly as ast.literal_eval does.
_INT = re.compile(r"-?(?:[1-9][0-9]{0,17}|0)")
_FLOAT = re.compile(r"-?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+(?=[eE]))(?:[eE][-+]?[0-9]+)?")
_WORDS = {"True": True, "False": False}
# Values one per line: all _INT, or all names (ASCII identifiers joined by dots).
_INTS = re.compile(rf"{_INT.pattern}(?:\n{_INT.pattern})*")
_NAME = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
_NAMES = re.compile(rf"{_NAME}(?:\n{_NAME})*")


def parse_value(text: str) -> Any:
    """A spec value as the literal it spells (``128``, ``True``, ``0.5``, ``'x'``) or
    the text."""
    if _INT.fullmatch(text):
        return int(text)
    if _FLOAT.fullmatch(text) and len(text) < 100:
        return float(text)
    if text in _WORDS:
        return _WORDS[text]
    if all(map(str.isidentifier, text.split("."))):  # a name, a.b: never a literal
        return text
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text
    return value if isinstance(value, _SCALARS) else text


def parse_token(token: str) -> tuple[str, Any]:
    """``'$M=256'`` -> ``('M', 256)``; a token without ``=`` is a flag set to True."""
    name, sep, value = token.partition("=")
    name = name.strip().removeprefix("$")
    return (name, parse_value(value.strip())) if sep else (name, True)


def parse_tokens(tokens: Sequence[str]) -> list[tuple[str, Any]]:
    """``parse_token`` of each token, the values classified in bulk where all are
    plain decimal integers or all names (one regular expression over them all)."""
    parts = [t.partition("=") for t in tokens]
    names = [n.strip().removeprefix("$") for n, _, _ in parts]
    values = [v.strip() for _, _, v in parts]
    if all(sep for _, sep, _ in parts):
        return list(zip(names, _parse_values(values)))
    parsed = [parse_value(v) if sep else True for (_, sep, _), v in zip(parts, values)]
    return list(zip(names, parsed))


def _parse_values(values: list[str]) -> list[Any]:
    joined = "\n".join(values)
    if values and joined.count("\n") == len(values) - 1:  # no value spans lines
        if _INTS.fullmatch(joined):
            return list(map(int, values))
        if _NAMES.fullmatch(joined) and not _WORDS.keys() & set(values):
            return values
    return list(map(parse_value, values))
