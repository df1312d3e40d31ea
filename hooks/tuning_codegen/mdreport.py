"""``--format markdown``: the report as Markdown, for a pull request comment or a CI
job's summary (``>> "$GITHUB_STEP_SUMMARY"``).

Stale regions are a heading, one bullet per region naming its file, table, first
changed line and the entry it falls in (``# index: [3] M=256/N=4096/K=4096``), and
each file's diff in a fenced ``diff`` block whose hunk headers name the entries, as
text's do. Errors and warnings are bullets too (they go to stderr as well, under the
error policy). Nothing is printed when everything is fresh, as in text.

Everything from an input is shown as code: a span or a fence with more backticks
than the longest run in it, so no name or line of a target can become Markdown (a
link, an image, HTML) or close its block early; table cells escape ``|``. As every
format, nothing in it can be obeyed as a workflow command in a CI log.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tuning_codegen.annotate import first_change
from tuning_codegen.errors import InputError, InputWarning
from tuning_codegen.filenames import text_name
from tuning_codegen.generate import TargetUpdate
from tuning_codegen.hunknames import EntryNames
from tuning_codegen.printable import one_line
from tuning_codegen.report import (
    PROG,
    Diffs,
    Row,
    Shown,
    TextReporter,
    diff_text,
    plural,
)

_TICKS = re.compile("`+")


def code(text: str) -> str:
    """``text`` (one line) as a Markdown code span that shows it as it is."""
    text = one_line(text)
    ticks = "`" * (max(map(len, _TICKS.findall(text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def fenced(text: str, info: str) -> str:
    """``text`` in a fenced block longer than any run of backticks in it."""
    fence = "`" * max(3, max(map(len, _TICKS.findall(text)), default=0) + 1)
    body = text if text.endswith("\n") else text + "\n"
    return f"{fence}{info}\n{body}{fence}\n"


def _where(path: str, line: int | None) -> str:
    return code(text_name(path) + (f":{line}" if line else ""))


class MarkdownReporter(TextReporter):
    """What text reports, as a Markdown document (``quiet``: the bullets, no diffs)."""

    def written(self, updates: Sequence[TargetUpdate], shown: Shown) -> None:
        stale = [u for u in updates if u.stale]
        if stale:
            regions = sum(len(u.stale_tables) for u in stale)
            self.say(f"### {PROG}: regenerated {plural(regions, 'region')}\n\n")
            self.say(self._bullets(stale, shown, "") + "\n")
        self.out.flush()

    def checked(
        self, updates: Sequence[TargetUpdate], diffs: Diffs, shown: Shown
    ) -> None:
        stale = [u for u in updates if u.stale]
        if not stale:
            return
        regions = sum(len(u.stale_tables) for u in stale)
        files = plural(len(stale), "file")
        self.say(f"### {PROG}: {plural(regions, 'stale region')} in {files}\n\n")
        self.say(self._bullets(stale, shown, "stale") + "\n")
        for update in stale if not self.quiet else ():
            self.say(f"{code(text_name(shown(update.path)))}\n\n")
            self.say(fenced(diff_text(update, diffs), "diff") + "\n")
        self.say(f"Run `{PROG}` to regenerate.\n")
        self.out.flush()

    def restaged(
        self,
        written: Sequence[TargetUpdate],
        unstaged: Sequence[TargetUpdate],
        shown: Shown,
    ) -> None:
        stale = [*written, *unstaged]
        if not stale:
            return
        regions = sum(len(u.stale_tables) for u in stale)
        self.say(f"### {PROG}: {plural(regions, 'stale region')} in the commit\n\n")
        self.say(self._bullets(written, shown, "regenerated"))
        self.say(self._bullets(unstaged, shown, "regenerated, not staged") + "\n")
        paths = " ".join(code(text_name(shown(u.path))) for u in stale)
        self.say(f"`git add` {paths} and commit again.\n")
        self.out.flush()

    def _bullets(self, stale: Sequence[TargetUpdate], shown: Shown, what: str) -> str:
        """A bullet per stale region: where it first changes, and in which entry."""
        out = []
        for update in stale:
            names = EntryNames(update)
            for table in update.stale_tables:
                line, entry = first_change(update, table, names)
                where = _where(shown(update.path), line)
                said = f"{what}: " if what else ""
                entry_said = f", in {code(entry)}" if entry else ""
                out.append(f"- {said}{where}, table {code(table.name)}{entry_said}\n")
        return "".join(out)

    def listed(self, rows: Sequence[Row]) -> None:
        if not rows:
            self.say("no tables selected\n")
            return
        self.say("| table | target | status |\n|---|---|---|\n")
        for row in rows:
            cells = (code(row.name), code(text_name(row.target)), code(row.status))
            self.say("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |\n")
        self.out.flush()

    def failed(self, errors: Sequence[InputError]) -> None:
        for error in errors:
            where = _where(error.location.path, error.location.line)
            self.say(f"- **error** {where}: {code(error.message)}\n")
        self.out.flush()

    def warned(self, warning: InputWarning) -> None:
        where = _where(warning.location.path, warning.location.line)
        self.say(f"- **warning** {where}: {code(warning.message)}\n")
