"""``--format github``: GitHub Actions workflow commands, so a pull request shows each
stale region and each error on its line, as ruff and mypy do:

    ::error file=kernels/configs.mojo,line=42,title=stale tuning table::...

Text in, text out. The file is quoted as every printed path is (``quote_path``), and the
message and the properties are escaped as the workflow-command syntax requires (``%``,
CR and LF everywhere; ``:`` and ``,`` in properties too), so nothing from a file name or
an error can end the command early or start another.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

from tuning_codegen.errors import InputError, InputWarning, quote_path
from tuning_codegen.generate import TargetUpdate
from tuning_codegen.hunknames import EntryNames
from tuning_codegen.printable import OLD_COMMAND
from tuning_codegen.splice import Lines, Markers, find_region
from tuning_codegen.table import Table

STALE_TITLE = "stale tuning table"
ERROR_TITLE = "tuning-codegen error"
WARNING_TITLE = "tuning-codegen warning"


def escape_data(text: str) -> str:
    """A command's message: ``%``, CR and LF escaped as the syntax requires, and no
    ``##[`` (``escape_commands``) left in it."""
    escaped = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return escaped.replace(OLD_COMMAND, "##\\[")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(
    file: str | None, line: int | None, title: str, message: str, kind: str = "error"
) -> str:
    """One ``::error`` (or ``::warning``) command; ``file`` None: about no file (the
    repository, a folder), shown at the top of the run's annotations."""
    properties = [] if file is None else [f"file={escape_property(quote_path(file))}"]
    if line is not None:
        properties.append(f"line={line}")
    properties.append(f"title={escape_property(title)}")
    return f"::{kind} {','.join(properties)}::{escape_data(message)}"


def workspace_path(path: str, cwd: str | None = None) -> str:
    """``path`` relative to the working folder (the checkout root in CI) when inside
    it, with forward slashes, as GitHub matches annotations to files."""
    base = os.path.abspath(cwd or os.getcwd())
    rel = os.path.relpath(os.path.abspath(path), base)
    shown = path if rel == ".." or rel.startswith(".." + os.sep) else rel
    return shown.replace(os.sep, "/")


def stale_annotations(
    updates: Sequence[TargetUpdate], shown: Callable[[str], str] = workspace_path
) -> Iterator[str]:
    """One command per stale region, on the first line of the region that differs
    in the file as it is, naming the entry that line falls in."""
    for update in updates:
        names = EntryNames(update)
        for table in update.stale_tables:
            line, entry = first_change(update, table, names)
            where = f" (first in {entry})" if entry else ""
            message = (
                f"the region of table '{table.name}' is stale{where}: its manifest or "
                f"snippet changed; run tuning-codegen to regenerate it"
            )
            yield command(shown(update.path), line, STALE_TITLE, message)


class FirstChange(NamedTuple):
    line: int  # of the file as it is, numbered as git numbers it
    entry: str  # the entry it falls in, as a hunk header names it ("": none)


def first_change(
    update: TargetUpdate, table: Table, names: EntryNames | None = None
) -> FirstChange:
    """Where ``table``'s region in ``update.old`` first differs from its region in
    ``update.new``: the line (LFs counted), and the entry of the new text there."""
    old, new = Lines(update.old), Lines(update.new)
    markers = Markers(
        table.name, table.begin_marker, table.end_marker, table.language.comment
    )
    before = find_region(old, markers, update.path)
    after = find_region(new, markers, update.path)
    was = old.lines[before.begin + 1 : before.end]
    now = new.lines[after.begin + 1 : after.end]
    offset = next(
        (at for at, (a, b) in enumerate(zip(was, now)) if a != b),
        min(len(was), len(now)),
    )
    last = max(after.begin + 1, after.end - 1)  # lines only taken out: the one above
    entry = (names or EntryNames(update))(
        new.number(min(after.begin + 1 + offset, last)) - 1
    )
    return FirstChange(old.number(before.begin + 1 + offset), entry)


def error_annotations(
    errors: Sequence[InputError], shown: Callable[[str], str] = workspace_path
) -> Iterator[str]:
    for error in errors:
        path = error.location.path
        if os.path.isdir(path):  # the repository, a folder: no file to point at
            folder = shown(path)
            message = error.message if folder == "." else f"{folder}: {error.message}"
            yield command(None, None, ERROR_TITLE, message)
            continue
        yield command(shown(path), error.location.line, ERROR_TITLE, error.message)


def warning_annotation(
    warning: InputWarning, shown: Callable[[str], str] = workspace_path
) -> str:
    """A ``::warning`` command on the warning's line (a likely typo's key)."""
    where = warning.location
    return command(shown(where.path), where.line, WARNING_TITLE, warning.message,
                   kind="warning")  # fmt: skip
