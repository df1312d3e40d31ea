"""Rendering manifest entries through snippet templates into one region of text.

Pure functions: text in, text out. Byte-compatible with the reference tool for Mojo:
the placeholders are filled first, then the text is stripped of trailing whitespace
and split into lines as ``str.splitlines`` splits it (a form feed, a vertical tab,
NEL, U+2028 ... end a line too), each non-empty line indented.
A value written into a placeholder must be a scalar (string, number, boolean, null),
one line, and free of every marker of the target; a rendered entry must not contain a
marker either, so that no run can break the region it writes.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from tuning_codegen.errors import (
    LINE_BREAKS,
    UNSAFE_IN_SOURCE,
    InputError,
    InputErrors,
    InputWarning,
    Location,
)
from tuning_codegen.languages import DEFAULT_INDENT, DEFAULT_LANGUAGE, Language
from tuning_codegen.manifest import Entry
from tuning_codegen.markerset import marker_set
from tuning_codegen.printable import describe_unsafe
from tuning_codegen.snippet import PLACEHOLDER, normalize_snippet, split_placeholders
from tuning_codegen.typos import listed, missing_hint, typo_message, typos

__all__ = [
    "DEFAULT_INDENT",
    "PLACEHOLDER",
    "TEMPLATE_KEY",
    "fill_placeholders",
    "format_value",
    "normalize_snippet",
    "render_entry",
    "render_region",
    "select_snippet",
    "typo_warnings",
    "value_problem",
]

TEMPLATE_KEY = "_template"
SCALARS = (str, int, float, bool, type(None))
VALUE_TYPES = "a string, number, boolean or null"


def format_value(value: Any, language: Language = DEFAULT_LANGUAGE) -> str:
    if value is True:
        return language.true
    if value is False:
        return language.false
    if value is None:
        return language.null
    return str(value)


def describe_type(value: object) -> str:
    names = {list: "a list", tuple: "a list", dict: "a mapping", set: "a set"}
    names.update({frozenset: "a set", bytes: "binary data"})
    for kind, name in names.items():
        if isinstance(value, kind):
            return name
    return f"a {type(value).__name__}"  # e.g. a date, a datetime


_UNSAFE = re.compile(
    f"[{re.escape(LINE_BREAKS + ''.join(sorted(UNSAFE_IN_SOURCE)))}\ud800-\udfff]"
)


def value_problem(
    name: str, value: Any, text: str, forbidden: Mapping[str, str]
) -> str | None:
    """What is wrong with ``value`` (rendered as ``text``) in placeholder ``name``."""
    if not isinstance(value, SCALARS):
        kind = describe_type(value)
        return f"value of {name} is {kind}; a placeholder value must be {VALUE_TYPES}"
    unsafe = _UNSAFE.search(text) if isinstance(value, str) else None
    if unsafe is not None:
        char = unsafe.group()
        if char in LINE_BREAKS:
            return (
                f"value of {name} contains a line break (U+{ord(char):04X}); "
                "a value must fit on one line"
            )
        if "\ud800" <= char <= "\udfff":  # "\ud800" in YAML: UTF-8 cannot encode it
            return (
                f"value of {name} contains a lone surrogate (U+{ord(char):04X}), "
                "which no UTF-8 file can hold"
            )
        return f"value of {name} contains {describe_unsafe(char)}"
    found = marker_set(forbidden).first_in(text)
    return None if found is None else f"value of {name} contains {forbidden[found[0]]}"


@functools.lru_cache(maxsize=4096)
def _known_value(
    kind: str, value: Any, literals: tuple[str, str, str]
) -> tuple[str, bool]:
    language = Language("", "", *literals)
    text = format_value(value, language)
    return text, value_problem("", value, text, {}) is None


def _rendered(value: Any, language: Language) -> tuple[str, bool]:
    """A value's text, and whether it is fit for any placeholder (no forbidden
    markers considered); the values that recur (ints, strings) are worked out once."""
    kind = type(value)
    if kind is int or kind is str or kind is bool or value is None:
        literals = (language.true, language.false, language.null)
        return _known_value(kind.__name__, value, literals)  # 1, True: two keys
    text = format_value(value, language)
    return text, value_problem("", value, text, {}) is None


def _fill(
    snippet: str,
    values: Mapping[str, Any],
    language: Language,
    forbidden: Mapping[str, str],
) -> tuple[str, list[str], list[str]]:
    """The filled text, the sorted missing names, and what is wrong with values."""
    literals, names = split_placeholders(snippet)
    out = [literals[0]]
    missing: set[str] = set()
    problems: dict[str, str] = {}
    for name, literal in zip(names, literals[1:]):
        if name in values:
            value = values[name]
            text, fit = _rendered(value, language)
            if not fit or forbidden:
                problem = value_problem(name, value, text, forbidden)
                if problem is not None:
                    problems.setdefault(name, problem)
            out.append(text)
        else:
            missing.add(name)
            out.append(f"[@{name}]")
        out.append(literal)
    return "".join(out), sorted(missing), list(problems.values())


def fill_placeholders(
    snippet: str, values: Mapping[str, Any], language: Language = DEFAULT_LANGUAGE
) -> tuple[str, list[str]]:
    """Replace every ``[@NAME]``; return the text and the sorted names with no value."""
    text, missing, _ = _fill(snippet, values, language, {})
    return text, missing


def indent_lines(text: str, indent: str) -> str:
    """The lines of ``text`` as the reference makes them: every line break that
    ``str.splitlines`` knows ends a line, non-empty lines indented, joined by LF."""
    return "\n".join(indent + line if line else line for line in text.splitlines())


def select_snippet(
    entry: Entry, snippets: Mapping[str | None, str], manifest_path: str
) -> str:
    """The default snippet (key None), or the variant named by ``_template`` (a null
    ``_template`` means the default, as in the reference)."""
    name = entry.values.get(TEMPLATE_KEY)
    if name is None:
        return snippets[None]
    if not isinstance(name, str):
        raise InputError(
            manifest_path,
            f"params[{entry.position}]: {TEMPLATE_KEY} must be a string naming a "
            f"snippet variant, got {name!r}",
            line=entry.line,
        )
    if name not in snippets:
        known = ", ".join(sorted(k for k in snippets if k is not None)) or "none given"
        raise InputError(
            manifest_path,
            f"params[{entry.position}]: unknown snippet variant '{name}' in "
            f"{TEMPLATE_KEY} (variants: {known})",
            line=entry.line,
        )
    return snippets[name]


def render_entry(
    entry: Entry,
    snippet: str,
    *,
    source_label: str,
    manifest_path: str,
    indent: str = DEFAULT_INDENT,
    language: Language = DEFAULT_LANGUAGE,
    forbidden: Mapping[str, str] | None = None,
) -> str:
    """One entry; ``forbidden`` maps each marker of the target to what it is."""
    markers = marker_set(forbidden)
    body, missing, problems = _fill(snippet, entry.values, language, {})
    if missing:
        hint = missing_hint(typos(entry, snippet), missing)
        problems.insert(0, f"Missing snippet parameters: {listed(missing)}{hint}")
    if problems:
        raise _entry_error(entry, manifest_path, "; ".join(problems))
    text = (
        f"{indent}{language.comment} Automatically generated from [{source_label}]\n"
        f"{indent}{language.comment} index: [{entry.position}]\n"
        f"{indent_lines(body.rstrip(), indent)},"
    )
    found = markers.first_in(text)
    if found is not None:  # name the value that brought it, if one did
        _, _, culprits = _fill(snippet, entry.values, language, markers)
        what = markers[found[0]]
        why = culprits[0] if culprits else f"the rendered entry contains {what}"
        raise _entry_error(entry, manifest_path, why)
    return text


def _entry_error(entry: Entry, manifest_path: str, message: str) -> InputError:
    return InputError(
        manifest_path, f"params[{entry.position}]: {message}", line=entry.line
    )


def render_region(
    entries: Sequence[Entry],
    snippets: Mapping[str | None, str],
    *,
    source_label: str,
    manifest_path: str,
    indent: str = DEFAULT_INDENT,
    language: Language = DEFAULT_LANGUAGE,
    forbidden: Mapping[str, str] | None = None,
) -> str:
    """All entries rendered and joined by newlines (no final newline).

    Every failing entry is reported, not just the first.
    """
    forbidden = marker_set(forbidden)
    parts: list[str] = []
    errors: list[InputError] = []
    for entry in entries:
        try:
            snippet = select_snippet(entry, snippets, manifest_path)
            parts.append(
                render_entry(
                    entry,
                    snippet,
                    source_label=source_label,
                    manifest_path=manifest_path,
                    indent=indent,
                    language=language,
                    forbidden=forbidden,
                )
            )
        except InputError as exc:
            errors.append(exc)
    if errors:
        raise InputErrors(errors)
    return "\n".join(parts)


def typo_warnings(
    entries: Sequence[Entry], snippets: Mapping[str | None, str], manifest_path: str
) -> list[InputWarning]:
    """A warning at each key that looks like a typo of a placeholder (``typos``)."""
    found = []
    for entry in entries:
        for key, name, line in typos(entry, select_snippet(entry, snippets, "")):
            found.append(
                InputWarning(Location(manifest_path, line), typo_message(key, name))
            )
    return found
