"""The files a table's formatter reads besides the target: its configuration.

With ``format:``, a region is what the formatter makes of it, so the formatter's
configuration is an input of the table as much as its manifest: a commit that changes
only ``.clang-format`` or ``ruff.toml`` changes the regions, and ``--since`` and the
hook must look at them again. The files are the ones each formatter itself looks for,
in the target's folder and every folder above it up to the repository's root (a
file that does not exist yet counts: adding one is a change):

- ``clang-format`` (``clang-format-18`` and the like): ``.clang-format`` and
  ``_clang-format``, and ``.clang-format-ignore`` (the files it leaves alone);
- ``ruff``: ``ruff.toml``, ``.ruff.toml`` and ``pyproject.toml`` (its ``[tool.ruff]``);
- ``mojo format`` (``mblack``, a fork of black), ``mblack`` and ``black``:
  ``pyproject.toml`` (its ``[tool.black]``, in the nearest folder holding a
  ``pyproject.toml``, ``.git`` or ``.hg``);

and, for any formatter, each file of the repository its command names (``--config
tools/ruff.toml``, ``--style=file:tools/clang-format.yaml``): the way to name the
configuration of a formatter not listed here. Files outside the repository (a
user's ``~/.config``) are no commit's business; what a configuration pulls in itself
(ruff's ``extend``, clang-format's ``BasedOnStyle: InheritParentConfig`` beyond the
listed folders) is not followed: name such a file in the command.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from tuning_codegen.filenames import os_name
from tuning_codegen.paths import parents
from tuning_codegen.table import FILE_PLACEHOLDER, PATH_PLACEHOLDER

CLANG_FORMAT = (".clang-format", "_clang-format", ".clang-format-ignore")
RUFF = ("ruff.toml", ".ruff.toml", "pyproject.toml")
BLACK = ("pyproject.toml",)
CONFIG_NAMES = {"ruff": RUFF, "mblack": BLACK, "black": BLACK}


def config_names(argv: Sequence[str]) -> tuple[str, ...]:
    """The names of the configuration files the formatter ``argv`` looks for in a
    file's folder and the folders above it (none for a formatter it does not know)."""
    program = argv[0]
    if program.startswith("clang-format"):
        return CLANG_FORMAT
    if program == "mojo":
        return BLACK if "format" in argv[1:2] else ()
    return CONFIG_NAMES.get(program, ())


def format_inputs(argv: Sequence[str], folder: str, root: str) -> list[str]:
    """The absolute paths of every file the formatter ``argv`` reads besides the
    target, for a target in ``folder`` (absolute, inside ``root``)."""
    names = config_names(argv)
    found = []
    for up in parents(folder) if names else []:
        found += [os.path.join(up, name) for name in names]
        if up == root or not up.startswith(root.rstrip(os.sep) + os.sep):
            break
    return found + named_files(argv, root)


def named_files(argv: Sequence[str], root: str) -> list[str]:
    """The files of the repository the command names in its arguments, as given
    (``PATH``), after an ``=`` (``--config=PATH``) or after ``file:``
    (``--style=file:PATH``); relative ones from ``root``, where it runs."""
    found = []
    for arg in argv[1:]:
        if FILE_PLACEHOLDER in arg or PATH_PLACEHOLDER in arg:
            continue
        value = arg.rpartition("=")[2].removeprefix("file:")
        if not value or value.startswith("-"):
            continue
        try:
            path = os.path.normpath(os.path.join(root, os_name(value)))
        except UnicodeEncodeError:  # a lone surrogate: no file's name
            continue
        inside = path.startswith(root.rstrip(os.sep) + os.sep)
        if inside and os.path.isfile(path):
            found.append(path)
    return found
