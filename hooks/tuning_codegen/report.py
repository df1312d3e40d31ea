"""The code generator's output formats (``--format``), one reporter object each.

The CLI makes one and passes it down; the pipeline tells it what happened (targets
written, targets checked, a table listing, errors) and returns the exit code, which the
reporter hears last. Every path printed goes through ``quote_path``, so no file name
can start a line of output (a workflow command in a CI log, say); a JSON document
holds each path as text (``filenames.text_name``), whatever the locale.

- ``text``: ``regenerated PATH (tables: ...)``, unified diffs, the listing; errors are
  the ``path:line: error:`` lines the error policy prints on stderr.
- ``github``: the same, plus a GitHub Actions ``::error`` command per stale region
  (before the diffs) and per error, and a ``::warning`` per warning, on stdout.
- ``markdown``: the same as a Markdown document (``mdreport``), for a pull request
  comment or a job summary.
- ``json``: one document on stdout at the end, for a CI tool or an editor::

    {"format": "tuning-codegen-report", "version": 1, "exit_code": 1,
     "tables": [{"name", "target", "status", "line"?, "entry"?, "error"?}],
     "files": [{"path", "status", "tables", "diff"?}],
     "errors": [{"path", "line", "message"}],
     "warnings": [{"path", "line", "message"}]}

  A table's ``status`` is ``fresh``, ``stale`` (``--check``), ``regenerated`` or
  ``error`` (``--list``); ``line`` is the first line of its region that differs, in
  the file as it was, and ``entry`` the entry it falls in, as the diff's hunk header
  names it (``# index: [3] M=256/N=4096/K=4096``; "" for none). Paths are strings
  as the text format shows them, unquoted (JSON escapes what it must). A usage
  error (an unknown option) prints no document.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from tuning_codegen.annotate import (
    error_annotations,
    first_change,
    stale_annotations,
    warning_annotation,
)
from tuning_codegen.diff import unified_diff
from tuning_codegen.errors import InputError, InputWarning, quote_path
from tuning_codegen.filenames import text_name
from tuning_codegen.generate import TargetUpdate
from tuning_codegen.hunknames import EntryNames
from tuning_codegen.printable import escape_commands, escape_json

PROG = "tuning-codegen"
Label = Callable[[str], tuple[str, str]]  # a target path -> its diff's two labels
Shown = Callable[[str], str]  # a path -> how output shows it (relative to the cwd)


@dataclass(frozen=True)
class Row:
    """One table of ``--list``."""

    name: str
    target: str  # as shown
    status: str  # fresh, stale, or ``error: <the error line>``
    error: InputError | None = None


@dataclass(frozen=True)
class Diffs:
    """How stale targets are shown: diff labels, git's ``diff --git`` header or not."""

    label: Label
    git_style: bool = False


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def diff_text(update: TargetUpdate, diffs: Diffs) -> str:
    """The unified diff of one stale target, labels quoted as git quotes them, each
    hunk naming the entry it changes first (``hunknames``)."""
    fromfile, tofile = (quote_path(label) for label in diffs.label(update.path))
    header = f"diff --git {fromfile} {tofile}\n" if diffs.git_style else ""
    named = EntryNames(update)
    return header + unified_diff(update.old, update.new, fromfile, tofile, named)


class TextReporter:
    """``--format text``: what tuning-codegen prints by default; ``quiet``: only the
    line that says regions are stale (errors and warnings go to stderr anyway)."""

    def __init__(self, out: TextIO | None = None, *, quiet: bool = False) -> None:
        self.out = out or sys.stdout
        self.quiet = quiet

    def say(self, text: str) -> None:
        """Write ``text`` with nothing in it a CI log would obey as a workflow
        command (a diff's lines come from the target, names from the registry)."""
        self.out.write(escape_commands(text))

    def written(self, updates: Sequence[TargetUpdate], shown: Shown) -> None:
        if self.quiet:
            return
        for update in updates:
            if update.stale:
                names = ", ".join(t.name for t in update.stale_tables)
                path = quote_path(shown(update.path))
                self.say(f"regenerated {path} (tables: {names})\n")
        self.out.flush()

    def checked(
        self, updates: Sequence[TargetUpdate], diffs: Diffs, shown: Shown
    ) -> None:
        stale = [u for u in updates if u.stale]
        if not stale:
            return
        self.stale_regions(stale)
        for update in stale if not self.quiet else ():
            self.say(diff_text(update, diffs))
        regions = sum(len(u.stale_tables) for u in stale)
        self.say(
            f"{plural(regions, 'stale region')} in {plural(len(stale), 'file')}; "
            f"run {PROG} to regenerate\n"
        )
        self.out.flush()

    def stale_regions(self, stale: Sequence[TargetUpdate]) -> None:
        """Before the diffs: nothing in plain text."""

    def restaged(
        self,
        written: Sequence[TargetUpdate],
        unstaged: Sequence[TargetUpdate],
        shown: Shown,
    ) -> None:
        """A hook run that found the commit stale: what it rewrote in the working
        tree, what was regenerated there already, and what to do."""
        stale = [*written, *unstaged]
        if not stale:
            return
        self.stale_regions(stale)
        self.written(written, shown)
        if not self.quiet:
            for update in unstaged:
                names = ", ".join(t.name for t in update.stale_tables)
                path = quote_path(shown(update.path))
                self.say(
                    f"{path}: regenerated in the working tree but not staged "
                    f"(tables: {names})\n"
                )
        regions = sum(len(u.stale_tables) for u in stale)
        paths = " ".join(quote_path(shown(u.path)) for u in stale)
        self.say(
            f"{plural(regions, 'stale region')} in the commit; git add {paths} and "
            "commit again\n"
        )
        self.out.flush()

    def listed(self, rows: Sequence[Row]) -> None:
        if not rows:
            self.say("no tables selected\n")
            return
        shown = [(r.name, quote_path(r.target), r.status) for r in rows]
        width = [max(len(r[i]) for r in shown) for i in range(2)]
        for name, target, status in shown:
            self.say(f"{name:<{width[0]}}  {target:<{width[1]}}  {status}\n")
        self.out.flush()

    def failed(self, errors: Sequence[InputError]) -> None:
        """Errors: the error policy prints them on stderr."""

    def warned(self, warning: InputWarning) -> None:
        """A warning: printed on stderr already."""

    def finish(self, code: int) -> None:
        """The exit code: nothing more to print."""


class GithubReporter(TextReporter):
    """``--format github``: text, plus workflow commands GitHub shows on the lines."""

    def stale_regions(self, stale: Sequence[TargetUpdate]) -> None:
        self.out.write("".join(line + "\n" for line in stale_annotations(stale)))

    def failed(self, errors: Sequence[InputError]) -> None:
        self.out.write("".join(line + "\n" for line in error_annotations(errors)))
        self.out.flush()

    def warned(self, warning: InputWarning) -> None:
        self.out.write(warning_annotation(warning) + "\n")


class JsonReporter:
    """``--format json``: one document, printed when the exit code is known
    (``quiet`` changes nothing: a document is for a program)."""

    def __init__(self, out: TextIO | None = None, *, quiet: bool = False) -> None:
        self.out = out or sys.stdout
        self.tables: list[dict[str, Any]] = []
        self.files: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        self.warnings: list[dict[str, Any]] = []

    def written(self, updates: Sequence[TargetUpdate], shown: Shown) -> None:
        self._updates(updates, shown, "regenerated", None)

    def checked(
        self, updates: Sequence[TargetUpdate], diffs: Diffs, shown: Shown
    ) -> None:
        self._updates(updates, shown, "stale", diffs)

    def _updates(
        self,
        updates: Sequence[TargetUpdate],
        shown: Shown,
        changed: str,
        diffs: Diffs | None,
    ) -> None:
        for update in updates:
            names = EntryNames(update) if update.stale else None
            for table in update.tables:
                row: dict[str, Any] = {"name": table.name}
                row["target"] = text_name(shown(table.target))
                if table in update.stale_tables:
                    row["status"] = changed
                    row["line"], row["entry"] = first_change(update, table, names)
                else:
                    row["status"] = "fresh"
                self.tables.append(row)
            if update.stale:
                record: dict[str, Any] = {
                    "path": text_name(shown(update.path)),
                    "status": changed,
                    "tables": [t.name for t in update.stale_tables],
                }
                if diffs is not None:
                    record["diff"] = diff_text(update, diffs)
                self.files.append(record)

    def restaged(
        self,
        written: Sequence[TargetUpdate],
        unstaged: Sequence[TargetUpdate],
        shown: Shown,
    ) -> None:
        self._updates(written, shown, "regenerated", None)
        self._updates(unstaged, shown, "not staged", None)

    def listed(self, rows: Sequence[Row]) -> None:
        for row in rows:
            record: dict[str, Any] = {"name": row.name, "target": text_name(row.target)}
            record["status"] = "error" if row.error is not None else row.status
            if row.error is not None:
                record["error"] = _error(row.error)
            self.tables.append(record)

    def failed(self, errors: Sequence[InputError]) -> None:
        self.errors.extend(_error(e) for e in errors)

    def warned(self, warning: InputWarning) -> None:
        where = warning.location
        path = text_name(where.path)
        self.warnings.append(
            {"path": path, "line": where.line, "message": warning.message}
        )

    def finish(self, code: int) -> None:
        document = {
            "format": "tuning-codegen-report",
            "version": 1,
            "exit_code": code,
            "tables": self.tables,
            "files": self.files,
            "errors": self.errors,
            "warnings": self.warnings,
        }
        self.out.write(escape_json(json.dumps(document, indent=2)) + "\n")
        self.out.flush()


def _error(error: InputError) -> dict[str, Any]:
    return {
        "path": text_name(error.location.path),
        "line": error.location.line,
        "message": error.message,
    }


Reporter = TextReporter | JsonReporter
REPORTERS: dict[str, Callable[..., Reporter]] = {
    "text": TextReporter,
    "github": GithubReporter,
    "json": JsonReporter,
}  # and markdown (``mdreport``), which builds on text
