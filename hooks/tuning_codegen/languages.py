"""Per-language literals for the provenance comments and for booleans and null, and
the default indent of generated lines."""

from __future__ import annotations

from typing import NamedTuple


class Language(NamedTuple):
    name: str
    comment: str
    true: str
    false: str
    null: str


LANGUAGES: dict[str, Language] = {
    "mojo": Language("mojo", "#", "True", "False", "None"),
    "python": Language("python", "#", "True", "False", "None"),
    "cpp": Language("cpp", "//", "true", "false", "nullptr"),
}
DEFAULT_LANGUAGE = LANGUAGES["mojo"]
DEFAULT_INDENT = " " * 8  # of the generated lines
