"""Single-table mode: the reference tool's flags (``--manifest``, ``--snippet``, ...)
turned into one ``Table``, with every mistake named after its flag."""

from __future__ import annotations

import os
from collections.abc import Sequence

import click

from tuning_codegen.errors import InputError, quote_path
from tuning_codegen.languages import LANGUAGES
from tuning_codegen.table import Table, default_source_label, setting_problems

SINGLE_FLAGS = ("manifest", "snippet", "target", "begin_marker", "end_marker")
SETTING_FLAGS = {
    "name": "--target",
    "begin_marker": "--begin-marker",
    "end_marker": "--end-marker",
    "source_label": "--source-label",
    "indent": "--indent",
}


class NameValue(click.ParamType):
    """``NAME=PATH`` (``--snippet-variant``), both parts non-empty."""

    name = "name=path"

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> tuple[str, str]:
        if isinstance(value, tuple):
            return value  # already converted
        name, sep, path = str(value).partition("=")
        if not sep or not name or not path:
            raise InputError(
                "--snippet-variant", f"expected NAME=PATH, got {str(value)!r}"
            )
        return name, path


def single_table(
    *,
    manifest: str,
    snippet: str,
    target: str,
    begin_marker: str,
    end_marker: str,
    source_label: str | None,
    variants: Sequence[tuple[str, str]],
    indent: str,
    language: str,
) -> Table:
    parsed: dict[str, str] = {}
    for name, path in variants:
        if name in parsed:
            raise InputError("--snippet-variant", f"variant '{name}' given twice")
        parsed[name] = path
    table = Table(
        name=quote_path(os.path.basename(target)),  # a name to print, any bytes
        manifest=manifest,
        snippet=snippet,
        target=target,
        begin_marker=begin_marker,
        end_marker=end_marker,
        source_label=source_label or default_source_label(manifest),
        snippet_variants=parsed,
        indent=indent,
        language=LANGUAGES[language],
    )
    for setting, problem in setting_problems(table):
        raise InputError(SETTING_FLAGS[setting], problem)
    return table
