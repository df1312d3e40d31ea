"""Rendering manifest entries through snippet templates into one region of text.

Pure functions: text in, text out. Byte-compatible with the reference tool for Mojo.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from hooks.errors import CodegenError, CodegenErrors
from hooks.languages import DEFAULT_LANGUAGE, Language
from hooks.manifest import Entry

PLACEHOLDER = re.compile(r"\[@([A-Za-z_][A-Za-z0-9_]*)\]")
TEMPLATE_KEY = "_template"
DEFAULT_INDENT = " " * 8


def normalize_snippet(text: str) -> str:
    """Snippets are kept with LF line endings and no trailing whitespace."""
    return text.replace("\r\n", "\n").rstrip()


def format_value(value: Any, language: Language = DEFAULT_LANGUAGE) -> str:
    if value is True:
        return language.true
    if value is False:
        return language.false
    if value is None:
        return language.null
    return str(value)


def fill_placeholders(
    snippet: str, values: Mapping[str, Any], language: Language = DEFAULT_LANGUAGE
) -> tuple[str, list[str]]:
    """Replace every ``[@NAME]``; return the text and the sorted names with no value."""
    missing: set[str] = set()

    def substitute(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            missing.add(name)
            return match.group(0)
        return format_value(values[name], language)

    return PLACEHOLDER.sub(substitute, snippet), sorted(missing)


def indent_lines(text: str, indent: str) -> str:
    return "\n".join(indent + line if line else line for line in text.split("\n"))


def select_snippet(
    entry: Entry, snippets: Mapping[str | None, str], manifest_path: str
) -> str:
    """The default snippet (key None), or the variant the entry names in ``_template``."""
    if TEMPLATE_KEY not in entry.values:
        return snippets[None]
    name = entry.values[TEMPLATE_KEY]
    if not isinstance(name, str):
        raise CodegenError(
            manifest_path,
            f"params[{entry.index}]: {TEMPLATE_KEY} must be a string naming a snippet variant, got {name!r}",
            line=entry.line,
        )
    if name not in snippets:
        known = ", ".join(sorted(k for k in snippets if k is not None)) or "none given"
        raise CodegenError(
            manifest_path,
            f"params[{entry.index}]: unknown snippet variant '{name}' in {TEMPLATE_KEY} (variants: {known})",
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
) -> str:
    body, missing = fill_placeholders(snippet, entry.values, language)
    if missing:
        raise CodegenError(
            manifest_path,
            f"params[{entry.index}]: Missing snippet parameters: {', '.join(missing)}",
            line=entry.line,
        )
    return (
        f"{indent}{language.comment} Automatically generated from [{source_label}]\n"
        f"{indent}{language.comment} index: [{entry.index}]\n"
        f"{indent_lines(body, indent)},"
    )


def render_region(
    entries: Sequence[Entry],
    snippets: Mapping[str | None, str],
    *,
    source_label: str,
    manifest_path: str,
    indent: str = DEFAULT_INDENT,
    language: Language = DEFAULT_LANGUAGE,
) -> str:
    """All entries rendered and joined by newlines (no final newline).

    Every failing entry is reported, not just the first.
    """
    parts: list[str] = []
    errors: list[CodegenError] = []
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
                )
            )
        except CodegenError as exc:
            errors.append(exc)
    if errors:
        raise CodegenErrors(errors)
    return "\n".join(parts)
